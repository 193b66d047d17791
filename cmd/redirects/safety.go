package main

import (
	"bufio"
	"context"
	"fmt"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"redirects"
	"redirects/api"
	"redirects/safety"
)

// safetyCommands are lint, diff and explain.
var safetyCommands = []command{
	{
		name:     "lint",
		synopsis: []string{"--project P [--version N|draft|live] [--host H]... [--json]", "--project P --fix chains [--write] [--host H]... [--json]"},
		summary:  "check a version's rules for loops, chains, shadowed and redundant rules",
		about: "Exits 1 when it finds what blocks a deploy.\n\n" +
			"--fix chains prints, as a diff, the draft change that points each rule whose destination the\n" +
			"project redirects again at the end of its chain (as lookups answer it; statuses never change),\n" +
			"and the chains it leaves alone (mixed 301/308 and 302/303/307, a 410 at the end, an end that\n" +
			"depends on the request, loops). --write saves it as one change of the draft, which\n" +
			"rule undo-import --import ID undoes (ID is what it prints). See docs/chains.md.",
		example:  "redirects lint --project \"$PROJECT\" --host www.example.com\nredirects lint --project \"$PROJECT\" --fix chains --write",
		readOnly: true,
		run:      (*cmd).lint,
	},
	{
		name:     "diff",
		synopsis: []string{"--project P [--from N|draft|live] [--to N|draft|live] [--max-paths N] [--json]"},
		summary:  "show the paths whose answer changes between two versions",
		example:  `redirects diff --project "$PROJECT" --from live --to draft`,
		readOnly: true,
		run:      (*cmd).diff,
	},
	{
		name:     "explain",
		synopsis: []string{"--project P --path PATH [--host H] [--version N|draft|live] [--json]"},
		summary:  "show which rule answers a path and why",
		example:  `redirects explain --project "$PROJECT" --path /blog/post`,
		readOnly: true,
		run:      (*cmd).explain,
	},
}

// verifyCommands is "verify", which follows test in the usage.
var verifyCommands = []command{
	{
		name:     "verify",
		synopsis: []string{"--base-url URL --project P [--host H] [--version N|draft|live] [--concurrency N] [--timeout D] [--json]"},
		summary:  "ask a running web server for every rule's source and check its answers",
		about:    "Exits 1 when the server answers otherwise.",
		example:  `redirects verify --base-url http://127.0.0.1:8080 --project "$PROJECT"`,
		readOnly: true,
		run:      (*cmd).verify,
	},
}

// The deploy-safety commands: lint, diff, explain, verify and (in test.go)
// test. Each reads the draft or a version, asks package safety, prints the
// answer as text or --json, and exits 1 when it finds what blocks a deploy
// (a lint error, a failing case, a server that answers otherwise).

// hostsFlag collects the repeated --host flag: the project's own hosts,
// whose absolute destinations lead back into the project.
type hostsFlag []string

func (h *hostsFlag) String() string { return strings.Join(*h, ",") }

func (h *hostsFlag) Set(v string) error {
	v = strings.TrimSpace(v)
	if v == "" || strings.ContainsAny(v, "/ ") {
		return fmt.Errorf("%q is not a host name (write www.example.com, optionally with :port)", v)
	}
	*h = append(*h, v)
	return nil
}

// parseVersion checks the value of a --version, --from or --to flag:
// "draft", "live" (only where allowLive) or a positive version number. A
// value of the wrong kind is bad usage; a number that is not positive is a
// value the domain refuses, as for lookup --version.
func parseVersion(flagName, v string, allowLive bool) (string, error) {
	switch {
	case v == "draft", v == "live" && allowLive:
		return v, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		want := "draft or a version number"
		if allowLive {
			want = "draft, live or a version number"
		}
		return "", usagef("--%s %q is not %s", flagName, v, want)
	}
	if n <= 0 {
		return "", redirects.Errorf(redirects.EINVALID, "--%s %d is not a positive version number", flagName, n)
	}
	return v, nil
}

// load reads the rules of spec ("draft", "live" or a version number) of a
// project through the deploy service, on the database or through the
// management API alike.
func (c *cmd) load(ctx context.Context, project, spec string, emptyLive bool) (*safety.Target, error) {
	rs, err := c.ruleSet(ctx, project, spec, emptyLive)
	if err != nil {
		return nil, err
	}
	return safety.TargetOf(rs), nil
}

// ruleSet is load's rule set, with the project's hosts.
func (c *cmd) ruleSet(ctx context.Context, project, spec string, emptyLive bool) (*redirects.RuleSet, error) {
	svc, err := c.services(ctx)
	if err != nil {
		return nil, err
	}
	return svc.Deploys.RuleSet(ctx, project, spec, emptyLive)
}

// blocked is the error of a command that ran and found what blocks: exit 1,
// with its message on stderr after the report on stdout.
func blocked(format string, args ...any) error {
	return redirects.Errorf(redirects.EINVALID, format, args...)
}

// plural returns "1 case", "2 cases": n with the form of the word for it.
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

func (c *cmd) lint(ctx context.Context, args []string) error {
	fs := c.flags("lint")
	project := fs.String("project", "", "project ID")
	version := fs.String("version", "draft", "draft, live or a version number")
	var hosts hostsFlag
	fs.Var(&hosts, "host", "a host of the project's own (repeatable; default: the hosts the project declares): absolute destinations on it are followed")
	asJSON := fs.Bool("json", false, "print JSON")
	fix := fs.String("fix", "", "print the draft change that fixes what lint finds: chains")
	write := fs.Bool("write", false, "with --fix, save the change in the draft")
	if _, err := parse(fs, args); err != nil {
		return err
	}
	if err := required(fs, "project"); err != nil {
		return err
	}
	if *write && *fix == "" {
		return usagef("lint: --write saves what --fix changes; give --fix %s", redirects.FixChains)
	}
	if *fix != "" {
		if *fix != redirects.FixChains {
			return usagef("lint: --fix %q is not a fix lint knows; the one fix is %s", *fix, redirects.FixChains)
		}
		if *version != "draft" {
			return usagef("lint: --fix changes the draft; --version %s is not the draft", *version)
		}
		return c.lintFixChains(ctx, *project, hosts, *write, *asJSON)
	}
	spec, err := parseVersion("version", *version, true)
	if err != nil {
		return err
	}
	rs, err := c.ruleSet(ctx, *project, spec, false)
	if err != nil {
		return err
	}
	t := safety.TargetOf(rs)
	if len(hosts) == 0 {
		// Without --host, the hosts the project declares.
		hosts = rs.Hosts
	}
	// The last destination checks add their warnings when they can be read;
	// a server from before checks (404) or a store without them lints as
	// before, without those warnings.
	dests, err := c.lastChecks(ctx, *project)
	if code := redirects.ErrorCode(err); err != nil && code != redirects.ENOTFOUND && code != redirects.EINTERNAL {
		return err
	}
	findings := t.Lint(safety.LintOptions{Hosts: hosts, Destinations: dests})
	errs, warns := safety.Count(findings)
	if *asJSON {
		if findings == nil {
			findings = []safety.Finding{}
		}
		if err := c.printJSON(api.LintReport{Target: t.Name, Version: t.Version, Errors: errs, Warnings: warns, Findings: findings}); err != nil {
			return err
		}
	} else {
		bw := bufio.NewWriter(c.m.Stdout)
		for _, f := range findings {
			fmt.Fprintf(bw, "%-7s  %-10s  %s\n", f.Severity, f.Kind, f.Message)
		}
		if err := bw.Flush(); err != nil {
			return err
		}
	}
	summary := fmt.Sprintf("lint of %s: %d rules, %s, %s", t.Name, len(t.Rules), plural(errs, "error", "errors"), plural(warns, "warning", "warnings"))
	if errs > 0 {
		return blocked("%s; errors block a deploy", summary)
	}
	c.infof("%s", summary)
	return nil
}

// lintFixChains is lint --fix chains: the draft change as a diff, each
// rewritten rule's line before and after, and the chains left alone;
// with write, the change saved.
func (c *cmd) lintFixChains(ctx context.Context, project string, hosts []string, write, asJSON bool) error {
	svc, err := c.services(ctx)
	if err != nil {
		return err
	}
	rep, err := svc.Rules.FlattenChains(ctx, project, redirects.FlattenOptions{Write: write, Hosts: hosts})
	if err != nil {
		return err
	}
	if asJSON {
		return c.printJSON(api.FlattenReportOf(rep))
	}
	bw := bufio.NewWriter(c.m.Stdout)
	if len(rep.Fixes) > 0 {
		fmt.Fprintf(bw, "--- draft\n+++ draft with chains flattened\n")
	}
	for _, f := range rep.Fixes {
		r := f.Rule
		fmt.Fprintf(bw, "@@ rule %d: %d redirects in a row become 1 @@\n", r.ID, f.Hops)
		fmt.Fprintf(bw, "-%s\n", chainLine(&r, r.Destination))
		fmt.Fprintf(bw, "+%s\n", chainLine(&r, f.Destination))
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	for _, l := range rep.Left {
		c.infof("%s", l.Message)
	}
	switch {
	case len(rep.Fixes) == 0:
		c.infof("lint --fix chains: no chain to flatten, %s left alone", plural(len(rep.Left), "chain", "chains"))
	case rep.Written:
		c.infof("lint --fix chains: %s rewritten, %s left alone; undo with: redirects rule undo-import --project %s --import %d",
			plural(len(rep.Fixes), "rule", "rules"), plural(len(rep.Left), "chain", "chains"), project, rep.UndoID)
	default:
		c.infof("lint --fix chains: %s to rewrite, %s left alone; --write saves the change",
			plural(len(rep.Fixes), "rule", "rules"), plural(len(rep.Left), "chain", "chains"))
	}
	return nil
}

// chainLine is a rule's line in lint --fix's diff with destination dest:
// its match type, host and source, status and destination.
func chainLine(r *redirects.Rule, dest string) string {
	src := r.Source
	if r.Host != "" {
		src = r.Host + " " + src
	}
	return fmt.Sprintf("%s %s %d %s", r.MatchType, src, r.StatusCode, dest)
}

// cliMaxPaths is how many of the paths that answer differently diff,
// plan and apply list unless --max-paths says otherwise: the counts are
// whole, and a terminal shows the first few (the management API's
// default is safety.DefaultMaxPaths).
const cliMaxPaths = 20

func (c *cmd) diff(ctx context.Context, args []string) error {
	fs := c.flags("diff")
	project := fs.String("project", "", "project ID")
	from := fs.String("from", "live", "live, draft or a version number")
	to := fs.String("to", "draft", "live, draft or a version number")
	maxPaths := fs.Int("max-paths", cliMaxPaths, "changed paths to list (all: -1)")
	asJSON := fs.Bool("json", false, "print JSON")
	if _, err := parse(fs, args); err != nil {
		return err
	}
	if err := required(fs, "project"); err != nil {
		return err
	}
	fromSpec, err := parseVersion("from", *from, true)
	if err != nil {
		return err
	}
	toSpec, err := parseVersion("to", *to, true)
	if err != nil {
		return err
	}
	if *maxPaths == 0 || *maxPaths < -1 {
		return redirects.Errorf(redirects.EINVALID, "--max-paths %d is neither a positive number nor -1 (all)", *maxPaths)
	}
	a, err := c.load(ctx, *project, fromSpec, true)
	if err != nil {
		return err
	}
	b, err := c.load(ctx, *project, toSpec, true)
	if err != nil {
		return err
	}
	d := a.Diff(b, safety.DiffOptions{MaxPaths: *maxPaths})
	if *asJSON {
		return c.printJSON(api.DiffReport{From: a.Name, To: b.Name, DiffResult: d})
	}
	bw := bufio.NewWriter(c.m.Stdout)
	if st := d.Settings; st != nil {
		// docs/contract.md#rule-options: a settings change goes live
		// with the deploy; its effect is in the paths below.
		fmt.Fprintf(bw, "~ settings: caseSensitive=%t trailingSlash=%s -> caseSensitive=%t trailingSlash=%s\n",
			st.From.CaseSensitive, st.From.TrailingSlash, st.To.CaseSensitive, st.To.TrailingSlash)
	}
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
	for _, p := range d.Impact {
		fmt.Fprintf(bw, "path %s%s: %s -> %s\n", p.Path, onHost(p.Host), p.From, p.To)
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	more := ""
	if d.PathsChanged > len(d.Impact) {
		more = "; --max-paths -1 lists every one"
	}
	c.infof("diff of %s -> %s: %d added, %d removed, %d changed, %d unchanged; %d of %d sample paths answer differently (%d listed)%s",
		a.Name, b.Name, len(d.Added), len(d.Removed), len(d.Changed), d.Unchanged, d.PathsChanged, d.PathsChecked, len(d.Impact), more)
	return nil
}

func (c *cmd) explain(ctx context.Context, args []string) error {
	fs := c.flags("explain")
	project := fs.String("project", "", "project ID")
	path := fs.String("path", "", "URL path to explain")
	host := fs.String("host", "", "the host the request is for (default none: host-less rules only)")
	version := fs.String("version", "draft", "draft, live or a version number")
	asJSON := fs.Bool("json", false, "print JSON")
	if _, err := parse(fs, args); err != nil {
		return err
	}
	if err := required(fs, "project", "path"); err != nil {
		return err
	}
	spec, err := parseVersion("version", *version, true)
	if err != nil {
		return err
	}
	if (*path)[0] != '/' || len(*path) > redirects.MaxSourceLen {
		return redirects.Errorf(redirects.EINVALID, "--path %q must start with / and be at most %d bytes, as the API requires", *path, redirects.MaxSourceLen)
	}
	if err := checkHostFlag(*host); err != nil {
		return err
	}
	t, err := c.load(ctx, *project, spec, false)
	if err != nil {
		return err
	}
	e := t.ExplainFor(*host, *path)
	if *asJSON {
		return c.printJSON(api.ExplainReport{Target: t.Name, Explanation: e})
	}
	if e.Answer == nil {
		c.println(fmt.Sprintf("%s: no rule of %s matches %s: no redirect", *path, t.Name, e.Matched))
		return nil
	}
	bw := bufio.NewWriter(c.m.Stdout)
	// The answer as the lookup gives it: the computed destination (the
	// rest of the path or the query kept, docs/contract.md#rule-options).
	on := ""
	if *host != "" {
		on = " on " + *host
	}
	fmt.Fprintf(bw, "%s%s: %d %s, by %s of %s\n", *path, on, e.StatusCode, e.Destination, e.Answer, t.Name)
	if !t.Settings.IsDefault() {
		fmt.Fprintf(bw, "compared with %s\n", t.Settings)
	}
	for _, cp := range e.Captures {
		fmt.Fprintf(bw, "captured %s = %q\n", cp.Name, cp.Value)
	}
	// A HOST column, as rule list has, when a candidate has a host: two
	// rules of one source on two hosts are told apart by it.
	hosts := false
	for _, cand := range e.Candidates {
		hosts = hosts || cand.Rule.Host != ""
	}
	w := tabwriter.NewWriter(bw, 0, 4, 2, ' ', 0)
	if hosts {
		fmt.Fprintln(w, "\tID\tMATCH\tPRIORITY\tHOST\tSOURCE\tDESTINATION\tWHY")
	} else {
		fmt.Fprintln(w, "\tID\tMATCH\tPRIORITY\tSOURCE\tDESTINATION\tWHY")
	}
	for _, cand := range e.Candidates {
		mark := ""
		if cand.Answers {
			mark = "*"
		}
		r := cand.Rule
		host := ""
		switch {
		case hosts && r.Host == "":
			host = "-\t" // a rule of every host, as rule list shows it
		case hosts:
			host = r.Host + "\t"
		}
		fmt.Fprintf(w, "%s\t%d\t%s\t%d\t%s%s\t%d %s\t%s\n", mark, r.ID, r.MatchType, r.Priority, host, r.Source, r.StatusCode, r.Destination, cand.Reason)
	}
	if err := w.Flush(); err != nil {
		return err
	}
	return bw.Flush()
}

func (c *cmd) verify(ctx context.Context, args []string) error {
	fs := c.flags("verify")
	project := fs.String("project", "", "project ID")
	baseURL := fs.String("base-url", "", "the web server to check, http://host:port")
	version := fs.String("version", "live", "live, draft or a version number")
	concurrency := fs.Int("concurrency", 8, "requests in flight")
	timeout := fs.Duration("timeout", 10*time.Second, "timeout of each request")
	host := fs.String("host", "", "the Host header to send, and the host the API's answers are for (default the base URL's host, answered as a lookup without a host)")
	asJSON := fs.Bool("json", false, "print JSON")
	if _, err := parse(fs, args); err != nil {
		return err
	}
	if err := required(fs, "project", "base-url"); err != nil {
		return err
	}
	spec, err := parseVersion("version", *version, true)
	if err != nil {
		return err
	}
	if *concurrency <= 0 || *concurrency > 256 {
		return redirects.Errorf(redirects.EINVALID, "--concurrency %d is outside 1..256", *concurrency)
	}
	if *timeout <= 0 {
		return redirects.Errorf(redirects.EINVALID, "--timeout %s is not positive", *timeout)
	}
	if err := checkHostFlag(*host); err != nil {
		return err
	}
	t, err := c.load(ctx, *project, spec, false)
	if err != nil {
		return err
	}
	mismatches, err := t.Verify(ctx, *baseURL, safety.VerifyOptions{Concurrency: *concurrency, Timeout: *timeout, Host: *host})
	if err != nil {
		return err
	}
	paths := len(safety.VerifyPathsFor(t.Rules, t.Settings))
	if *asJSON {
		if mismatches == nil {
			mismatches = []safety.Mismatch{}
		}
		if err := c.printJSON(api.VerifyReport{Target: t.Name, BaseURL: *baseURL, Paths: paths, Mismatches: mismatches}); err != nil {
			return err
		}
	} else {
		bw := bufio.NewWriter(c.m.Stdout)
		for _, m := range mismatches {
			fmt.Fprintln(bw, m.String())
		}
		if err := bw.Flush(); err != nil {
			return err
		}
	}
	summary := fmt.Sprintf("verify of %s against %s: %d paths, %s", *baseURL, t.Name, paths, plural(len(mismatches), "mismatch", "mismatches"))
	if len(mismatches) > 0 {
		return blocked("%s", summary)
	}
	c.infof("%s", summary)
	return nil
}

// onHost reads " on HOST" for a rule with a host, "" for one without.
func onHost(h string) string {
	if h == "" {
		return ""
	}
	return " on " + h
}

// checkHostFlag checks --host as the lookup API checks its host parameter
// (docs/contract.md#hosts): empty, or a host name. Errors: EINVALID.
func checkHostFlag(h string) error {
	if h == "" {
		return nil
	}
	if !safety.ValidLookupHost(h) {
		return redirects.Errorf(redirects.EINVALID, "--host %q is not a host name", h)
	}
	return nil
}
