package redirects

import (
	"context"
	"errors"
)

// prunedError is the error of Store.FindExport for a version whose export
// files were deleted: ENOTFOUND to a caller that cannot render them again.
type prunedError struct{ err *Error }

func (e *prunedError) Error() string { return e.err.Message }
func (e *prunedError) Unwrap() error { return e.err }

// ExportsPruned returns the error of Store.FindExport for a version of a
// project whose export files were deleted by the export retention.
func ExportsPruned(projectID string, version int) error {
	return &prunedError{Errorf(ENOTFOUND, "the export files of deployment version %d of project %s were pruned", version, projectID)}
}

// IsExportsPruned reports whether err says a version's export files were
// pruned (see ExportsPruned).
func IsExportsPruned(err error) bool {
	var p *prunedError
	return errors.As(err, &p)
}

// errFound stops FindExport's range over a deployment's files at the one
// it looks for.
var errFound = errors.New("found")

// ExportSource is the part of Store that FindExport reads.
type ExportSource interface {
	FindExport(ctx context.Context, projectID string, version int, format string) (*Deployment, *Export, error)
	FindDeployment(ctx context.Context, projectID string, version int) (*Deployment, []Rule, error)
}

// CompactExportSource is an ExportSource that can also read an export
// file compact (Export.Compact): a file whose identity is at least minLen
// bytes comes back with its encodings only and IdentityLen, so that a
// reader that serves it to many clients holds a fifth of its size or
// less; a smaller file, or one stored without a gzip encoding, comes back
// whole, as FindExport reads it. A pruned version's file, rendered again,
// is made compact by the same rule.
type CompactExportSource interface {
	FindCompactExport(ctx context.Context, projectID string, version int, format string, minLen int64) (*Deployment, *Export, error)
}

// FindCompactExport is FindExport reading through s's FindCompactExport
// when s is a CompactExportSource; a file rendered again after a prune is
// made compact when it is at least minLen bytes and has a gzip encoding.
func FindCompactExport(ctx context.Context, s ExportSource, build Builder, projectID string, version int, format string, minLen int64) (*Deployment, *Export, error) {
	cs, ok := s.(CompactExportSource)
	if !ok {
		return FindExport(ctx, s, build, projectID, version, format)
	}
	d, e, err := cs.FindCompactExport(ctx, projectID, version, format, minLen)
	if err == nil || !IsExportsPruned(err) || build == nil || d == nil {
		return d, e, err
	}
	d, e, err = renderPruned(ctx, s, build, projectID, d.Version, format)
	if err == nil && int64(len(e.Body)) >= minLen && minLen > 0 && e.Encoding("gzip") != nil {
		e.IdentityLen, e.Body = int64(len(e.Body)), nil
	}
	return d, e, err
}

// FindExport returns one export file of a version, or of the latest when
// version is 0, as s stores it; for a version whose export files were
// pruned, it renders them again from the version's rules with build, the
// builder the deploy used, without storing them. The rules come back in
// the order the deploy rendered them (engine.SortRules), so the bytes and the
// ETag are the deploy's. The edge's export handler and `redirects export`
// both read through it. Errors: ENOTFOUND, and whatever build returns.
func FindExport(ctx context.Context, s ExportSource, build Builder, projectID string, version int, format string) (*Deployment, *Export, error) {
	d, e, err := s.FindExport(ctx, projectID, version, format)
	if err == nil || !IsExportsPruned(err) || build == nil || d == nil {
		return d, e, err
	}
	return renderPruned(ctx, s, build, projectID, d.Version, format)
}

// renderPruned renders again the file of a version whose export files
// were pruned.
func renderPruned(ctx context.Context, s ExportSource, build Builder, projectID string, version int, format string) (*Deployment, *Export, error) {
	d, rules, err := s.FindDeployment(ctx, projectID, version)
	if err != nil {
		return nil, nil, err
	}
	content, err := Render(rules, d.Settings, build)
	if err != nil {
		return nil, nil, err
	}
	// Only the file asked for is kept, and a builder that renders one file
	// at a time (DeployContent.Each) renders none after it.
	var found *Export
	if err := content.Range(func(e *Export) error {
		if e.Format != format {
			return nil
		}
		c := *e
		found = &c
		return errFound
	}); err != nil && err != errFound {
		return nil, nil, err
	}
	if found != nil {
		return d, found, nil
	}
	return nil, nil, Errorf(ENOTFOUND, "export %q of deployment version %d of project %s not found", format, d.Version, projectID)
}
