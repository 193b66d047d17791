package redirects

import "context"

// ImportService is the service layer's imports (see Services): a file's
// rules into a project's draft, all or nothing, and the undo of an applied
// import. Each method authorizes the caller in the context (ActionEditRules)
// and changes or reads the store once. A front door reads the file (the
// draft CSV, or another platform's through package migrate) into rules
// against the project ImportTarget returns, then calls Import.
type ImportService interface {
	// ImportTarget returns the project whose draft an import would change,
	// once the caller may edit its rules: its hosts and settings are what
	// the file is read against. Errors: ENOTFOUND (the project), EFORBIDDEN.
	ImportTarget(ctx context.Context, projectID string) (*Project, error)
	// Import stores rules in the draft as opts.Mode says (see ImportMode),
	// all or nothing, and reports what it did; with opts.DryRun it reports
	// what it would do and writes nothing. Errors: ENOTFOUND (the project),
	// EFORBIDDEN, EINVALID (an unknown mode, or every bad rule, one a line
	// as "rule N: ...", N its place in rules from 1), ECONFLICT (rules an
	// append would add twice, in the same form).
	Import(ctx context.Context, projectID string, rules []Rule, opts ImportOptions) (*ImportReport, error)
	// UndoImport puts the draft back exactly as it was before the applied
	// import whose report gave undoID and returns how many rules the draft
	// holds again. Errors: ENOTFOUND (the project, or no such undo record:
	// undone already, or older than the project's last MaxImportUndos
	// imports), EFORBIDDEN, ECONFLICT (the draft changed since).
	UndoImport(ctx context.Context, projectID string, undoID int64) (int, error)
}

// ImportUndoChecker tells whether an import can still be undone, without
// undoing it. It is served where the database is (LocalServices): the
// dashboard's Import tab offers the undo only when it would work; the
// management API answers the question only by undoing.
type ImportUndoChecker interface {
	// CheckImportUndo reports whether UndoImport would put the draft back
	// now: nil, or the error UndoImport would return. It changes nothing.
	CheckImportUndo(ctx context.Context, projectID string, undoID int64) error
}
