package redirects

import (
	"context"
	"strings"
	"time"
)

// Deployment is one immutable, numbered release of a project's rules. It
// holds a snapshot of the rules and the export files rendered from them.
type Deployment struct {
	ProjectID string
	Version   int
	CreatedAt time.Time
	Message   string
	// FromVersion is the version whose rules were deployed again (a
	// rollback), or 0 when the draft rules were deployed.
	FromVersion int
	// ExactCount, PrefixCount, PatternCount and RegexCount are the
	// version's rules of each match type (PrefixCount: starts_with).
	ExactCount   int
	PrefixCount  int
	PatternCount int
	RegexCount   int
	// Report says what the export formats cannot express, for the operator.
	Report string
	// Override is what the deploy went past, from DeployOptions. The audit
	// entry of the deploy records it; the deployment's row does not.
	Override DeployOverride
	// Settings are the project's matching settings as the deploy froze
	// them: lookups of this version compare paths with them.
	Settings Settings
	// Staged is set on a version deployed with DeployOptions.Stage that
	// was never promoted: lookups and exports without a version do not
	// answer from it, and lookups of it count no hit and no miss
	// (docs/contract.md#staged-deploys).
	Staged bool
	// PromotedAt is when the version was last made live by a promote;
	// zero when it never was.
	PromotedAt time.Time
	// Live is set on the version the project's live pointer names: the
	// one lookups and exports without a version answer from. Stores set
	// it when they read a deployment.
	Live bool
}

// Export is one export file of a deployment, rendered at deploy time.
type Export struct {
	Format string
	Body   []byte
	// ETag is the strong entity tag of Body, quotes included.
	ETag string
	// Encodings holds Body compressed in HTTP content codings, made once
	// at deploy time, so the edge can serve them without compressing per
	// request. It is empty for a deployment stored without them.
	Encodings []Encoding
	// IdentityLen, when above zero, is the length of the identity body of
	// a compact export: one read for the edge's export cache
	// (CompactExportSource) with Body nil and only its encodings held, its
	// identity written decompressed from the gzip encoding piece by piece
	// as a client reads it (coding.IdentityReader). Zero for an export
	// that holds its Body.
	IdentityLen int64
}

// Compact reports whether e holds its encodings only, its identity body
// being IdentityLen bytes to decompress (see IdentityLen).
func (e *Export) Compact() bool { return e.Body == nil && e.IdentityLen > 0 }

// Encoding is an export file's body in one HTTP content coding.
type Encoding struct {
	// Coding is the content coding: "gzip" or "zstd".
	Coding string
	Body   []byte
	// ETag is the strong entity tag of this encoding (see EncodingETag).
	ETag string
}

// Encoding returns the export's body in content coding c, or nil.
func (e *Export) Encoding(c string) *Encoding {
	for i := range e.Encodings {
		if e.Encodings[i].Coding == c {
			return &e.Encodings[i]
		}
	}
	return nil
}

// Size returns the bytes the export holds in memory: its body and every
// encoding.
func (e *Export) Size() int {
	n := len(e.Body)
	for i := range e.Encodings {
		n += len(e.Encodings[i].Body)
	}
	return n
}

// EncodingETag returns the strong entity tag of a file whose identity ETag
// is etag, in content coding c: the identity tag with "-" and the coding
// before its closing quote ("abc" becomes "abc-gzip"). Each encoding is a
// representation of its own (RFC 9110 8.8.3), so its tag differs, while the
// identity tag stays what it always was.
func EncodingETag(etag, c string) string {
	if c == "" || c == "identity" {
		return etag
	}
	if len(etag) >= 2 && etag[len(etag)-1] == '"' {
		return etag[:len(etag)-1] + "-" + c + `"`
	}
	return etag + "-" + c
}

// DeployOptions says what to deploy.
type DeployOptions struct {
	Message string
	// FromVersion, when positive, deploys the rules of that earlier version
	// instead of the draft rules.
	FromVersion int
	// Override is what the caller allows the deploy gate to let through
	// (see package safety); the deploy's audit entry records it.
	Override DeployOverride
	// Stage stores the version without making it live: the project's live
	// pointer stays where it is until PromoteDeployment moves it
	// (docs/contract.md#staged-deploys).
	Stage bool
}

// DeployOverride is what a deploy may go past: blocking findings and
// failing expected-outcome cases when forced with a reason, and the shrink
// guard when shrinking is allowed.
type DeployOverride struct {
	// Force deploys past blocking findings and failing cases; it needs a
	// Reason.
	Force  bool
	Reason string
	// AllowShrink deploys past the shrink guard.
	AllowShrink bool
}

// MaxForceReasonLen bounds the reason of a forced deploy.
const MaxForceReasonLen = 1000

// Validate checks an override: a forced deploy names its reason, and only
// a forced deploy has one.
func (o DeployOverride) Validate() error {
	reason := strings.TrimSpace(o.Reason)
	switch {
	case o.Force && reason == "":
		return Errorf(EINVALID, "a forced deploy needs a reason, for the audit log")
	case !o.Force && reason != "":
		return Errorf(EINVALID, "a reason is only taken with a forced deploy")
	case len(o.Reason) > MaxForceReasonLen:
		return Errorf(EINVALID, "the reason is %d bytes long, more than the %d allowed", len(o.Reason), MaxForceReasonLen)
	}
	return nil
}

// Validate checks the options before a deploy opens its transaction.
// Errors: EINVALID.
func (o DeployOptions) Validate() error {
	if o.FromVersion < 0 {
		return Errorf(EINVALID, "version %d to deploy from is not a positive number", o.FromVersion)
	}
	return o.Override.Validate()
}

// DeployContent is what a deployment stores beside its metadata.
type DeployContent struct {
	Exports []Export
	Report  string
	// Each, when not nil, holds further export files, rendered one at a
	// time: it calls yield with each in turn and returns yield's first
	// error (or its own) at once. Nothing keeps an export after yield
	// returns, so a deploy that stores each one as it comes holds one
	// file, with its encodings, at a time instead of all of them
	// (export.Stream; docs/operations.md, "Deploy memory"). A DeployContent
	// can be ranged over once; see Range.
	Each func(yield func(*Export) error) error
}

// Range calls fn with every export of c, Exports first, then those of
// Each as they are rendered, stopping at fn's first error, which it
// returns. It checks each as Render checks Exports: a format empty or seen
// before is EINTERNAL, a nil body becomes an empty one.
func (c *DeployContent) Range(fn func(*Export) error) error {
	seen := make(map[string]bool, len(Formats))
	check := func(e *Export) error {
		if e.Format == "" || seen[e.Format] {
			return Errorf(EINTERNAL, "deploy: the builder returned an empty or repeated export format %q", e.Format)
		}
		seen[e.Format] = true
		if e.Body == nil {
			e.Body = []byte{} // an empty file is still a file
		}
		return fn(e)
	}
	for i := range c.Exports {
		if err := check(&c.Exports[i]); err != nil {
			return err
		}
	}
	if c.Each == nil {
		return nil
	}
	return c.Each(check)
}

// Builder renders the content of a deployment from its rules, which come in
// the order of engine.SortRules, and the project's settings the deployment
// freezes. The store calls it inside the deploy transaction, so a failure
// stores nothing.
type Builder func(rules []Rule, settings Settings) (*DeployContent, error)

// Render renders the content of a deployment from rules, in the order of
// engine.SortRules, with build, checking that the export formats are distinct and
// not empty and giving a nil body an empty one. A builder error is
// returned as it is; a bad export is EINTERNAL. The files of
// DeployContent.Each are rendered, and checked, only when the content is
// ranged over (DeployContent.Range).
func Render(rules []Rule, settings Settings, build Builder) (*DeployContent, error) {
	if build == nil {
		return nil, Errorf(EINTERNAL, "deploy: no builder")
	}
	content, err := build(rules, settings)
	if err != nil {
		return nil, err
	}
	if content == nil {
		content = &DeployContent{}
	}
	seen := make(map[string]bool, len(content.Exports))
	for i, e := range content.Exports {
		if e.Format == "" || seen[e.Format] {
			return nil, Errorf(EINTERNAL, "deploy: the builder returned an empty or repeated export format %q", e.Format)
		}
		seen[e.Format] = true
		if e.Body == nil {
			content.Exports[i].Body = []byte{} // an empty file is still a file
		}
	}
	return content, nil
}

// Release is a deployment ready to store: everything a store writes but the
// version number, which the store picks inside its transaction.
type Release struct {
	// Deployment is the metadata; the store sets its Version.
	Deployment Deployment
	// Snapshot is engine.EncodeRules of the rules in the order of engine.SortRules.
	Snapshot []byte
	// Exports are the rendered files, each of a distinct, non-empty format
	// and with a non-nil Body.
	Exports []Export
	// Each, when not nil, renders further files one at a time, as
	// DeployContent.Each does, checked as Exports are. A store writes
	// them through EachExport, one after the other, and keeps none.
	Each func(yield func(*Export) error) error
}

// EachExport calls fn with every export file of r, Exports first, then
// those of Each as they are rendered, and returns fn's first error.
func (r *Release) EachExport(fn func(*Export) error) error {
	c := DeployContent{Exports: r.Exports, Each: r.Each}
	return c.Range(fn)
}

// DeployReader is what a deploy's gate reads in the deploy's write
// transaction, beside the project and the rules it is handed.
type DeployReader interface {
	// FindLiveRules returns the rules of the project's latest deployment,
	// in any order. Errors: ENOTFOUND when it has none.
	FindLiveRules(ctx context.Context, projectID string) ([]Rule, error)
	// FindProjectTests returns the project's stored expected-outcome test
	// file, or "" when it has none.
	FindProjectTests(ctx context.Context, projectID string) (string, error)
}

// DeployTx is a store's write transaction as DeployInTx uses it. It holds,
// until it ends, a lock that keeps two deploys of one project from picking
// the same version; on PostgreSQL FindProject takes it.
type DeployTx interface {
	DeployReader
	// FindProject returns the project to deploy. Errors: ENOTFOUND.
	FindProject(ctx context.Context, id string) (*Project, error)
	// FindRules returns the draft rules of a project when version is 0,
	// else the rules of that version, in any order, with the settings they
	// go live with: the project's for the draft, the version's own for a
	// version deployed again. Errors: ENOTFOUND (the version).
	FindRules(ctx context.Context, projectID string, version int) ([]Rule, Settings, error)
	// InsertRelease stores r as the project's next version, setting
	// r.Deployment.Version, and records its deploy event for orgID. It
	// writes the exports one at a time (Release.EachExport) and may drop
	// r.Snapshot once stored.
	InsertRelease(ctx context.Context, orgID string, r *Release) error
	// RecordAudit appends an audit entry in the transaction.
	RecordAudit(ctx context.Context, e *AuditEntry) error
	// Now returns the store's time, which the deployment is stamped with.
	Now() time.Time
}

// DeployStore is what a deploy needs of a store: its write transaction.
type DeployStore interface {
	// WithDeployTx runs fn in a write transaction that holds the store's
	// deploy lock (see DeployTx) and commits it when fn returns nil; when
	// fn fails, nothing it wrote is kept and its error is returned as it
	// is. It is a store's whole part in a deploy: deploys go through
	// the deploy service (DeployService.Deploy), which checks what it
	// writes in this transaction.
	// Errors: EUNAVAILABLE, and whatever fn returns.
	WithDeployTx(ctx context.Context, fn func(tx DeployTx) error) error
}

// RequireStageError is the error of a plain deploy of a project that
// requires staged deploys (Project.RequireStage).
func RequireStageError(projectID string) error {
	return Errorf(ECONFLICT, "project %s requires staged deploys: deploy with --stage (\"stage\": true in the API), then promote the version; nothing changed", projectID)
}

// DeploymentNotFound returns the ENOTFOUND error of a project's missing
// deployment: version, or any when version is 0.
func DeploymentNotFound(projectID string, version int) error {
	if version == 0 {
		return Errorf(ENOTFOUND, "project %s has no deployment", projectID)
	}
	return Errorf(ENOTFOUND, "deployment version %d of project %s not found", version, projectID)
}

// Formats lists the export formats in the order of docs/contract.md.
var Formats = []string{"csv", "nginx", "nginx-map-exact", "nginx-map-prefix", "haproxy", "haproxy-map-exact", "haproxy-map-prefix"}

// FormatExtension returns the file extension of an export format, without
// the dot, or "" for an unknown format.
func FormatExtension(format string) string {
	switch format {
	case "csv":
		return "csv"
	case "nginx":
		return "conf"
	case "haproxy":
		return "cfg"
	case "nginx-map-exact", "nginx-map-prefix", "haproxy-map-exact", "haproxy-map-prefix":
		return "map"
	}
	return ""
}

// AddKindCounts adds the counts of pattern and regex rules to m, an audit
// entry's deployment, under "patternRules" and "regexRules", each only when
// above 0, so the entry of a version without them reads as before.
func (d *Deployment) AddKindCounts(m map[string]any) {
	if d.PatternCount > 0 {
		m["patternRules"] = d.PatternCount
	}
	if d.RegexCount > 0 {
		m["regexRules"] = d.RegexCount
	}
}
