// Package plan is rules as code: a project described in a file in a
// repository (its settings, hosts, rules and expected-outcome tests), what
// would change to make the project match it (Make), and the change itself
// (Apply), through the deploy gate (docs/plan.md).
package plan

import (
	"context"
	"fmt"
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
	// Role returns the caller's role in organization orgID ("" for
	// none), so that a plan refuses what apply would be refused for
	// lack of a role; nil for a caller who may do anything (the command
	// line on the database).
	Role func(ctx context.Context, orgID string) (redirects.Role, error)
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
	DeployWanted bool               `json:"deployWanted"`
	Gate         *safety.GateResult `json:"gate"`
	// Needs lists each change apply would make with the least role that
	// may make it. ApplyRole is the role apply is checked against (see
	// Make), "" for none; RoleFrom says where it came from: "caller" (the
	// caller's own role through the API) or "apply-role" (the caller
	// said, for a plan made with another token than apply's).
	Needs       []RoleNeed            `json:"needs"`
	ApplyRole   redirects.Role        `json:"applyRole,omitempty"`
	RoleFrom    string                `json:"roleFrom,omitempty"`
	CaseResults []safety.CaseResult   `json:"-"`
	Live        *redirects.Deployment `json:"-"`
	// Stage makes Apply stage its deploy instead of making it live
	// (docs/contract.md#staged-deploys); set by the caller.
	Stage   bool `json:"-"`
	desired *Desired
	// requireStage is the project's: a deploy must be staged.
	requireStage bool
	override     redirects.DeployOverride
}

// RoleNeed is a change of the file: the file's field and the least role
// that may make it.
type RoleNeed struct {
	Field string         `json:"field"`
	Role  redirects.Role `json:"role"`
}

// refusal says that role may not make the change, and how to get past it.
func (n RoleNeed) refusal(role redirects.Role, from string) string {
	who := "the caller is " + article(string(role)) + " " + string(role)
	if from == "apply-role" {
		who = "apply runs as " + article(string(role)) + " " + string(role) + " (--apply-role)"
	}
	return fmt.Sprintf("%s needs the %s role to apply (%s): apply with %s %s token, or leave %q out of the file",
		n.Field, n.Role, who, article(string(n.Role)), n.Role, n.Field)
}

// Options say how to plan.
type Options struct {
	// MaxPaths bounds the paths listed (safety.DiffOptions.MaxPaths).
	MaxPaths int
	// Override is what the deploy lets through, as deploy's --force
	// --reason and --allow-shrink do.
	Override redirects.DeployOverride
	// ApplyRole is the role of the token apply will run with, for a plan
	// made with another (a viewer token that only plans); "" for the
	// caller's own role when it may change anything (an editor or an
	// owner, through the API).
	ApplyRole redirects.Role
}

func article(word string) string {
	if word != "" && strings.ContainsRune("aeiou", rune(word[0])) {
		return "an"
	}
	return "a"
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
	b := slices.Clip(p.Gate.Blocked)
	if p.RoleFrom != "" {
		for _, n := range p.Needs {
			if !p.ApplyRole.AtLeast(n.Role) {
				b = append(b, n.refusal(p.ApplyRole, p.RoleFrom))
			}
		}
	}
	if p.Deploy != nil && p.requireStage && !p.Stage {
		b = append(b, "the project requires staged deploys: apply --stage, then \"redirects promote\"")
	}
	return b
}

// Make compares the project with d, as opts say. The role apply is
// checked against is opts.ApplyRole, else the caller's (Services.Role)
// when it is an editor's or an owner's; a viewer's plan lists what apply
// needs without checking it.
func Make(ctx context.Context, s Services, d *Desired, opts Options) (*Plan, error) {
	override, maxPaths := opts.Override, opts.MaxPaths
	if err := override.Validate(); err != nil {
		return nil, err
	}
	p, err := s.Projects.Project(ctx, d.ProjectID)
	if err != nil {
		return nil, err
	}
	pl := &Plan{ProjectID: p.ID, ProjectName: p.Name, desired: d, override: override,
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
	pl.Gate = gate(live.Rules, d, cases, safety.GateOptions{Hosts: hosts, Settings: settings,
		ShrinkLimit: limit, Live: live.Version > 0, Override: pl.override})
	if !d.Deploy {
		// Nothing goes live: the shrink guard has nothing to guard.
		pl.Gate.Blocked = slices.DeleteFunc(pl.Gate.Blocked, func(b string) bool { return b == pl.Gate.Shrink.String() })
	}
	pl.Needs = pl.roleNeeds(p.OrgID)
	switch {
	case opts.ApplyRole != "":
		pl.ApplyRole, pl.RoleFrom = opts.ApplyRole, "apply-role"
	case s.Role != nil:
		role, err := s.Role(ctx, p.OrgID)
		if err != nil {
			return nil, err
		}
		if role.AtLeast(redirects.RoleEditor) {
			pl.ApplyRole, pl.RoleFrom = role, "caller"
		}
	}
	return pl, nil
}

// roleNeeds lists the changes apply would make, each with the least role
// that may take the action apply takes for it: the authorization table
// decides, as it does when apply runs.
func (p *Plan) roleNeeds(orgID string) []RoleNeed {
	var steps []struct {
		field  string
		action redirects.Action
	}
	add := func(change bool, field string, a redirects.Action) {
		if change {
			steps = append(steps, struct {
				field  string
				action redirects.Action
			}{field, a})
		}
	}
	add(p.Settings != nil, "settings", redirects.ActionManageProjects)
	add(p.Hosts != nil, "hosts", redirects.ActionManageProjects)
	add(p.ShrinkLimit != nil, "shrinkLimit", redirects.ActionManageProjects)
	add(p.Tests != nil, "tests", redirects.ActionDeploy)
	add(p.DraftChanges(), "rules", redirects.ActionEditRules)
	add(p.Deploy != nil, "deploy", redirects.ActionDeploy)
	out := []RoleNeed{}
	for _, st := range steps {
		least := redirects.RoleOwner
		for _, r := range []redirects.Role{redirects.RoleViewer, redirects.RoleEditor} {
			if redirects.Authorize(redirects.Principal{Roles: map[string]redirects.Role{orgID: r}}, orgID, st.action) == nil {
				least = r
				break
			}
		}
		out = append(out, RoleNeed{Field: st.field, Role: least})
	}
	return out
}

// gate runs the deploy gate over the file's rules, its findings naming
// each rule by its place in the file (rules[3], or the rules file's line)
// rather than by an ID, which a rule of a file does not have yet.
func gate(live []redirects.Rule, d *Desired, cases []safety.Case, opts safety.GateOptions) *safety.GateResult {
	rules := slices.Clone(d.Rules)
	for i := range rules {
		rules[i].ID = int64(i + 1)
	}
	g := safety.Gate(live, rules, cases, opts)
	for i := range g.Findings {
		f := &g.Findings[i]
		for j := range f.Rules {
			ref := &f.Rules[j]
			if ref.ID < 1 || ref.ID > int64(len(rules)) {
				continue
			}
			at := d.place(int(ref.ID - 1))
			f.Message = strings.ReplaceAll(f.Message, ref.String(), at+" ("+ref.MatchType+" "+ref.Source+")")
			ref.ID = 0
		}
	}
	return g
}

// place names the file's i-th rule where the file holds it.
func (d *Desired) place(i int) string {
	if d.RulesFile != "" && i < len(d.RuleLines) {
		return fmt.Sprintf("rulesFile %s line %d", quoteShort(d.RulesFile), d.RuleLines[i])
	}
	return fmt.Sprintf("rules[%d]", i)
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
