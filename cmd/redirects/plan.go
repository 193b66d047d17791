package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"redirects"
	"redirects/plan"
	"redirects/safety"
)

// planCommands are plan and apply: a project described in a file
// (docs/plan.md).
var planCommands = []command{
	{
		name:     "plan",
		synopsis: []string{"-f|--file FILE [--stage] [--max-paths N] [--force --reason TEXT] [--allow-shrink] [--apply-role ROLE] [--json]"},
		summary:  "show what apply would change to make a project match its file; exit 0 none, 2 some, 1 error",
		about: "FILE is a project file (JSON; docs/plan.md): the project's ID, and optionally its settings,\n" +
			"hosts, shrink limit, rules (inline or a draft CSV beside the file) and expected-outcome tests.\n" +
			"A field the file leaves out is left as it is. Files it names are regular files in its folder\n" +
			"(no \"..\", no absolute path, no link out of it). The plan lists the changes to the project's\n" +
			"fields and draft, the deploy that would follow with the paths whose answers change, the lint\n" +
			"findings and the test results. Exit status: 0 when nothing would change, 2 when something\n" +
			"would, 1 on an error, including lint errors, failing tests, a shrink beyond the project's\n" +
			"limit (without --allow-shrink), on a project that requires staged deploys a deploy without\n" +
			"--stage, or a change apply's role may not make (settings, hosts and shrinkLimit need an\n" +
			"owner; rules, tests and the deploy an editor): what apply would refuse. Apply's role is\n" +
			"--apply-role ROLE, for a plan made with a viewer token; else, through the API, the caller's\n" +
			"role when it is an editor's or an owner's.\n" +
			"Problems name the file's rules by their place: rules[3], or the rules file's line.\n" +
			"--force --reason TEXT and --allow-shrink plan as apply with them would run.",
		example: "redirects plan -f redirects.json\n" +
			"redirects plan -f redirects.json --json > plan.json; echo $?",
		readOnly: true,
		run:      (*cmd).plan,
	},
	{
		name:     "apply",
		synopsis: []string{"-f|--file FILE [--message TEXT] [--stage] [--max-paths N] [--force --reason TEXT] [--allow-shrink] [--json]"},
		summary:  "make a project match its file: its fields, the draft (replaced at once), then a deploy",
		about: "apply does what plan shows, and nothing when plan shows nothing (exit 0, \"no changes\"). The\n" +
			"draft is replaced in one import, then deployed through the deploy gate, unless the file says\n" +
			"\"deploy\": false. Lint errors and failing tests (without --force --reason TEXT, which the\n" +
			"audit log records, as deploy takes them), a shrink beyond the limit (without --allow-shrink)\n" +
			"or a change the caller's role may not make refuse the apply before anything changes (exit\n" +
			"1). It prints the version it\n" +
			"deployed, if any. With --stage the deploy is staged (\"redirects promote\" makes it live); plan\n" +
			"compares with the live version, so until the staged version is promoted, plan still shows\n" +
			"the deploy and another apply --stage stages another version.",
		example: "redirects apply -f redirects.json --message \"merge of #42\"",
		run:     (*cmd).apply,
	},
}

// planArgs parses plan's and apply's common flags: the override is what
// the deploy lets through, as deploy's --force --reason and --allow-shrink.
func (c *cmd) planArgs(name string, args []string, extra func(fsAdder)) (file string, maxPaths int, override redirects.DeployOverride, asJSON bool, err error) {
	fs := c.flags(name)
	f := fs.String("f", "", "the project `FILE` (JSON)")
	fs.StringVar(f, "file", "", "the project `FILE` (JSON)")
	mp := fs.Int("max-paths", cliMaxPaths, "changed paths to list (all: -1)")
	as := fs.Bool("allow-shrink", false, "let a deploy remove more live rules than the project's shrink limit")
	force := fs.Bool("force", false, "deploy past lint errors and failing expected-outcome cases (needs --reason)")
	reason := fs.String("reason", "", "why the deploy is forced, for the audit log")
	js := fs.Bool("json", false, "print JSON")
	if extra != nil {
		extra(fs)
	}
	if _, err := parse(fs, args); err != nil {
		return "", 0, override, false, err
	}
	if *f == "" {
		return "", 0, override, false, usagef("%s needs -f FILE", name)
	}
	if *force && strings.TrimSpace(*reason) == "" {
		return "", 0, override, false, usagef("%s --force needs --reason TEXT, which the audit log records", name)
	}
	if !*force && isSet(fs, "reason") {
		return "", 0, override, false, usagef("%s --reason is only taken with --force", name)
	}
	if *mp == 0 || *mp < -1 {
		return "", 0, override, false, redirects.Errorf(redirects.EINVALID, "--max-paths %d is neither a positive number nor -1 (all)", *mp)
	}
	return *f, *mp, redirects.DeployOverride{Force: *force, Reason: *reason, AllowShrink: *as}, *js, nil
}

// planRefusals says why apply would refuse the plan, each with the flag
// that gets past it where one does.
func planRefusals(pl *plan.Plan) []string {
	g := pl.Gate
	out := pl.Blocked()
	for i, b := range out {
		switch {
		case b == g.Shrink.String():
			out[i] = b + ": pass --allow-shrink to apply anyway"
		case !g.Forced && (g.Errors > 0 || len(g.FailingCases) > 0) && strings.HasSuffix(b, "or the deploy forced with a reason"):
			out[i] = gateProblems(g) + " must be fixed, or pass --force --reason TEXT to apply anyway"
		}
	}
	return out
}

// fsAdder is the part of a flag set that adds flags.
type fsAdder interface {
	String(name, value, usage string) *string
	Bool(name string, value bool, usage string) *bool
}

func (c *cmd) plan(ctx context.Context, args []string) error {
	var stage *bool
	var applyRole *string
	file, maxPaths, override, asJSON, err := c.planArgs("plan", args, func(fs fsAdder) {
		stage = fs.Bool("stage", false, "plan the deploy as apply --stage would make it (staged)")
		applyRole = fs.String("apply-role", "", "check the file against the `ROLE` of apply's token (viewer, editor, owner): for a plan made with a viewer token")
	})
	if err != nil {
		return err
	}
	opts := plan.Options{MaxPaths: maxPaths, Override: override}
	if *applyRole != "" {
		r, err := redirects.ParseRole(*applyRole)
		if err != nil {
			return redirects.Errorf(redirects.EINVALID, "--apply-role %q: want viewer, editor or owner", *applyRole)
		}
		opts.ApplyRole = r
	}
	pl, err := c.makePlan(ctx, file, opts)
	if err != nil {
		return err
	}
	pl.Stage = *stage
	if asJSON {
		if err := c.printJSON(plan.Report{Changes: pl.Changes(), Plan: pl}); err != nil {
			return err
		}
	} else if err := printPlan(c.m.Stdout, pl); err != nil {
		return err
	}
	if b := planRefusals(pl); len(b) > 0 {
		return redirects.Errorf(redirects.EINVALID, "plan of %s: apply would refuse it: %s", file, strings.Join(b, "; "))
	}
	if !pl.Changes() {
		c.infof("plan of %s: no changes; %s matches its file", file, pl.ProjectID)
		return nil
	}
	c.infof("plan of %s: %s", file, planSummary(pl))
	return &exitStatus{code: 2}
}

func (c *cmd) makePlan(ctx context.Context, file string, opts plan.Options) (*plan.Plan, error) {
	d, err := plan.Read(file)
	if err != nil {
		return nil, err
	}
	s, err := c.planServices(ctx)
	if err != nil {
		return nil, err
	}
	return plan.Make(ctx, s, d, opts)
}

// planServices are what plan and apply run on: the service layer, on the
// database or through the management API alike.
func (c *cmd) planServices(ctx context.Context) (plan.Services, error) {
	svc, err := c.services(ctx)
	if err != nil {
		return plan.Services{}, err
	}
	s := plan.ServicesOf(svc)
	// Through the API the caller has a role, which the plan checks as
	// apply's requests would be; on the database it may do anything.
	if cl, err := c.remote(); err == nil && cl != nil {
		s.Role = cl.RoleIn
	}
	return s, nil
}

func (c *cmd) apply(ctx context.Context, args []string) error {
	var message *string
	var stage *bool
	file, maxPaths, override, asJSON, err := c.planArgs("apply", args, func(fs fsAdder) {
		message = fs.String("message", "", "the deployment's message (default: \"apply FILE\")")
		stage = fs.Bool("stage", false, "stage the deploy instead of making it live (\"redirects promote\" does)")
	})
	if err != nil {
		return err
	}
	pl, err := c.makePlan(ctx, file, plan.Options{MaxPaths: maxPaths, Override: override})
	if err != nil {
		return err
	}
	pl.Stage = *stage
	if !asJSON {
		if err := printPlan(c.m.Stdout, pl); err != nil {
			return err
		}
	}
	if b := planRefusals(pl); len(b) > 0 {
		return redirects.Errorf(redirects.EINVALID, "apply of %s refused, nothing changed: %s", file, strings.Join(b, "; "))
	}
	if !pl.Changes() {
		if asJSON {
			return c.printJSON(map[string]any{"changes": false, "steps": []string{}})
		}
		c.infof("apply of %s: no changes", file)
		return nil
	}
	s, err := c.planServices(ctx)
	if err != nil {
		return err
	}
	a, err := plan.Apply(ctx, s, pl, *message)
	if a != nil && a.Gate != nil && err != nil {
		c.printGate(a.Gate, verboseLimits)
	}
	var be *redirects.DeployBlockedError
	if errors.As(err, &be) {
		return redirects.Errorf(redirects.ECONFLICT, "apply of %s: the deploy was blocked: %s", file, strings.Join(blockedHints(be.Result), "; "))
	}
	if err != nil {
		return err
	}
	version := 0
	if a.Deployment != nil {
		version = a.Deployment.Version
	}
	if asJSON {
		return c.printJSON(map[string]any{"changes": true, "steps": a.Steps, "version": version})
	}
	if version > 0 {
		c.println(fmt.Sprint(version))
	}
	what := strings.Join(a.Steps, ", ")
	if what == "" {
		what = "nothing but the deploy"
	}
	if version > 0 && a.Deployment.Staged {
		c.infof("apply of %s: changed %s; staged version %d (not live until \"redirects promote --project %s --version %d\")", file, what, version, pl.ProjectID, version)
	} else if version > 0 {
		c.infof("apply of %s: changed %s; deployed version %d", file, what, version)
	} else {
		c.infof("apply of %s: changed %s; nothing deployed", file, what)
	}
	return nil
}

// roleLine says the least role apply needs, and for which fields: "role:
// apply needs owner (hosts), editor (rules, deploy)"; "" when apply would
// change nothing.
func roleLine(needs []plan.RoleNeed) string {
	var parts []string
	for _, r := range []redirects.Role{redirects.RoleOwner, redirects.RoleEditor, redirects.RoleViewer} {
		var fields []string
		for _, n := range needs {
			if n.Role == r {
				fields = append(fields, n.Field)
			}
		}
		if len(fields) > 0 {
			parts = append(parts, fmt.Sprintf("%s (%s)", r, strings.Join(fields, ", ")))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return "role: apply needs " + strings.Join(parts, ", ")
}

func planSummary(pl *plan.Plan) string {
	var parts []string
	if pl.Settings != nil {
		parts = append(parts, "settings")
	}
	if pl.Hosts != nil {
		parts = append(parts, "hosts")
	}
	if pl.ShrinkLimit != nil {
		parts = append(parts, "shrink limit")
	}
	if pl.Tests != nil {
		parts = append(parts, "tests")
	}
	if pl.DraftChanges() {
		parts = append(parts, fmt.Sprintf("draft (%d to add, %d to remove, %d to change)", len(pl.Draft.Added), len(pl.Draft.Removed), len(pl.Draft.Changed)))
	}
	if pl.Deploy != nil {
		parts = append(parts, "a deploy")
	}
	return "would change " + strings.Join(parts, ", ")
}

// printPlan writes a plan as diff does, section by section.
func printPlan(out io.Writer, pl *plan.Plan) error {
	bw := bufio.NewWriter(out)
	fmt.Fprintf(bw, "project %s (%s)\n", pl.ProjectID, pl.ProjectName)
	if st := pl.Settings; st != nil {
		fmt.Fprintf(bw, "~ settings: caseSensitive=%t trailingSlash=%s -> caseSensitive=%t trailingSlash=%s\n",
			st.From.CaseSensitive, st.From.TrailingSlash, st.To.CaseSensitive, st.To.TrailingSlash)
	}
	if h := pl.Hosts; h != nil {
		fmt.Fprintf(bw, "~ hosts: [%s] -> [%s]\n", strings.Join(h.From, " "), strings.Join(h.To, " "))
	}
	if l := pl.ShrinkLimit; l != nil {
		fmt.Fprintf(bw, "~ shrinkLimit: %d -> %d\n", l.From, l.To)
	}
	if t := pl.Tests; t != nil {
		fmt.Fprintf(bw, "~ tests: %d cases -> %d cases\n", t.From, t.To)
	}
	d := pl.Draft
	fmt.Fprintf(bw, "draft: %d to add, %d to remove, %d to change, %d unchanged\n", len(d.Added), len(d.Removed), len(d.Changed), d.Unchanged)
	for _, r := range d.Added {
		fmt.Fprintf(bw, "+ %s %s%s -> %d %s (priority %d)\n", r.MatchType, r.Source, onHost(r.Host), r.StatusCode, r.Destination, r.Priority)
	}
	for _, r := range d.Removed {
		fmt.Fprintf(bw, "- %s %s%s -> %d %s (priority %d)\n", r.MatchType, r.Source, onHost(r.Host), r.StatusCode, r.Destination, r.Priority)
	}
	for _, ch := range d.Changed {
		fmt.Fprintf(bw, "~ %s %s%s: %d %s (priority %d) -> %d %s (priority %d)\n", ch.To.MatchType, ch.To.Source, onHost(ch.To.Host),
			ch.From.StatusCode, ch.From.Destination, ch.From.Priority, ch.To.StatusCode, ch.To.Destination, ch.To.Priority)
	}
	switch dp := pl.Deploy; {
	case !pl.DeployWanted:
		fmt.Fprintln(bw, "deploy: none, the file says \"deploy\": false")
	case dp == nil:
		fmt.Fprintln(bw, "deploy: none needed, the live version has these rules")
	default:
		from := "nothing deployed"
		if dp.LiveVersion > 0 {
			from = fmt.Sprintf("version %d (live)", dp.LiveVersion)
		}
		fmt.Fprintf(bw, "deploy: %s -> a new version: %d of %d sample paths answer differently\n", from, dp.Diff.PathsChanged, dp.Diff.PathsChecked)
		for _, p := range dp.Diff.Impact {
			fmt.Fprintf(bw, "path %s%s: %s -> %s\n", p.Path, onHost(p.Host), p.From, p.To)
		}
	}
	g := pl.Gate
	fmt.Fprintf(bw, "lint: %s, %s\n", plural(g.Errors, "error", "errors"), plural(g.Warnings, "warning", "warnings"))
	for _, f := range g.Findings {
		if f.Severity == safety.SeverityError {
			fmt.Fprintf(bw, "%-7s  %-10s  %s\n", f.Severity, f.Kind, f.Message)
		}
	}
	fmt.Fprintf(bw, "tests: %s, %d failing\n", plural(g.Cases, "case", "cases"), len(g.FailingCases))
	for _, r := range g.FailingCases {
		fmt.Fprintf(bw, "FAIL  line %d: %s: %s\n", r.Case.Line, r.Case.Path, strings.Join(r.Problems, "; "))
	}
	if line := roleLine(pl.Needs); line != "" {
		fmt.Fprintln(bw, line)
	}
	for _, b := range planRefusals(pl) {
		fmt.Fprintf(bw, "blocked: %s\n", b)
	}
	return bw.Flush()
}
