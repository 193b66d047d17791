package main

import (
	"bufio"
	"context"
	"fmt"
	"slices"
	"strconv"
	"text/tabwriter"
	"time"
	"unicode"

	"redirects"
	"redirects/api"
)

// insightCommands are hits and misses: what the edge nodes counted.
var insightCommands = []command{
	{
		name:     "hits",
		synopsis: []string{"--project P [--stale-since T] [--json]"},
		remark:   "hits and last hit of each draft rule",
		summary:  "show each draft rule's hits and last hit, as the edge nodes counted them",
		about: "Hits are counted for live keys' lookups by every edge node and written every second; a rule is\n" +
			"named by its match type, host and source, so its hits carry over deploys. A HOST column is printed\n" +
			"when a rule has a host. --stale-since takes a time (RFC 3339), a date (2006-01-02) or a duration\n" +
			"ago (90d), and lists only the rules with no hit since.",
		example:  `redirects hits --project "$PROJECT" --stale-since 90d`,
		readOnly: true,
		run:      (*cmd).hits,
	},
	{
		name:     "misses",
		synopsis: []string{"--project P [--limit N] [--json]"},
		remark:   "the paths asked for most that no rule answered",
		summary:  "show the paths live lookups asked for most that no rule answered (204)",
		about: "Each edge node keeps its most frequent missed paths per project and writes them every second;\n" +
			"the store keeps the 10,000 most frequent per project. A path counts per host the lookups sent;\n" +
			"a HOST column is printed when a miss has one (\"-\": lookups without a host).",
		example:  `redirects misses --project "$PROJECT" --limit 20`,
		readOnly: true,
		run:      (*cmd).misses,
	},
}

// hits lists the draft's rules with the hits the edge counted for each
// (docs/contract.md "Hits and misses"); with --stale-since, only the rules
// with no hit since then.
func (c *cmd) hits(ctx context.Context, args []string) error {
	fs := c.flags("hits")
	project := fs.String("project", "", "project ID")
	stale := &timeFlag{now: c.m.Clock.Now}
	fs.Var(stale, "stale-since", "only the rules with no hit since `T`: a time, a date, or a duration ago (90d)")
	asJSON := fs.Bool("json", false, "print JSON")
	if _, err := parse(fs, args); err != nil {
		return err
	}
	if err := required(fs, "project"); err != nil {
		return err
	}
	j, err := runOp(ctx, c, api.HitsOp, *project, api.HitsQuery{StaleSince: stale.t})
	if err != nil {
		return err
	}
	rules, hits, err := j.RulesAndHits(*project)
	if err != nil {
		return redirects.Errorf(redirects.EINTERNAL, "the hits report: %s", redirects.ErrorMessage(err))
	}
	byRule := redirects.HitIndex(hits)
	out := make([]api.HitsRow, 0, len(rules))
	for _, r := range rules {
		h := api.HitsRow{Source: r.Source, MatchType: r.MatchType.String(), Destination: r.Destination, StatusCode: r.StatusCode, Host: r.Host}
		if rh, ok := byRule[r.HitKey()]; ok {
			h.Hits = rh.Hits
			last := rh.LastHit
			h.LastHit = &last
		}
		out = append(out, h)
	}
	if *asJSON {
		return c.printJSON(out)
	}
	bw := bufio.NewWriter(c.m.Stdout)
	w := tabwriter.NewWriter(bw, 0, 4, 2, ' ', 0)
	// A HOST column only when a rule has a host, so a project without
	// hosts lists as before.
	hosts := slices.ContainsFunc(out, func(h api.HitsRow) bool { return h.Host != "" })
	if hosts {
		fmt.Fprintln(w, "HITS\tLAST HIT\tMATCH\tHOST\tSOURCE\tDESTINATION")
	} else {
		fmt.Fprintln(w, "HITS\tLAST HIT\tMATCH\tSOURCE\tDESTINATION")
	}
	for _, h := range out {
		last := "never"
		if h.LastHit != nil {
			last = h.LastHit.UTC().Format(time.RFC3339)
		}
		if hosts {
			fmt.Fprintf(w, "%d\t%s\t%s\t%s\t%s\t%s\n", h.Hits, last, h.MatchType, orDash(&h.Host), h.Source, h.Destination)
			continue
		}
		fmt.Fprintf(w, "%d\t%s\t%s\t%s\t%s\n", h.Hits, last, h.MatchType, h.Source, h.Destination)
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	if !stale.t.IsZero() {
		c.infof("%s with no hit since %s", plural(len(out), "rule", "rules"), stale.t.UTC().Format(time.RFC3339))
	}
	return nil
}

// misses lists the paths that live lookups asked for and no rule
// answered, most frequent first.
func (c *cmd) misses(ctx context.Context, args []string) error {
	fs := c.flags("misses")
	project := fs.String("project", "", "project ID")
	limit := fs.Int("limit", 50, "at most `N` paths (1.."+fmt.Sprint(redirects.MaxStoredMisses)+")")
	asJSON := fs.Bool("json", false, "print JSON")
	if _, err := parse(fs, args); err != nil {
		return err
	}
	if err := required(fs, "project"); err != nil {
		return err
	}
	if *limit < 1 || *limit > redirects.MaxStoredMisses {
		return usagef("--limit %d is out of range: give 1 to %d", *limit, redirects.MaxStoredMisses)
	}
	svc, err := c.services(ctx)
	if err != nil {
		return err
	}
	misses, err := svc.Insight.FindMisses(ctx, *project, *limit)
	if err != nil {
		return err
	}
	out := make([]api.MissesRow, 0, len(misses))
	for _, m := range misses {
		out = append(out, api.MissesRow{Path: m.Path, Count: m.Count, FirstSeen: m.FirstSeen, LastSeen: m.LastSeen, Host: m.Host})
	}
	if *asJSON {
		return c.printJSON(out)
	}
	bw := bufio.NewWriter(c.m.Stdout)
	w := tabwriter.NewWriter(bw, 0, 4, 2, ' ', 0)
	// A HOST column only when a miss has a host, so a project whose
	// lookups send none lists as before.
	hosts := slices.ContainsFunc(out, func(m api.MissesRow) bool { return m.Host != "" })
	if hosts {
		fmt.Fprintln(w, "COUNT\tFIRST SEEN\tLAST SEEN\tHOST\tPATH")
	} else {
		fmt.Fprintln(w, "COUNT\tFIRST SEEN\tLAST SEEN\tPATH")
	}
	for _, m := range out {
		if hosts {
			host := printable(m.Host)
			fmt.Fprintf(w, "%d\t%s\t%s\t%s\t%s\n", m.Count, m.FirstSeen.Format(time.RFC3339), m.LastSeen.Format(time.RFC3339),
				orDash(&host), printable(m.Path))
			continue
		}
		fmt.Fprintf(w, "%d\t%s\t%s\t%s\n", m.Count, m.FirstSeen.Format(time.RFC3339), m.LastSeen.Format(time.RFC3339), printable(m.Path))
	}
	if err := w.Flush(); err != nil {
		return err
	}
	return bw.Flush()
}

// printable returns a path as it may go to a terminal: as it is when every
// character prints, else quoted with Go's escapes. The edge counts only
// paths a rule could hold, which print; this guards the terminal anyway,
// since the paths come from anyone who asks the edge.
func printable(s string) string {
	for _, r := range s {
		if !unicode.IsPrint(r) {
			return strconv.Quote(s)
		}
	}
	return s
}
