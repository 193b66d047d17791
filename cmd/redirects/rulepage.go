package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"strconv"
	"strings"
	"text/tabwriter"

	"redirects"
	"redirects/api"
)

// filterFlagSet holds the flags that make a redirects.RuleFilter.
type filterFlagSet struct {
	fs     *flag.FlagSet
	search *string
	match  *string
	status *int
	host   *string
}

func filterFlags(fs *flag.FlagSet) *filterFlagSet {
	return &filterFlagSet{
		fs:     fs,
		search: fs.String("search", "", "only rules whose source or destination holds this text, or whose source starts with it if it ends in *"),
		match:  fs.String("match", "", "only rules of this match type: exact, starts_with, pattern or regex"),
		status: fs.Int("status", 0, "only rules with this status: 301, 302, 303, 307, 308 or 410"),
		host:   fs.String("host", "", "only rules scoped to this `HOST` (*.example.com for a wildcard); --host= for the rules of every host"),
	}
}

// filter returns the filter the flags describe. Errors: EINVALID.
func (f *filterFlagSet) filter() (redirects.RuleFilter, error) {
	rf := redirects.RuleFilter{Query: *f.search, StatusCode: *f.status}
	if *f.match != "" {
		mt, err := redirects.ParseMatchType(*f.match)
		if err != nil {
			return rf, err
		}
		rf.MatchType = &mt
	}
	if isSet(f.fs, "host") {
		rf.Host = f.host
	}
	return rf, rf.Validate()
}

// pageFlagSet holds the flags of a rule page.
type pageFlagSet struct {
	*filterFlagSet
	sort  *string
	limit *int
	after *string
}

// pageFlagNames are the flags that turn "rule list" from its full listing
// into pages.
var pageFlagNames = []string{"search", "match", "status", "host", "sort", "limit", "after"}

func pageFlags(fs *flag.FlagSet) *pageFlagSet {
	return &pageFlagSet{
		filterFlagSet: filterFlags(fs),
		sort:          fs.String("sort", "", "order: source (the default), id, created or priority; a leading - reverses it"),
		limit:         fs.Int("limit", 0, fmt.Sprintf("print one page of at most this many rules (1..%d), and the next page's cursor", redirects.MaxRuleLimit)),
		after:         fs.String("after", "", "the cursor of the page to print, from the previous page"),
	}
}

// ruleListPage prints rules through FindRulePage: one page when paged
// (--limit or --after), else every page, as one listing.
func (c *cmd) ruleListPage(ctx context.Context, s redirects.RuleService, projectID string, pf *pageFlagSet, asJSON, paged bool) error {
	f, err := pf.filter()
	if err != nil {
		return err
	}
	q := redirects.RulePageQuery{Filter: f, Sort: redirects.RuleSort(*pf.sort), Limit: *pf.limit, After: *pf.after}
	if !paged {
		q.Limit = redirects.MaxRuleLimit
	}
	var (
		rules []redirects.Rule
		page  *redirects.RulePage
	)
	for {
		if page, err = s.FindRulePage(ctx, projectID, q); err != nil {
			return err
		}
		rules = append(rules, page.Rules...)
		if paged || page.Next == "" {
			break
		}
		q.After = page.Next
	}
	if asJSON {
		out := api.RuleList{Rules: make([]api.Rule, 0, len(rules)), Total: page.Total}
		for i := range rules {
			out.Rules = append(out.Rules, api.RuleOf(&rules[i]))
		}
		if page.Next != "" {
			out.Next = &page.Next
		}
		return c.printJSON(out)
	}
	if err := c.printRules(rules, true); err != nil {
		return err
	}
	if paged {
		if page.Next != "" {
			c.infof("%d of %d rules; next page: --after %s", len(rules), page.Total, page.Next)
		} else {
			c.infof("%d of %d rules; last page", len(rules), page.Total)
		}
	}
	return nil
}

// hasFlag reports whether args hold the boolean flag name, in any of the
// forms the flag package reads.
func hasFlag(args []string, name string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		a = strings.TrimLeft(a, "-")
		if a == name || strings.HasPrefix(a, name+"=") {
			return true
		}
	}
	return false
}

// ruleDeleteMatching deletes every rule the filter flags select, after
// --yes, and prints how many it deleted.
func (c *cmd) ruleDeleteMatching(ctx context.Context, fs *flag.FlagSet, projectID string, ff *filterFlagSet, yes bool) error {
	if err := required(fs, "project"); err != nil {
		return err
	}
	if isSet(fs, "revision") {
		return usagef("rule delete: --revision names one rule; it does not go with --all-matching")
	}
	f, err := ff.filter()
	if err != nil {
		return err
	}
	if !yes {
		what := "every rule of the project"
		if isSet(fs, "search", "match", "status", "host") {
			what = "every rule that --search, --match, --status and --host select"
		}
		return usagef("rule delete --all-matching deletes %s; add --yes to confirm", what)
	}
	svc, err := c.services(ctx)
	if err != nil {
		return err
	}
	n, err := svc.Rules.DeleteRules(ctx, projectID, f)
	if err != nil {
		return err
	}
	c.println(strconv.Itoa(n))
	return nil
}

// printRules prints rules as a table, with each rule's revision when
// withRevision is set. The HOST column is there only when a rule has a
// host, so that a project without hosts is listed as it always was.
func (c *cmd) printRules(rules []redirects.Rule, withRevision bool) error {
	hosts := false
	for i := range rules {
		hosts = hosts || rules[i].Host != ""
	}
	bw := bufio.NewWriter(c.m.Stdout)
	w := tabwriter.NewWriter(bw, 0, 4, 2, ' ', 0)
	// row writes one line of cells: the first four, the revision and the
	// host where the table has them, then the last three.
	row := func(cells [9]string) {
		out := append(make([]string, 0, len(cells)), cells[:4]...)
		if withRevision {
			out = append(out, cells[4])
		}
		if hosts {
			out = append(out, cells[5])
		}
		fmt.Fprintln(w, strings.Join(append(out, cells[6:]...), "\t"))
	}
	row([9]string{"ID", "MATCH", "PRIORITY", "STATUS", "REVISION", "HOST", "SOURCE", "DESTINATION", "OPTIONS"})
	for i := range rules {
		r := &rules[i]
		row([9]string{strconv.FormatInt(r.ID, 10), r.MatchType.String(), strconv.Itoa(r.Priority), strconv.Itoa(r.StatusCode),
			strconv.FormatInt(r.Revision, 10), hostCell(r), r.Source, destinationCell(r), optionsCell(r)})
	}
	if err := w.Flush(); err != nil {
		return err
	}
	return bw.Flush()
}

// hostCell is a rule's host in a table: "-" for none, which answers every
// host.
func hostCell(r *redirects.Rule) string {
	if r.Host == "" {
		return "-"
	}
	return r.Host
}
