// Package plan is rules as code: a project described in a file in a
// repository (its settings, hosts, rules and expected-outcome tests), what
// would change to make the project match it (Make), and the change itself
// (Apply), through the deploy gate (docs/plan.md).
package plan

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"redirects"
	"redirects/export"
	"redirects/safety"
)

// MaxFileSize caps a project file (the rules it names in a CSV beside it
// are read as an import is, without this cap).
const MaxFileSize = 64 << 20

// MaxRulesFileSize and MaxRulesFileRows cap the rules CSV a project file
// names (rulesFile): as much as one import through the management API
// takes (manage.DefaultMaxImportBytes, manage.MaxImportRows).
const (
	MaxRulesFileSize = 200 << 20
	MaxRulesFileRows = 1_000_000
)

// File is a project file as written: JSON, every field but project
// optional. A field left out is not managed: apply leaves it as it is.
type File struct {
	Project     string         `json:"project"`
	Settings    *SettingsFile  `json:"settings,omitempty"`
	Hosts       *[]string      `json:"hosts,omitempty"`
	ShrinkLimit *int           `json:"shrinkLimit,omitempty"`
	Rules       *[]RuleFile    `json:"rules,omitempty"`
	RulesFile   string         `json:"rulesFile,omitempty"`
	Tests       *[]safety.Case `json:"tests,omitempty"`
	TestsFile   string         `json:"testsFile,omitempty"`
	Deploy      *bool          `json:"deploy,omitempty"`
}

// SettingsFile is the settings object of a project file.
type SettingsFile struct {
	CaseSensitive *bool  `json:"caseSensitive,omitempty"`
	TrailingSlash string `json:"trailingSlash,omitempty"`
}

// RuleFile is one rule of a project file. statusCode defaults to 301,
// matchType to exact, priority to 100.
type RuleFile struct {
	Source        string `json:"source"`
	Destination   string `json:"destination"`
	StatusCode    int    `json:"statusCode,omitempty"`
	MatchType     string `json:"matchType,omitempty"`
	Priority      *int   `json:"priority,omitempty"`
	PreservePath  bool   `json:"preservePath,omitempty"`
	PreserveQuery bool   `json:"preserveQuery,omitempty"`
}

// Desired is what a project file asks for, read and checked.
type Desired struct {
	// Path is the file's path, for messages.
	Path      string
	ProjectID string
	// Settings, Hosts, ShrinkLimit and Tests are nil when the file does not
	// manage them.
	Settings    *redirects.Settings
	Hosts       []string
	HostsSet    bool
	ShrinkLimit *int
	Rules       []redirects.Rule
	// Tests is the test file to store (the CSV that safety.ParseCases
	// reads), and Cases its cases; TestsSet says the file manages them.
	Tests    string
	Cases    []safety.Case
	TestsSet bool
	// Deploy says apply deploys the draft once it matches (true unless the
	// file says "deploy": false).
	Deploy bool
}

// maxProblems bounds the problems one error lists; past it the error says
// how many more there are.
const maxProblems = 100

// Read reads and checks the project file at path. A bad file gets one
// EINVALID error that names the file and every problem found (the first
// maxProblems), each where it is: a line and column of the file, a rule's
// index, a line of a file beside it. The files it names (rulesFile,
// testsFile) are read inside its folder only (beside).
func Read(path string) (*Desired, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, redirects.Errorf(redirects.EINVALID, "cannot read %s: %v", path, errors.Unwrap(err))
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err != nil {
		return nil, redirects.Errorf(redirects.EINVALID, "cannot read %s: %v", path, err)
	}
	if len(data) > MaxFileSize {
		return nil, redirects.Errorf(redirects.EINVALID, "%s is larger than %d MiB; put the rules in a CSV beside it (rulesFile)", path, MaxFileSize>>20)
	}
	if msg := textProblem(data); msg != "" {
		return nil, redirects.Errorf(redirects.EINVALID, "%s: %s", path, msg)
	}
	if problems := checkKeys(data); len(problems) > 0 {
		return nil, redirects.Errorf(redirects.EINVALID, "%s: %s", path, strings.Join(problems, "\n"))
	}
	var file File
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&file); err != nil {
		return nil, redirects.Errorf(redirects.EINVALID, "%s: %s", path, clip(jsonProblem(data, err)))
	}
	d := &Desired{Path: path, ProjectID: strings.TrimSpace(file.Project), Deploy: file.Deploy == nil || *file.Deploy}
	var problems []string
	more := 0
	bad := func(format string, args ...any) {
		if len(problems) == maxProblems {
			more++
			return
		}
		problems = append(problems, clip(fmt.Sprintf(format, args...)))
	}
	if d.ProjectID == "" {
		bad("project: the project's ID is required")
	}
	if s := file.Settings; s != nil {
		set := redirects.Settings{}
		if s.CaseSensitive != nil {
			set.CaseInsensitive = !*s.CaseSensitive
		}
		if s.TrailingSlash != "" {
			ignore, err := redirects.ParseTrailingSlash(s.TrailingSlash)
			if err != nil {
				bad("settings.trailingSlash: %s", redirects.ErrorMessage(err))
			}
			set.IgnoreTrailingSlash = ignore
		}
		d.Settings = &set
	}
	if file.Hosts != nil {
		hosts, err := redirects.NormalizeHosts(*file.Hosts)
		if err != nil {
			bad("hosts: %s", redirects.ErrorMessage(err))
		}
		d.Hosts, d.HostsSet = hosts, true
		if d.Hosts == nil {
			d.Hosts = []string{}
		}
	}
	if file.ShrinkLimit != nil {
		if err := redirects.ValidateShrinkLimit(*file.ShrinkLimit); err != nil {
			bad("shrinkLimit: %s", redirects.ErrorMessage(err))
		}
		d.ShrinkLimit = file.ShrinkLimit
	}
	b := &beside{dir: filepath.Dir(path)}
	defer b.close()
	settings := redirects.Settings{}
	if d.Settings != nil {
		settings = *d.Settings
	}
	switch {
	case file.Rules != nil && file.RulesFile != "":
		bad("rules and rulesFile: give the rules inline or in a CSV beside the file, not both")
	case file.Rules == nil && file.RulesFile == "":
		bad("rules: the file gives no rules (\"rules\": [...] inline, or \"rulesFile\": \"rules.csv\"; \"rules\": [] for none)")
	case file.Rules != nil:
		d.Rules = make([]redirects.Rule, 0, len(*file.Rules))
		seen := map[string]int{}
		for i, rf := range *file.Rules {
			r, err := rf.rule()
			if err == nil {
				err = r.Validate()
			}
			if err != nil {
				bad("rules[%d] (source %s): %s", i, quoteShort(rf.Source), redirects.ErrorMessage(err))
				continue
			}
			k := r.MatchType.String() + " " + settings.Key(r.Source)
			if j, dup := seen[k]; dup {
				bad("rules[%d]: a %s rule for source %q is already rules[%d] (under the settings %s)", i, r.MatchType, r.Source, j, settings)
				continue
			}
			seen[k] = i
			d.Rules = append(d.Rules, r)
		}
	default:
		d.Rules = b.rules(file.RulesFile, export.ReadOptions{Settings: settings, Hosts: d.Hosts}, bad)
	}
	switch {
	case file.Tests != nil && file.TestsFile != "":
		bad("tests and testsFile: give the tests inline or in a CSV beside the file, not both")
	case file.Tests != nil:
		for i, c := range *file.Tests {
			for _, v := range []struct{ key, s string }{{"path", c.Path}, {"destination", c.Destination}, {"finalDestination", c.FinalDestination}} {
				if strings.ContainsRune(v.s, 0) {
					bad("tests[%d].%s: holds a NUL byte", i, v.key)
				}
			}
		}
		d.Tests, d.TestsSet = casesCSV(*file.Tests), true
	case file.TestsFile != "":
		d.Tests, d.TestsSet = b.tests(file.TestsFile, bad), true
	}
	if d.TestsSet && strings.TrimSpace(d.Tests) != "" {
		cases, err := safety.ParseCases(strings.NewReader(d.Tests))
		if err != nil {
			field := "tests"
			if file.TestsFile != "" {
				field = "testsFile " + quoteShort(file.TestsFile)
			}
			for _, msg := range strings.Split(redirects.ErrorMessage(err), "\n") {
				bad("%s: %s", field, msg)
			}
		}
		d.Cases = cases
	}
	if more > 0 {
		problems = append(problems, fmt.Sprintf("... and %d more problems", more))
	}
	if len(problems) > 0 {
		return nil, redirects.Errorf(redirects.EINVALID, "%s: %s", path, strings.Join(problems, "\n"))
	}
	return d, nil
}

func (rf RuleFile) rule() (redirects.Rule, error) {
	r := redirects.Rule{Source: rf.Source, Destination: rf.Destination, StatusCode: rf.StatusCode,
		Priority: redirects.DefaultPriority, PreservePath: rf.PreservePath, PreserveQuery: rf.PreserveQuery}
	if r.StatusCode == 0 {
		r.StatusCode = redirects.DefaultStatus
	}
	if rf.Priority != nil {
		r.Priority = *rf.Priority
	}
	mt := rf.MatchType
	if mt == "" {
		mt = "exact"
	}
	m, err := redirects.ParseMatchType(mt)
	if err != nil {
		return r, err
	}
	r.MatchType = m
	return r, nil
}

// casesCSV writes inline cases as the test file the store keeps.
func casesCSV(cases []safety.Case) string {
	var b strings.Builder
	w := csv.NewWriter(&b)
	w.Write(safety.CasesHeader)
	for _, c := range cases {
		status := "none"
		if c.StatusCode != 0 && c.StatusCode != 204 {
			status = strconv.Itoa(c.StatusCode)
		}
		w.Write([]string{c.Path, status, c.Destination, c.FinalDestination})
	}
	w.Flush()
	return b.String()
}

// jsonProblem says what a decoding error is and where: its line and
// column. A value of the wrong type is named by its field and its JSON
// type, never quoted (a number may be megabytes long).
func jsonProblem(data []byte, err error) string {
	var off int64 = -1
	msg := strings.TrimPrefix(err.Error(), "json: ")
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		off = se.Offset
	case errors.As(err, &te):
		off = te.Offset
		what, _, _ := strings.Cut(te.Value, " ")
		field := te.Field
		if field == "" {
			field = "the file"
		}
		msg = fmt.Sprintf("%s: a JSON %s, want %s", field, what, jsonType(te.Type))
	}
	if off < 1 || off > int64(len(data)) {
		return msg
	}
	line, col := newPositions(data).at(int(off) - 1)
	return fmt.Sprintf("line %d, column %d: %s", line, col, msg)
}

// jsonType names the JSON a Go type is decoded from.
func jsonType(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Struct, reflect.Map:
		return "an object"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a whole number that fits in " + strconv.Itoa(t.Bits()) + " bits"
	}
	return t.String()
}

// Store is what a plan reads and apply writes.
type Store interface {
	safety.RuleSource
	FindProjectTests(ctx context.Context, id string) (string, error)
	SetProjectTests(ctx context.Context, id, csv string) error
	SetProjectHosts(ctx context.Context, id string, hosts []string) (*redirects.Project, error)
	SetProjectShrinkLimit(ctx context.Context, id string, percent int) (*redirects.Project, error)
	SetProjectSettings(ctx context.Context, id string, s redirects.Settings) (*redirects.Project, error)
	Import(ctx context.Context, projectID string, rules []redirects.Rule, opts redirects.ImportOptions) (*redirects.ImportReport, error)
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
func Make(ctx context.Context, s Store, d *Desired, maxPaths int, allowShrink bool) (*Plan, error) {
	p, err := s.FindProjectByID(ctx, d.ProjectID)
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
	stored, err := s.FindProjectTests(ctx, p.ID)
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
	draft, err := safety.Load(ctx, s, p.ID, "draft", false)
	if err != nil {
		return nil, err
	}
	want := &safety.Target{Rules: d.Rules, Name: d.Path, Settings: settings}
	pl.Draft = draft.Diff(want, safety.DiffOptions{MaxPaths: maxPaths})
	pl.Settings, pl.Draft.Settings = pl.Draft.Settings, nil
	live, err := safety.Load(ctx, s, p.ID, "live", true)
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

// DeployFunc deploys a project through the deploy gate: safety.Deploy on a
// database, the management API's deploy through package remote.
type DeployFunc func(ctx context.Context, projectID string, opts redirects.DeployOptions) (*redirects.Deployment, *safety.GateResult, error)

// Apply makes the project match its file: the project's fields, then the
// draft (replaced in one import), then a deploy through the gate (deploy,
// with message). It changes nothing when the plan is blocked; the caller
// checks Changes first for a no-op. A step that fails leaves the earlier
// ones applied, and the error names them.
func Apply(ctx context.Context, s Store, pl *Plan, message string, deploy DeployFunc) (*Applied, error) {
	if b := pl.Blocked(); len(b) > 0 {
		return nil, redirects.Errorf(redirects.ECONFLICT, "nothing applied: %s", strings.Join(b, "; "))
	}
	d := pl.desired
	a := &Applied{Steps: []string{}}
	fail := func(err error) (*Applied, error) {
		if len(a.Steps) == 0 {
			return a, err
		}
		return a, redirects.Errorf(redirects.ErrorCode(err), "%s (already applied: %s)", redirects.ErrorMessage(err), strings.Join(a.Steps, ", "))
	}
	if pl.Hosts != nil {
		if _, err := s.SetProjectHosts(ctx, pl.ProjectID, d.Hosts); err != nil {
			return fail(err)
		}
		a.Steps = append(a.Steps, "hosts")
	}
	if pl.ShrinkLimit != nil {
		if _, err := s.SetProjectShrinkLimit(ctx, pl.ProjectID, *d.ShrinkLimit); err != nil {
			return fail(err)
		}
		a.Steps = append(a.Steps, "shrinkLimit")
	}
	if pl.Tests != nil {
		if err := s.SetProjectTests(ctx, pl.ProjectID, d.Tests); err != nil {
			return fail(err)
		}
		a.Steps = append(a.Steps, "tests")
	}
	importDraft := func() error {
		rep, err := s.Import(ctx, pl.ProjectID, d.Rules, redirects.ImportOptions{Mode: redirects.ImportReplace})
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
		_, err := s.SetProjectSettings(ctx, pl.ProjectID, *d.Settings)
		if redirects.ErrorCode(err) == redirects.ECONFLICT && pl.DraftChanges() {
			if err := importDraft(); err != nil {
				return fail(err)
			}
			_, err = s.SetProjectSettings(ctx, pl.ProjectID, *d.Settings)
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
		dep, g, err := deploy(ctx, pl.ProjectID, redirects.DeployOptions{Message: message, Override: pl.override, Stage: pl.Stage})
		a.Gate = g
		if err != nil {
			return fail(err)
		}
		a.Deployment = dep
	}
	return a, nil
}
