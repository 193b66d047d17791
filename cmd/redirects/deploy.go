package main

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"strconv"
	"strings"
	"text/tabwriter"

	"redirects"
	"redirects/plan"
	"redirects/remote"
	"redirects/safety"
)

// deployCommands are deploy (a rollback is a deploy --from-version) and
// deployments.
var deployCommands = []command{
	{
		name:     "deploy",
		synopsis: []string{"--project P [--message TEXT] [--from-version N] [--force --reason TEXT] [--allow-shrink]"},
		summary:  "make the draft rules live as a new version and print the version",
		about: "With --from-version the rules of an earlier version go live again (a rollback).\n" +
			"\n" +
			"Every deploy is checked first. Lint errors (loops) and failing cases of the project's stored\n" +
			"test file block it unless it is forced with --force --reason TEXT, which the audit log records.\n" +
			"A deploy that removes more of the live rules than the project's shrink limit (10 % unless\n" +
			"\"project update --shrink-limit\" says otherwise; once at least 10 rules go), or all of them,\n" +
			"needs --allow-shrink; a rollback does not.\n" +
			"A blocked deploy changes nothing, says why on stderr and exits 1; warnings block nothing.",
		example: "redirects deploy --project \"$PROJECT\" --message \"spring cleanup\"\n" +
			"redirects deploy --project \"$PROJECT\" --from-version 3\n" +
			"redirects deploy --project \"$PROJECT\" --force --reason \"loop fixed upstream tonight\"",
		run: (*cmd).deploy,
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
	s, err := c.open(ctx)
	if err != nil {
		return err
	}
	opts := redirects.DeployOptions{Message: *message, FromVersion: *from,
		Override: redirects.DeployOverride{Force: *force, Reason: *reason, AllowShrink: *allowShrink}}
	if c.cfg.goMemLimit == "" {
		defer debug.SetMemoryLimit(debug.SetMemoryLimit(DeployMemoryLimit))
	}
	d, g, err := c.deployFunc(s)(ctx, *project, opts)
	if g != nil {
		c.printGate(g)
	}
	var be *safety.BlockedError
	if errors.As(err, &be) {
		return redirects.Errorf(redirects.ECONFLICT, "deploy of %s blocked, nothing changed: %s", g.Target, strings.Join(blockedHints(g), "; "))
	}
	if err != nil {
		return err
	}
	c.println(strconv.Itoa(d.Version))
	what := "draft rules"
	if d.FromVersion > 0 {
		what = fmt.Sprintf("rules of version %d", d.FromVersion)
	}
	c.infof("deployed version %d of %s: %d exact and %d prefix rules (%s)", d.Version, d.ProjectID, d.ExactCount, d.PrefixCount, what)
	if g.Forced {
		c.infof("forced past %s; the audit log records the reason", gateProblems(g))
	}
	if g.ShrinkAllowed {
		c.infof("allowed to shrink: %s", g.Shrink)
	}
	if r := strings.TrimSpace(d.Report); r != "" {
		c.infof("%s", r)
	}
	return nil
}

// deployFunc returns how a deploy runs on s: safety.Deploy on a database;
// through the management API, the server runs the gate in its deploy's
// transaction, and a blocked deploy answers its report as an error.
func (c *cmd) deployFunc(s redirects.Store) plan.DeployFunc {
	if rs, ok := s.(*remote.Store); ok {
		return rs.Deploy
	}
	return func(ctx context.Context, projectID string, opts redirects.DeployOptions) (*redirects.Deployment, *safety.GateResult, error) {
		return safety.Deploy(ctx, s, projectID, opts, builder)
	}
}

// Most findings of each severity that a deploy prints; "redirects lint"
// lists them all. A million generated rules can have tens of thousands of
// warnings, which would bury the deploy's own lines.
const (
	maxShownGateErrors   = 100
	maxShownGateWarnings = 20
)

// printGate writes the gate's findings and failing cases on standard
// error, one a line, as lint and test print them, up to
// maxShownGateErrors errors and maxShownGateWarnings warnings, then how
// many more there are.
func (c *cmd) printGate(g *safety.GateResult) {
	var errs, warns int
	for _, f := range g.Findings {
		n, max := &warns, maxShownGateWarnings
		if f.Severity == safety.SeverityError {
			n, max = &errs, maxShownGateErrors
		}
		if *n++; *n <= max {
			c.infof("%-7s  %-10s  %s", f.Severity, f.Kind, f.Message)
		}
	}
	if errs > maxShownGateErrors {
		c.infof("... and %d more errors (\"redirects lint\" lists every finding)", errs-maxShownGateErrors)
	}
	if warns > maxShownGateWarnings {
		c.infof("... and %d more warnings (\"redirects lint\" lists every finding)", warns-maxShownGateWarnings)
	}
	for _, r := range g.FailingCases {
		c.infof("FAIL  line %d: %s: %s", r.Case.Line, r.Case.Path, strings.Join(r.Problems, "; "))
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

// deploymentJSON is the --json shape of a deployment.
type deploymentJSON struct {
	Version     int    `json:"version"`
	CreatedAt   string `json:"createdAt"`
	ExactRules  int    `json:"exactRules"`
	PrefixRules int    `json:"prefixRules"`
	Message     string `json:"message"`
	FromVersion *int   `json:"fromVersion"`
	Report      string `json:"report"`
}

func (c *cmd) deployments(ctx context.Context, args []string) error {
	fs := c.flags("deployments")
	project := fs.String("project", "", "project ID")
	asJSON := fs.Bool("json", false, "print JSON")
	_, s, err := c.start(ctx, fs, args, []string{"project"})
	if err != nil {
		return err
	}
	ds, err := s.FindDeployments(ctx, *project)
	if err != nil {
		return err
	}
	if *asJSON {
		out := make([]deploymentJSON, 0, len(ds))
		for _, d := range ds {
			j := deploymentJSON{Version: d.Version, CreatedAt: d.CreatedAt.Format(timeFormat), ExactRules: d.ExactCount,
				PrefixRules: d.PrefixCount, Message: d.Message, Report: d.Report}
			if d.FromVersion > 0 {
				v := d.FromVersion
				j.FromVersion = &v
			}
			out = append(out, j)
		}
		return c.printJSON(out)
	}
	w := tabwriter.NewWriter(c.m.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "VERSION\tCREATED\tEXACT\tPREFIX\tMESSAGE")
	for _, d := range ds {
		msg := d.Message
		if d.FromVersion > 0 {
			msg = strings.TrimSpace(fmt.Sprintf("(rollback to v%d) %s", d.FromVersion, msg))
		}
		fmt.Fprintf(w, "%d\t%s\t%d\t%d\t%s\n", d.Version, d.CreatedAt.Format(timeFormat), d.ExactCount, d.PrefixCount, msg)
	}
	return w.Flush()
}
