// Package plan is rules as code: a project described in a file in a
// repository (its settings, hosts, rules and expected-outcome tests), what
// would change to make the project match it (Make), and the change itself
// (Apply), through the deploy gate (docs/plan.md).
package plan

import (
	"context"
	"path/filepath"
	"slices"
	"strings"

	"redirects"
	"redirects/safety"
)

// Services are what a plan reads and apply runs: the project's fields
// (Projects), its draft (Imports), and the deploy service, which reads
// the rule sets and the test file and deploys through the gate.
type Services struct {
	Projects redirects.ProjectService
	Imports  redirects.ImportService
	Deploys  redirects.DeployService
}

// ServicesOf returns what a plan needs of the service layer s.
func ServicesOf(s redirects.Services) Services {
	return Services{Projects: s.Projects, Imports: s.Imports, Deploys: s.Deploys}
}

// Report is plan's --json answer: the plan, after whether it changes
// anything.
type Report struct {
	Changes bool `json:"changes"`
	*Plan
}

// Plan is what would change to make a project match its file.
type Plan struct {
	ProjectID   string                 `json:"project"`
	ProjectName string                 `json:"projectName"`
	Settings    *safety.SettingsChange `json:"settings,omitempty"`
	Hosts       *Change[[]string]      `json:"hosts,omitempty"`
	ShrinkLimit *Change[int]           `json:"shrinkLimit,omitempty"`
	Tests       *Change[int]           `json:"tests,omitempty"`
	Draft       safety.DiffResult      `json:"draft"`
	Deploy      *DeployPlan            `json:"deploy,omitempty"`
	// DeployWanted is false when the file says "deploy": false.
	DeployWanted bool                  `json:"deployWanted"`
	Gate         *safety.GateResult    `json:"gate"`
	CaseResults  []safety.CaseResult   `json:"-"`
	Live         *redirects.Deployment `json:"-"`
	// Stage makes Apply stage its deploy instead of making it live
	// (docs/contract.md#staged-deploys); set by the caller.
	Stage   bool `json:"-"`
	desired *Desired
	// requireStage is the project's: a deploy must be staged.
	requireStage bool
	override     redirects.DeployOverride
}

// Change is a field's value now and in the file.
type Change[T any] struct {
	From T `json:"from"`
	To   T `json:"to"`
}

// DeployPlan is the deploy apply would make: the live version (0 for
// none) and what its rules' answers become.
type DeployPlan struct {
	LiveVersion int               `json:"liveVersion"`
	Diff        safety.DiffResult `json:"diff"`
}

// Changes reports whether apply would change anything.
func (p *Plan) Changes() bool {
	return p.Settings != nil || p.Hosts != nil || p.ShrinkLimit != nil || p.Tests != nil || p.DraftChanges() || p.Deploy != nil
}

// DraftChanges reports whether the draft's rules differ from the file's.
func (p *Plan) DraftChanges() bool {
	return len(p.Draft.Added)+len(p.Draft.Removed)+len(p.Draft.Changed) > 0
}

// Blocked lists why apply would refuse: lint errors, failing cases, a
// shrink beyond the limit (unless allowed), a deploy that is not staged on
// a project that requires staged deploys.
func (p *Plan) Blocked() []string {
	b := p.Gate.Blocked
	if p.Deploy != nil && p.requireStage && !p.Stage {
		b = append(slices.Clip(b), "the project requires staged deploys: apply --stage, then \"redirects promote\"")
	}
	return b
}

// Make compares the project with d. maxPaths bounds the paths listed
// (safety.DiffOptions.MaxPaths); allowShrink lets a shrink beyond the
// project's limit through, as deploy --allow-shrink does.
func Make(ctx context.Context, s Services, d *Desired, maxPaths int, allowShrink bool) (*Plan, error) {
	p, err := s.Projects.Project(ctx, d.ProjectID)
	if err != nil {
		return nil, err
	}
	pl := &Plan{ProjectID: p.ID, ProjectName: p.Name, desired: d, override: redirects.DeployOverride{AllowShrink: allowShrink},
		DeployWanted: d.Deploy, requireStage: p.RequireStage}
	settings := p.Settings
	if d.Settings != nil {
		settings = *d.Settings
	}
	hosts := p.Hosts
	if d.HostsSet {
		if !slices.Equal(p.Hosts, d.Hosts) {
			pl.Hosts = &Change[[]string]{From: nonNil(p.Hosts), To: d.Hosts}
		}
		hosts = d.Hosts
	}
	limit := p.ShrinkLimit
	if d.ShrinkLimit != nil {
		if *d.ShrinkLimit != p.ShrinkLimit {
			pl.ShrinkLimit = &Change[int]{From: p.ShrinkLimit, To: *d.ShrinkLimit}
		}
		limit = *d.ShrinkLimit
	}
	cases := d.Cases
	stored, err := s.Deploys.Tests(ctx, p.ID)
	if err != nil {
		return nil, err
	}
	var storedCases []safety.Case
	if strings.TrimSpace(stored) != "" {
		if storedCases, err = safety.ParseCases(strings.NewReader(stored)); err != nil {
			return nil, err
		}
	}
	if d.TestsSet {
		if !sameCases(storedCases, d.Cases) {
			pl.Tests = &Change[int]{From: len(storedCases), To: len(d.Cases)}
		}
	} else {
		cases = storedCases
	}
	draft, err := target(ctx, s.Deploys, p.ID, "draft", false)
	if err != nil {
		return nil, err
	}
	want := &safety.Target{Rules: d.Rules, Name: d.Path, Settings: settings}
	pl.Draft = draft.Diff(want, safety.DiffOptions{MaxPaths: maxPaths})
	pl.Settings, pl.Draft.Settings = pl.Draft.Settings, nil
	live, err := target(ctx, s.Deploys, p.ID, "live", true)
	if err != nil {
		return nil, err
	}
	if live.Version > 0 {
		pl.Live = &redirects.Deployment{Version: live.Version}
	}
	if d.Deploy {
		ld := live.Diff(want, safety.DiffOptions{MaxPaths: maxPaths})
		if live.Version == 0 || ld.Settings != nil || len(ld.Added)+len(ld.Removed)+len(ld.Changed) > 0 {
			pl.Deploy = &DeployPlan{LiveVersion: live.Version, Diff: ld}
		}
	}
	pl.Gate = safety.Gate(live.Rules, d.Rules, cases, safety.GateOptions{Hosts: hosts, Settings: settings,
		ShrinkLimit: limit, Live: live.Version > 0, Override: pl.override})
	if !d.Deploy {
		// Nothing goes live: the shrink guard has nothing to guard.
		pl.Gate.Blocked = slices.DeleteFunc(pl.Gate.Blocked, func(b string) bool { return b == pl.Gate.Shrink.String() })
	}
	return pl, nil
}

// settingsUpdate is the project update that sets the matching settings s.
func settingsUpdate(s redirects.Settings) redirects.ProjectUpdate {
	return redirects.ProjectUpdate{CaseInsensitive: &s.CaseInsensitive, IgnoreTrailingSlash: &s.IgnoreTrailingSlash}
}

// target reads spec's rule set of the project through the deploy service.
func target(ctx context.Context, s redirects.DeployService, projectID, spec string, emptyLive bool) (*safety.Target, error) {
	rs, err := s.RuleSet(ctx, projectID, spec, emptyLive)
	if err != nil {
		return nil, err
	}
	return safety.TargetOf(rs), nil
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func sameCases(a, b []safety.Case) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := a[i], b[i]
		x.Line, y.Line = 0, 0
		if x != y {
			return false
		}
	}
	return true
}

// Applied is what Apply did.
type Applied struct {
	// Steps says what changed, in order: "settings", "hosts",
	// "shrinkLimit", "tests", "draft".
	Steps      []string                `json:"steps"`
	Import     *redirects.ImportReport `json:"-"`
	Deployment *redirects.Deployment   `json:"-"`
	Gate       *safety.GateResult      `json:"-"`
}

// Apply makes the project match its file: the project's fields, then the
// draft (replaced in one import), then a deploy through the deploy
// service's gate, with message. It changes nothing when the plan is blocked; the caller
// checks Changes first for a no-op. A step that fails leaves the earlier
// ones applied, and the error names them.
func Apply(ctx context.Context, s Services, pl *Plan, message string) (*Applied, error) {
	if b := pl.Blocked(); len(b) > 0 {
		return nil, redirects.Errorf(redirects.ECONFLICT, "nothing applied: %s", strings.Join(b, "; "))
	}
	d := pl.desired
	if pl.DraftChanges() {
		// The draft is written after the project's fields: a draft the
		// import would refuse for its number of regex rules is refused
		// before anything is applied.
		if err := redirects.CheckRegexLimit(redirects.CountRegex(d.Rules)); err != nil {
			return nil, redirects.Errorf(redirects.ErrorCode(err), "nothing applied: %s", redirects.ErrorMessage(err))
		}
	}
	a := &Applied{Steps: []string{}}
	fail := func(err error) (*Applied, error) {
		if len(a.Steps) == 0 {
			return a, err
		}
		return a, redirects.Errorf(redirects.ErrorCode(err), "%s (already applied: %s)", redirects.ErrorMessage(err), strings.Join(a.Steps, ", "))
	}
	if pl.Hosts != nil {
		if _, err := s.Projects.UpdateProject(ctx, pl.ProjectID, redirects.ProjectUpdate{Hosts: &d.Hosts}); err != nil {
			return fail(err)
		}
		a.Steps = append(a.Steps, "hosts")
	}
	if pl.ShrinkLimit != nil {
		if _, err := s.Projects.UpdateProject(ctx, pl.ProjectID, redirects.ProjectUpdate{ShrinkLimit: d.ShrinkLimit}); err != nil {
			return fail(err)
		}
		a.Steps = append(a.Steps, "shrinkLimit")
	}
	if pl.Tests != nil {
		var err error
		if d.Tests == "" {
			err = s.Deploys.DeleteTests(ctx, pl.ProjectID)
		} else {
			_, err = s.Deploys.SetTests(ctx, pl.ProjectID, d.Tests)
		}
		if err != nil {
			return fail(err)
		}
		a.Steps = append(a.Steps, "tests")
	}
	importDraft := func() error {
		rep, err := s.Imports.Import(ctx, pl.ProjectID, d.Rules, redirects.ImportOptions{Mode: redirects.ImportReplace})
		if err != nil {
			return err
		}
		a.Import = rep
		a.Steps = append(a.Steps, "draft")
		return nil
	}
	switch {
	case pl.Settings != nil:
		// The draft's rules must not clash under the settings in force
		// when they are written: settings first, unless the draft as it
		// is clashes under the new ones; then the rules first.
		_, err := s.Projects.UpdateProject(ctx, pl.ProjectID, settingsUpdate(*d.Settings))
		if redirects.ErrorCode(err) == redirects.ECONFLICT && pl.DraftChanges() {
			if err := importDraft(); err != nil {
				return fail(err)
			}
			_, err = s.Projects.UpdateProject(ctx, pl.ProjectID, settingsUpdate(*d.Settings))
		} else if err == nil && pl.DraftChanges() {
			a.Steps = append(a.Steps, "settings")
			if err := importDraft(); err != nil {
				return fail(err)
			}
			break
		}
		if err != nil {
			return fail(err)
		}
		a.Steps = append(a.Steps, "settings")
	case pl.DraftChanges():
		if err := importDraft(); err != nil {
			return fail(err)
		}
	}
	if pl.Deploy != nil {
		if message == "" {
			message = "apply " + filepath.Base(d.Path)
		}
		dep, g, err := s.Deploys.Deploy(ctx, pl.ProjectID, redirects.DeployOptions{Message: message, Override: pl.override, Stage: pl.Stage})
		a.Gate = g
		if err != nil {
			return fail(err)
		}
		a.Deployment = dep
	}
	return a, nil
}
