package service

import (
	"context"

	"redirects"
)

var _ redirects.ImportService = (*Service)(nil)

// ImportTarget authorizes ActionEditRules and returns the project.
func (s *Service) ImportTarget(ctx context.Context, projectID string) (*redirects.Project, error) {
	return s.project(ctx, projectID, redirects.ActionEditRules)
}

// Import authorizes ActionEditRules and imports rules in the store's one
// transaction (redirects.ImportInTx), which writes the audit entry.
func (s *Service) Import(ctx context.Context, projectID string, rules []redirects.Rule, opts redirects.ImportOptions) (*redirects.ImportReport, error) {
	p, err := s.project(ctx, projectID, redirects.ActionEditRules)
	if err != nil {
		return nil, err
	}
	return s.store.Import(ctx, p.ID, rules, opts)
}

// UndoImport authorizes ActionEditRules and undoes an applied import.
func (s *Service) UndoImport(ctx context.Context, projectID string, undoID int64) (int, error) {
	p, err := s.project(ctx, projectID, redirects.ActionEditRules)
	if err != nil {
		return 0, err
	}
	return s.store.UndoImport(ctx, p.ID, undoID)
}

// CheckImportUndo authorizes ActionEditRules and reports whether
// UndoImport would succeed now.
func (s *Service) CheckImportUndo(ctx context.Context, projectID string, undoID int64) error {
	p, err := s.project(ctx, projectID, redirects.ActionEditRules)
	if err != nil {
		return err
	}
	return s.store.CheckImportUndo(ctx, p.ID, undoID)
}
