package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"strconv"
	"strings"
	"text/tabwriter"

	"redirects"
	"redirects/api"
	"redirects/export"
	"redirects/safety"
)

// deployCommands are deploy (a rollback is a deploy --from-version) and
// deployments.
var deployCommands = []command{
	{
		name:     "deploy",
		synopsis: []string{"--project P [--message TEXT] [--from-version N] [--stage] [--force --reason TEXT] [--allow-shrink] [--verbose]"},
		summary:  "make the draft rules live as a new version and print the version",
		about: "With --from-version the rules of an earlier version go live again (a rollback).\n" +
			"With --stage the version is stored but not live: lookups and exports answer it only with\n" +
			"--version N (version=N on the edge), counting no hits or misses, until \"redirects promote\"\n" +
			"makes it live. A project updated with --require-stage takes only staged deploys.\n" +
			"\n" +
			"Every deploy is checked first. Lint errors (loops) and failing cases of the project's stored\n" +
			"test file block it unless it is forced with --force --reason TEXT, which the audit log records.\n" +
			"A deploy that removes more of the live rules than the project's shrink limit (10 % unless\n" +
			"\"project update --shrink-limit\" says otherwise; once at least 10 rules go), or all of them,\n" +
			"needs --allow-shrink; a rollback does not.\n" +
			"A blocked deploy changes nothing, says why on stderr and exits 1; warnings block nothing.\n" +
			"\n" +
			"The version goes to stdout. On stderr the outcome comes first (deployed or blocked, and why),\n" +
			"then at most a few lines that need attention: the first findings, and the export formats that\n" +
			"answer some of the rules otherwise than the lookup API. --verbose lists up to 100 errors and\n" +
			"20 warnings, and each kind of export difference once with the formats it concerns.",
		example: "redirects deploy --project \"$PROJECT\" --message \"spring cleanup\"\n" +
			"redirects deploy --project \"$PROJECT\" --from-version 3\n" +
			"redirects deploy --project \"$PROJECT\" --stage --message \"try on the edge first\"\n" +
			"redirects deploy --project \"$PROJECT\" --force --reason \"loop fixed upstream tonight\"",
		run: (*cmd).deploy,
	},
	{
		name:     "promote",
		synopsis: []string{"--project P --version N"},
		summary:  "make a version live on every edge node, unchanged (promoting the previous one undoes it)",
		about: "Moves the project's live pointer: the version's rules and export files stay as they are,\n" +
			"and every edge node answers from it within a second. It is not checked again: it was\n" +
			"checked when it was deployed or staged. Promoting the live version changes nothing.",
		example: "redirects promote --project \"$PROJECT\" --version 8\n" +
			"redirects promote --project \"$PROJECT\" --version 7   # undo",
		run: (*cmd).promote,
	},
	{
		name:     "discard",
		synopsis: []string{"--project P --version N"},
		summary:  "discard a staged version that was never promoted (its number is not reused)",
		example:  `redirects discard --project "$PROJECT" --version 8`,
		run:      (*cmd).discard,
	},
	{
		name:     "deployments",
		synopsis: []string{"--project P [--json]"},
		summary:  "list a project's deployments, version 1 first",
		example:  `redirects deployments --project "$PROJECT" --json`,
		readOnly: true,
		run:      (*cmd).deployments,
	},
}

// DeployMemoryLimit is the soft limit on the Go memory of `redirects
// deploy` (runtime/debug.SetMemoryLimit) when GOMEMLIMIT is not set. A
// deploy is a batch job: with the default GOGC alone the heap may grow to
// twice what is live before it is collected, which at a million rules put
// the deploy past 1 GiB; under the limit the collector runs more often
// instead, and the deploy takes no longer (BENCHMARKS.md, "Deploy
// memory"). Past the limit nothing fails: a larger project's deploy only
// collects more often.
const DeployMemoryLimit = 512 << 20

func (c *cmd) deploy(ctx context.Context, args []string) error {
	fs := c.flags("deploy")
	project := fs.String("project", "", "project ID")
	message := fs.String("message", "", "what this deployment changes")
	from := fs.Int("from-version", 0, "deploy the rules of this earlier version again (rollback)")
	force := fs.Bool("force", false, "deploy past lint errors and failing expected-outcome cases (needs --reason)")
	reason := fs.String("reason", "", "why the deploy is forced, for the audit log")
	allowShrink := fs.Bool("allow-shrink", false, "deploy even if it removes more live rules than the project's shrink limit, or all of them")
	stage := fs.Bool("stage", false, "store the version without making it live (\"redirects promote\" does)")
	verbose := fs.Bool("verbose", false, "list the findings and the export files' differences in full")
	if _, err := parse(fs, args); err != nil {
		return err
	}
	if err := required(fs, "project"); err != nil {
		return err
	}
	if isSet(fs, "from-version") && *from <= 0 {
		return redirects.Errorf(redirects.EINVALID, "--from-version %d is not a positive version number", *from)
	}
	if *force && strings.TrimSpace(*reason) == "" {
		return usagef("deploy --force needs --reason TEXT, which the audit log records")
	}
	if !*force && isSet(fs, "reason") {
		return usagef("deploy --reason is only taken with --force")
	}
	svc, err := c.services(ctx)
	if err != nil {
		return err
	}
	opts := redirects.DeployOptions{Message: *message, FromVersion: *from, Stage: *stage,
		Override: redirects.DeployOverride{Force: *force, Reason: *reason, AllowShrink: *allowShrink}}
	if c.cfg.goMemLimit == "" {
		defer debug.SetMemoryLimit(debug.SetMemoryLimit(DeployMemoryLimit))
	}
	d, g, err := svc.Deploys.Deploy(ctx, *project, opts)
	shown := attentionLimits
	if *verbose {
		shown = verboseLimits
	}
	var be *redirects.DeployBlockedError
	if errors.As(err, &be) {
		// The outcome first, then why: the findings that block it.
		c.infof("redirects: deploy of %s blocked, nothing changed: %s", g.Target, strings.Join(blockedHints(g), "; "))
		c.printGate(g, shown)
		return &exitStatus{code: exitError}
	}
	if err != nil {
		if g != nil {
			c.printGate(g, shown)
		}
		return err
	}
	c.println(strconv.Itoa(d.Version))
	what := "draft rules"
	if d.FromVersion > 0 {
		what = fmt.Sprintf("rules of version %d", d.FromVersion)
	}
	if d.Staged {
		c.infof("staged version %d of %s: %s (%s); not live until \"redirects promote --project %s --version %d\"",
			d.Version, d.ProjectID, ruleCounts(d), what, d.ProjectID, d.Version)
	} else {
		c.infof("deployed version %d of %s: %s (%s)", d.Version, d.ProjectID, ruleCounts(d), what)
	}
	if g.Forced {
		c.infof("forced past %s; the audit log records the reason", gateProblems(g))
	}
	if g.ShrinkAllowed {
		c.infof("allowed to shrink: %s", g.Shrink)
	}
	c.printGate(g, shown)
	c.printExportKinds(d.Report, *verbose)
	return nil
}

// gateLimits are how many findings of each kind a deploy prints.
type gateLimits struct{ errors, warnings, cases int }

// attentionLimits are a deploy's default: the few lines that need
// attention, under the outcome. verboseLimits are those of --verbose: a
// million generated rules can have tens of thousands of warnings, which
// would bury the deploy's own lines even then; "redirects lint" lists
// them all.
var (
	attentionLimits = gateLimits{errors: 3, warnings: 3, cases: 3}
	verboseLimits   = gateLimits{errors: 100, warnings: 20, cases: 100}
)

// printGate writes the gate's findings and failing cases on standard
// error, one a line, as lint and test print them, up to the limits of
// each, then how many more there are and where they are listed.
func (c *cmd) printGate(g *safety.GateResult, max gateLimits) {
	var errs, warns int
	for _, f := range g.Findings {
		n, limit := &warns, max.warnings
		if f.Severity == safety.SeverityError {
			n, limit = &errs, max.errors
		}
		if *n++; *n <= limit {
			c.infof("%-7s  %-10s  %s", f.Severity, f.Kind, f.Message)
		}
	}
	more := func(n int, one, many string, limit, verbose int) {
		if n <= limit {
			return
		}
		where := `"redirects lint" lists every finding`
		if limit < verbose {
			where = fmt.Sprintf(`--verbose lists up to %d; %s`, verbose, where)
		}
		c.infof("... and %s (%s)", plural(n-limit, "more "+one, "more "+many), where)
	}
	more(errs, "error", "errors", max.errors, verboseLimits.errors)
	more(warns, "warning", "warnings", max.warnings, verboseLimits.warnings)
	for i, r := range g.FailingCases {
		if i == max.cases {
			c.infof("... and %d more failing cases (\"redirects test\" lists every one)", len(g.FailingCases)-i)
			break
		}
		c.infof("FAIL  line %d: %s: %s", r.Case.Line, r.Case.Path, strings.Join(r.Problems, "; "))
	}
}

// printExportKinds writes, under a deploy's outcome, which export formats
// answer some of its rules otherwise than the lookup API: one line by
// default, and with verbose each kind of difference once, with the
// formats it concerns (the stored report states it per format).
func (c *cmd) printExportKinds(report string, verbose bool) {
	kinds := export.ReportKinds(report)
	if len(kinds) == 0 {
		return
	}
	formats := export.ReportFormats(kinds)
	verb := "answer"
	if len(formats) == 1 {
		verb = "answers"
	}
	if !verbose {
		c.infof("export files: %s %s some rules otherwise than the lookup API (%s; --verbose lists them)",
			cmp.Or(strings.Join(formats, ", "), "some formats"), verb, plural(len(kinds), "kind of difference", "kinds of difference"))
		return
	}
	c.infof("export files: %s %s some rules otherwise than the lookup API; the formats not named answer as it:",
		cmp.Or(strings.Join(formats, ", "), "some formats"), verb)
	for _, k := range kinds {
		if len(k.Formats) == 0 {
			c.infof("  %s", k.What)
			continue
		}
		c.infof("  %s: %s", strings.Join(k.Formats, ", "), k.What)
	}
}

// gateProblems names what a forced deploy went past: "1 lint error and 2
// failing expected-outcome cases".
func gateProblems(g *safety.GateResult) string {
	var what []string
	if g.Errors > 0 {
		what = append(what, plural(g.Errors, "lint error", "lint errors"))
	}
	if n := len(g.FailingCases); n > 0 {
		what = append(what, plural(n, "failing expected-outcome case", "failing expected-outcome cases"))
	}
	return strings.Join(what, " and ")
}

// blockedHints says why a deploy was blocked and which flag lets it
// through.
func blockedHints(g *safety.GateResult) []string {
	var out []string
	if !g.Forced && (g.Errors > 0 || len(g.FailingCases) > 0) {
		out = append(out, gateProblems(g)+": pass --force --reason TEXT to deploy anyway")
	}
	if g.Shrink.NeedsConfirmation && !g.ShrinkAllowed {
		out = append(out, g.Shrink.String()+": pass --allow-shrink to deploy anyway")
	}
	return out
}

func (c *cmd) deployments(ctx context.Context, args []string) error {
	fs := c.flags("deployments")
	project := fs.String("project", "", "project ID")
	asJSON := fs.Bool("json", false, "print JSON")
	if _, err := parse(fs, args); err != nil {
		return err
	}
	if err := required(fs, "project"); err != nil {
		return err
	}
	svc, err := c.services(ctx)
	if err != nil {
		return err
	}
	ds, err := svc.Deploys.Deployments(ctx, *project)
	if err != nil {
		return err
	}
	if *asJSON {
		out := make([]api.DeploymentRow, 0, len(ds))
		for _, d := range ds {
			out = append(out, api.DeploymentRowOf(d))
		}
		return c.printJSON(out)
	}
	// The PATTERN and REGEX columns are shown only when a version has such
	// rules, so the listing of a project without them reads as before.
	kinds := false
	for _, d := range ds {
		kinds = kinds || d.PatternCount > 0 || d.RegexCount > 0
	}
	w := tabwriter.NewWriter(c.m.Stdout, 0, 4, 2, ' ', 0)
	if kinds {
		fmt.Fprintln(w, "VERSION\tCREATED\tEXACT\tPREFIX\tPATTERN\tREGEX\tMESSAGE")
	} else {
		fmt.Fprintln(w, "VERSION\tCREATED\tEXACT\tPREFIX\tMESSAGE")
	}
	for _, d := range ds {
		msg := d.Message
		if d.FromVersion > 0 {
			msg = strings.TrimSpace(fmt.Sprintf("(rollback to v%d) %s", d.FromVersion, msg))
		}
		// A project that never staged has its newest version live, and
		// its listing reads as before; otherwise the live and the staged
		// versions say so.
		switch {
		case d.Staged:
			msg = strings.TrimSpace("(staged) " + msg)
		case d.Live && d.Version != ds[len(ds)-1].Version:
			msg = strings.TrimSpace("(live) " + msg)
		}
		if kinds {
			fmt.Fprintf(w, "%d\t%s\t%d\t%d\t%d\t%d\t%s\n", d.Version, d.CreatedAt.Format(timeFormat), d.ExactCount, d.PrefixCount,
				d.PatternCount, d.RegexCount, msg)
			continue
		}
		fmt.Fprintf(w, "%d\t%s\t%d\t%d\t%s\n", d.Version, d.CreatedAt.Format(timeFormat), d.ExactCount, d.PrefixCount, msg)
	}
	return w.Flush()
}

// versionArgs parses the flags of a command on one version of a project
// (promote, discard): --project and a positive --version, both required,
// and returns the deploy service.
func (c *cmd) versionArgs(ctx context.Context, name, versionUsage string, args []string) (string, int, redirects.DeployService, error) {
	fs := c.flags(name)
	project := fs.String("project", "", "project ID")
	version := fs.Int("version", 0, versionUsage)
	if _, err := parse(fs, args); err != nil {
		return "", 0, nil, err
	}
	if err := required(fs, "project"); err != nil {
		return "", 0, nil, err
	}
	if !isSet(fs, "version") {
		return "", 0, nil, usagef("%s needs --version", fs.Name())
	}
	if *version <= 0 {
		return "", 0, nil, redirects.Errorf(redirects.EINVALID, "--version %d is not a positive version number", *version)
	}
	svc, err := c.services(ctx)
	return *project, *version, svc.Deploys, err
}

// promote moves the project's live pointer to a version.
func (c *cmd) promote(ctx context.Context, args []string) error {
	project, version, s, err := c.versionArgs(ctx, "promote", "the version to make live", args)
	if err != nil {
		return err
	}
	ds, err := s.Deployments(ctx, project)
	if err != nil {
		return err
	}
	wasLive := 0
	for _, d := range ds {
		if d.Live {
			wasLive = d.Version
		}
	}
	d, err := s.Promote(ctx, project, version)
	if err != nil {
		return err
	}
	c.println(strconv.Itoa(d.Version))
	if wasLive == d.Version {
		c.infof("version %d of %s is already live; nothing changed", d.Version, d.ProjectID)
		return nil
	}
	was := "none"
	if wasLive > 0 {
		was = "version " + strconv.Itoa(wasLive)
	}
	c.infof("version %d of %s is live (was %s): %s", d.Version, d.ProjectID, was, ruleCounts(d))
	return nil
}

// discard discards a staged version.
func (c *cmd) discard(ctx context.Context, args []string) error {
	project, version, s, err := c.versionArgs(ctx, "discard", "the staged version to discard", args)
	if err != nil {
		return err
	}
	if err := s.Discard(ctx, project, version); err != nil {
		return err
	}
	c.infof("discarded staged version %d of %s", version, project)
	return nil
}

// ruleCounts says how many rules of each match type version d holds: "3
// exact and 1 prefix rules" (prefix: starts_with), naming pattern and regex
// rules only when it has some.
func ruleCounts(d *redirects.Deployment) string {
	parts := []string{fmt.Sprintf("%d exact", d.ExactCount), fmt.Sprintf("%d prefix", d.PrefixCount)}
	if d.PatternCount > 0 {
		parts = append(parts, fmt.Sprintf("%d pattern", d.PatternCount))
	}
	if d.RegexCount > 0 {
		parts = append(parts, fmt.Sprintf("%d regex", d.RegexCount))
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1] + " rules"
}
