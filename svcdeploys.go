package redirects

import "context"

// DeployService is the service layer's deploys (see Services). Each method
// authorizes the caller in the context, validates, and changes or reads
// the store once. Deploying, promoting, discarding and changing the test
// file need ActionDeploy; reading needs ActionRead. A project of an
// organization the caller has no role in is answered as a missing one.
type DeployService interface {
	// Deploy makes the draft rules, or opts.FromVersion's (a rollback),
	// the project's next version, live or with opts.Stage staged. The
	// deploy gate runs in the deploy's write transaction on exactly the
	// rules it writes, against the project's hosts, shrink limit and
	// stored test file; the audit entry records only the overrides the
	// deploy needed. The gate's report is returned with the deployment,
	// for its warnings, and with a blocked deploy; it is nil when the
	// deploy failed before the gate ran. Errors: ENOTFOUND (project or
	// version), EFORBIDDEN, EINVALID (the options, the stored test file,
	// what the builder refuses), ECONFLICT (a project that requires staged
	// deploys; a *DeployBlockedError with the report when the gate refused
	// the deploy and nothing changed).
	Deploy(ctx context.Context, projectID string, opts DeployOptions) (*Deployment, *GateReport, error)
	// CheckDeploy is a dry run of Deploy: the gate's report on the deploy
	// opts describes, read without the deploy's lock. Errors: ENOTFOUND
	// (project or version), EINVALID (the options, the stored test file).
	CheckDeploy(ctx context.Context, projectID string, opts DeployOptions) (*GateReport, error)
	// Deployments returns the project's deployments, version 1 first.
	// Errors: ENOTFOUND.
	Deployments(ctx context.Context, projectID string) ([]*Deployment, error)
	// Promote makes a version live, unchanged and not checked again;
	// promoting the live version changes nothing. Errors: ENOTFOUND
	// (project or version), EFORBIDDEN, ECONFLICT (a discarded version).
	Promote(ctx context.Context, projectID string, version int) (*Deployment, error)
	// Discard discards a staged version that was never live. Errors:
	// ENOTFOUND, EFORBIDDEN, ECONFLICT (a version that was live).
	Discard(ctx context.Context, projectID string, version int) error
	// Version returns a deployed version (the live one for 0) and its
	// rules, in deployment order, with their IDs. Errors: ENOTFOUND
	// (project or version), EINVALID (a negative version).
	Version(ctx context.Context, projectID string, version int) (*Deployment, []Rule, error)
	// Export returns one export file of a version (the live one for 0),
	// rendered again with the deploy's builder when the retention pruned
	// it, into the same bytes. Errors: ENOTFOUND (project, version or
	// format), EINVALID (a negative version).
	Export(ctx context.Context, projectID string, version int, format string) (*Deployment, *Export, error)
	// RuleSet returns the rules of spec ("draft", "live" or a version
	// number) with the settings they answer with and the project's hosts,
	// as the checks (lint,
	// diff, explain, lookup, test, verify) read them. With emptyLive,
	// "live" of a project with nothing deployed is an empty set. Errors:
	// EINVALID (spec), ENOTFOUND (project or version).
	RuleSet(ctx context.Context, projectID, spec string, emptyLive bool) (*RuleSet, error)
	// Lookup answers what the edge would answer for a request of path
	// (the request path as sent, with its query) on host ("" for none:
	// only rules without a host answer, docs/contract.md#hosts) in the
	// rules of spec ("draft", "live" or a version number), with the engine
	// the edge runs. Errors: EINVALID (spec, path, host), ENOTFOUND
	// (project or version).
	Lookup(ctx context.Context, projectID, spec, host, path string) (*LookupResult, error)
	// Tests returns the project's stored expected-outcome test file, ""
	// when it has none. Errors: ENOTFOUND.
	Tests(ctx context.Context, projectID string) (string, error)
	// SetTests stores the project's test file, replacing the one before,
	// and returns its number of cases; a file with a bad line is refused
	// whole. Errors: ENOTFOUND, EFORBIDDEN, EINVALID (every bad line
	// named; an empty or too long file).
	SetTests(ctx context.Context, projectID, csv string) (int, error)
	// DeleteTests removes the project's test file; deploys then run no
	// cases. Errors: ENOTFOUND, EFORBIDDEN.
	DeleteTests(ctx context.Context, projectID string) error
}

// LookupResult is what a lookup of a rule set answers.
type LookupResult struct {
	// Version is the version looked in, 0 for the draft (Draft).
	Version int
	Draft   bool
	// Body is the edge's /v1/lookup body, byte for byte, nil when no rule
	// answers (the edge's 204).
	Body []byte
}

// RuleSet is a project's draft rules or the rules of one of its
// deployments, with the settings they answer with.
type RuleSet struct {
	Rules []Rule
	// Name reads "the draft", "version 3", "version 3 (live)" or "nothing
	// deployed".
	Name string
	// Version is the version number, or 0 for the draft or nothing deployed.
	Version int
	// Draft is true for the draft rules.
	Draft bool
	// Settings are the matching settings the rules answer with: the
	// project's for the draft, the version's as its deploy froze them
	// (the default for nothing deployed).
	Settings Settings
	// Hosts are the project's own hosts, whose absolute destinations
	// lead back into the project: lint and the cases follow them.
	Hosts []string
}
