package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"

	"redirects"
	"redirects/api"
	"redirects/export"
	"redirects/importer"
)

// ruleCommands are the "rule" commands: the draft rules of a project.
var ruleCommands = []command{
	{name: "rule", summary: "the draft redirect rules of a project"},
	{
		name: "rule add",
		synopsis: []string{
			"--project P --source S --destination D [--status 301|302|303|307|308] [--match exact|starts_with|pattern|regex] [--host H | --except-hosts H,...] [--priority N] [--preserve-path] [--preserve-query] [--query-after-fragment] [--merge-query]",
			"--project P --source S --status 410 [--match exact|starts_with|pattern|regex] [--host H] [--priority N]",
		},
		summary: "add one draft rule and print its ID",
		about: "An exact rule answers one path; a starts_with rule answers every path under its source, and of\n" +
			"several starts_with rules the one with the lowest priority wins. Nothing is live until\n" +
			"\"redirects deploy\".\n\n" + rulePatternHelp + "\n\n" + ruleOptionsHelp,
		example: "redirects rule add --project \"$PROJECT\" --source /old --destination /new\n" +
			"redirects rule add --project \"$PROJECT\" --source /blog --destination https://blog.example.com/ --match starts_with --status 302\n" +
			"redirects rule add --project \"$PROJECT\" --source /docs/ --destination https://docs.example.com/ --match starts_with --status 308 --preserve-path --preserve-query\n" +
			"redirects rule add --project \"$PROJECT\" --source /retired --status 410\n" +
			"redirects rule add --project \"$PROJECT\" --match pattern --source '/:lang/docs/*' --destination '/:lang/guide/:splat'\n" +
			"redirects rule add --project \"$PROJECT\" --match regex --source '^/p/(\\d+)$' --destination '/posts/$1' --host old.example.com",
		run: (*cmd).ruleAdd,
	},
	{
		name: "rule import",
		synopsis: []string{
			"--project P [--mode append|upsert|replace] [--replace] [--dry-run] [--json] [--errors-file FILE] FILE|-",
			"--project P --from auto|FORMAT [--placeholder NAME=V1,V2]... [--mode M] [--dry-run] [--json] [--errors-file FILE] FILE|-",
		},
		summary: "import draft rules from a CSV file, or another platform's redirect file, all or nothing",
		about:   csvFormat + "\n\n" + fromHelp,
		example: "redirects rule import --project \"$PROJECT\" rules.csv\n" +
			"redirects rule import --project \"$PROJECT\" --replace --errors-file bad-lines.txt - < rules.csv\n" +
			"redirects rule import --project \"$PROJECT\" --from auto --dry-run _redirects\n" +
			"redirects rule import --project \"$PROJECT\" --from netlify --placeholder lang=en,fr,de _redirects",
		run: (*cmd).ruleImport,
	},
	{
		name:     "rule export",
		synopsis: []string{"--project P [--to csv|netlify|vercel|cloudflare] [--out FILE] [--json]"},
		summary:  "write the draft rules as the draft CSV, or as another platform's redirect file",
		about: "--to csv (the default) writes the draft CSV, which \"rule import\" reads back as it is. The other\n" +
			"formats are for teams that leave or mirror: what a format cannot express is listed on stderr\n" +
			"(with --json, on stdout as JSON), rule by rule. These are not edge exports: \"redirects export\"\n" +
			"serves the seven formats of a deployed version.",
		example: "redirects rule export --project \"$PROJECT\" > draft.csv\n" +
			"redirects rule export --project \"$PROJECT\" --to netlify --out _redirects",
		readOnly: true,
		run:      (*cmd).ruleExport,
	},
	{
		name: "rule list",
		synopsis: []string{
			"--project P [--json]",
			"--project P [--search Q] [--match M] [--status N] [--host H] [--sort S] [--limit N] [--after CURSOR] [--json]",
		},
		summary: "list the draft rules of a project, all of them or one page",
		about: "Without --search, --match, --status, --host, --sort, --limit or --after every rule is printed, by\n" +
			"source. With --limit one page is printed, and the next page's cursor on stderr, for --after.\n" +
			"A HOST column is printed when a rule has a host (\"-\": a rule of every host); --host H lists\n" +
			"the rules scoped to H, and --host= those of every host.",
		example: "redirects rule list --project \"$PROJECT\"\n" +
			"redirects rule list --project \"$PROJECT\" --search '/blog*' --limit 50 --json\n" +
			"redirects rule list --project \"$PROJECT\" --match pattern --host old.example.com",
		readOnly: true,
		run:      (*cmd).ruleList,
	},
	{
		name:     "rule update",
		synopsis: []string{"--project P RULE_ID [--source S] [--destination D] [--status N] [--match M] [--host H] [--except-hosts H,...] [--priority N] [--preserve-path[=false]] [--preserve-query[=false]] [--query-after-fragment[=false]] [--merge-query[=false]] [--revision N]"},
		summary:  "change a draft rule",
		about: "Only the flags given change: --preserve-path=false turns that option off, --host= makes the\n" +
			"rule answer every host again, and leaving a flag out keeps what the rule has. --status 410 also\n" +
			"empties the destination and turns both options off, unless they are given. With --revision the\n" +
			"update is refused if the rule has changed since.\n\n" +
			rulePatternHelp + "\n\n" + ruleOptionsHelp,
		example: "redirects rule update --project \"$PROJECT\" 42 --destination /newer\n" +
			"redirects rule update --project \"$PROJECT\" 42 --status 307 --preserve-query --preserve-path=false\n" +
			"redirects rule update --project \"$PROJECT\" 42 --match pattern --source '/blog/:year/:slug' --host www.example.com",
		run: (*cmd).ruleUpdate,
	},
	{
		name: "rule delete",
		synopsis: []string{
			"--project P RULE_ID [--revision N]",
			"--project P --all-matching [--search Q] [--match M] [--status N] [--host H] --yes",
		},
		summary: "delete a draft rule, or every rule a filter selects",
		about: "With --all-matching every rule that --search, --match, --status and --host select is deleted;\n" +
			"--yes confirms it.",
		example: "redirects rule delete --project \"$PROJECT\" 42\n" +
			"redirects rule delete --project \"$PROJECT\" --all-matching --search '/old*' --yes",
		run: (*cmd).ruleDelete,
	},
}

// rulePatternHelp is the part of rule add's and rule update's help on the
// pattern and regex match types and the host (docs/contract.md#pattern-rules).
const rulePatternHelp = `--match pattern takes placeholders: :name is one segment, :name* (or * alone, :splat) any
number of segments, :name+ one or more, :name? an optional one, :name(RE2) a constrained one;
the destination inserts them by name: /:lang/docs/* -> /:lang/guide/:splat. --match regex takes
an RE2 expression matched against the whole path; the destination inserts $1..$9 and ${name}:
^/p/(\d+)$ -> /posts/$1. Any match type's source may end with query conditions:
/index.php?p=:id -> /posts/:id. --host H scopes the rule to lookups for host H (*.example.com:
any subdomain); without it the rule answers every host. --except-hosts a.example,*.b.example
(a rule without --host only; at most 100) makes it answer every host but those, and lookups
without a host too; --except-hosts= clears them. A bad pattern or regex is refused
with the byte where it goes wrong. docs/contract.md#pattern-rules has the whole syntax.`

// ruleOptionsHelp is the part of rule add's and rule update's help on the
// statuses and options (docs/contract.md#rule-options).
const ruleOptionsHelp = `--status is 301 (rule add's default), 302, 303, 307, 308, or 410 (Gone), which answers without a
destination: give no --destination and no option with it. A destination may end with a
#fragment. --preserve-path (starts_with rules only) appends the rest of the requested path after
the source to the destination's path: /docs/ -> https://docs.example.com/ answers /docs/a/b with
https://docs.example.com/a/b. --preserve-query passes the request's query string on (after the
destination's own, joined by &). --query-after-fragment (with --preserve-query, for a destination
with a #fragment) puts the request's query after the fragment instead, as Apache and nginx do:
/design.html -> /documentation#design answers /design.html?k=v with /documentation#design?k=v.
--merge-query (with --preserve-query, for a destination with a query) merges the request's query
parameters into the destination's as Vercel does, a name the destination holds keeping its value:
/x -> /items?itemName=a answers /x?itemName=b&k=v with /items?itemName=a&k=v.`

// fromHelp is the part of rule import's help on --from.
const fromHelp = `With --from the file is read in its own format: auto (which names the format it detected and
why); csv (the draft CSV above, and the csv export); netlify (_redirects), netlify-toml
(netlify.toml's [[redirects]]) and cloudflare-pages (Cloudflare Pages' _redirects); cloudflare
(a Bulk Redirects CSV); vercel (vercel.json) and vercel-bulk (bulk redirects in CSV, JSON or
JSONL); wordpress (Redirection's CSV or JSON export); shopify (URL redirects CSV); apache
(.htaccess or httpd configuration); nginx (server blocks, map files, and the nginx exports);
haproxy and haproxy-map (the haproxy exports). Every line of the file is reported as one of
three classes, with its line number:

  as is    the rule answers every request exactly as the source platform would
  changed  imported, but some request is answered otherwise: the report says which and how
  skipped  valid in its format but not importable (a regex with no equivalent, a rewrite, a
           condition, a placeholder without values), with the reason

A line that breaks its format's syntax refuses the whole file, listing every such line.
Placeholders (:lang) are expanded only over the values --placeholder names. When the source
platform matches otherwise than the project's settings (case, trailing slash), the report
says which "redirects project update" would match. Then the rules are imported as the mode
says, the counts printed (added, updated, unchanged, removed), and the command that undoes
the import ("redirects rule undo-import"). docs/migrate.md has every format's details.`

const csvFormat = `The file is CSV (RFC 4180): a header line, then one rule per line.

  source,destination,statusCode,matchType,priority,preservePath,preserveQuery
  /old,/new,301,exact,,,
  /blog,https://blog.example.com/,302,starts_with,10,,
  /docs/,https://docs.example.com/#top,308,starts_with,,true,true
  /retired,,410,exact,,,

  source         the path the rule applies to, starting with /
  destination    a path starting with / or an http:// or https:// URL, which
                 may end with a #fragment; empty for a 410
  statusCode     301, 302, 303, 307, 308, or 410 (Gone: no destination)
  matchType      exact, starts_with, pattern (placeholders: /:lang/docs/*) or
                 regex (an RE2 expression: ^/p/(\d+)$)
  priority       optional column: the precedence of a starts_with rule, lower
                 first (0..1000000); an empty cell, or a file without the
                 column, gives 100
  preservePath   optional column, true or false: a starts_with rule appends
                 the rest of the requested path to the destination's path
  preserveQuery  optional column, true or false: the request's query string
                 is passed on to the destination
                 (an empty cell, or a file without the column, is false)
  host           optional column: the host the rule answers only
                 (*.example.com: any subdomain); an empty cell, or a file
                 without the column, answers every host
  queryAfterFragment
                 optional column, true or false: with preserveQuery, the
                 request's query goes after the destination's #fragment
                 (an empty cell, or a file without the column, is false)
  mergeQuery     optional column, true or false: with preserveQuery, the
                 request's query parameters are merged into the
                 destination's query, its names keeping their values
                 (an empty cell, or a file without the column, is false)

The header names the columns, in any order; the optional ones (priority, id,
preservePath, preserveQuery, host, queryAfterFragment, mergeQuery) may be left out, so a file of the four columns
source,destination,statusCode,matchType is read as it always was. Case, and
a UTF-8 byte order mark, do not matter. Blank lines are skipped. A field
that holds a comma, a double quote or a line break is put in double quotes,
with a double quote inside it doubled: "/a,b" or "/say ""hi""". One file may
not hold two rules with the same matchType, host and source, nor two whose
sources the project's settings compare as one (/a and /A when caseSensitive
is false).

The import is all or nothing: if any line is bad, nothing is imported and
every bad line is reported with its line number: the first 100 on the
terminal, and every one in FILE with --errors-file FILE. Without --replace the rules
are added to the draft: a rule the draft already has as the file says is
left unchanged (so a file imported again imports nothing), and a source that
has a rule of the same match type with another destination, status code,
priority or options is an error that --mode upsert resolves; with --replace
they take the place of every draft rule of the project. Nothing is live until "redirects deploy". The command
prints the number of rules imported.`

func (c *cmd) ruleAdd(ctx context.Context, args []string) error {
	fs := c.flags("rule add")
	project := fs.String("project", "", "project ID")
	source := fs.String("source", "", "path the rule applies to, starting with /")
	dest := fs.String("destination", "", "path or http(s) URL to redirect to, which may end with a #fragment (none for 410)")
	status := fs.Int("status", redirects.DefaultStatus, "301, 302, 303, 307, 308, or 410 (Gone: no destination)")
	match := fs.String("match", "exact", "exact, starts_with, pattern or regex")
	host := fs.String("host", "", "answer only lookups for this `HOST` (*.example.com: any subdomain); none: every host")
	except := fs.String("except-hosts", "", "answer every host but these (comma-separated `HOSTS`, *.example.com: any subdomain); a rule without --host only")
	priority := fs.Int("priority", redirects.DefaultPriority, "precedence of a starts_with rule, lower first (0..1000000)")
	preservePath := fs.Bool("preserve-path", false, "append the rest of the requested path to the destination's path (starts_with rules only)")
	preserveQuery := fs.Bool("preserve-query", false, "pass the request's query string on to the destination")
	queryAfterFragment := fs.Bool("query-after-fragment", false, "put the passed-on query after the destination's #fragment, as Apache and nginx do (with --preserve-query)")
	mergeQuery := fs.Bool("merge-query", false, "merge the request's query parameters into the destination's query, its names keeping their values, as Vercel does (with --preserve-query)")
	if _, err := parse(fs, args); err != nil {
		return err
	}
	if err := required(fs, "project", "source"); err != nil {
		return err
	}
	if *status != redirects.StatusGone {
		if err := required(fs, "destination"); err != nil {
			return err
		}
	}
	mt, err := redirects.ParseMatchType(*match)
	if err != nil {
		return err
	}
	r := &redirects.Rule{ProjectID: *project, Source: *source, Destination: *dest, StatusCode: *status, MatchType: mt, Priority: *priority,
		PreservePath: *preservePath, PreserveQuery: *preserveQuery, QueryAfterFragment: *queryAfterFragment, MergeQuery: *mergeQuery, Host: *host,
		ExceptHosts: hostList(*except)}
	if err := r.Validate(); err != nil {
		return err
	}
	svc, err := c.services(ctx)
	if err != nil {
		return err
	}
	if err := svc.Rules.AddRule(ctx, r); err != nil {
		return err
	}
	c.println(strconv.FormatInt(r.ID, 10))
	return nil
}

func (c *cmd) ruleImport(ctx context.Context, args []string) error {
	fs := c.flags("rule import")
	project := fs.String("project", "", "project ID")
	replace := fs.Bool("replace", false, "replace every draft rule of the project (--mode replace)")
	modeFlag := fs.String("mode", "append", "append (a rule the draft has as it is is left unchanged; one it has otherwise fails the import), upsert (by match type and source) or replace")
	dryRun := fs.Bool("dry-run", false, "print what the import would do and write nothing")
	asJSON := fs.Bool("json", false, "print the import report as JSON")
	errorsFile := fs.String("errors-file", "", "write every bad line's error to `FILE` (left empty when there are none)")
	from := fs.String("from", "", "read the file as `FORMAT`: auto (detect it), or one of "+strings.Join(importer.FormatNames()[1:], ", ")+"; without it, the draft CSV as always")
	placeholders := placeholderFlag{}
	fs.Var(placeholders, "placeholder", "expand the placeholder NAME over the values given (`NAME=V1,V2`); repeatable; with --from")
	pos, err := parse(fs, args, "FILE (or - for standard input)")
	if err != nil {
		return err
	}
	if err := required(fs, "project"); err != nil {
		return err
	}
	mode, err := redirects.ParseImportMode(*modeFlag)
	if err != nil {
		return usagef("%s", redirects.ErrorMessage(err))
	}
	if *replace {
		if isSet(fs, "mode") && mode != redirects.ImportReplace {
			return usagef("rule import: --replace is --mode replace; it cannot go with --mode %s", mode)
		}
		mode = redirects.ImportReplace
	}
	if len(placeholders) > 0 && *from == "" {
		return usagef("rule import: --placeholder goes with --from")
	}
	var in io.Reader
	name := pos[0]
	if name == "-" {
		in, name = c.m.Stdin, "standard input"
	} else {
		f, err := os.Open(name)
		if err != nil {
			return redirects.Errorf(redirects.EINVALID, "cannot read %s: %v", name, errors.Unwrap(err))
		}
		defer f.Close()
		in = f
	}
	if *from != "" {
		return c.ruleImportFrom(ctx, in, name, *from, placeholders, *project, mode, *dryRun, *asJSON, *errorsFile)
	}
	svc, err := c.services(ctx)
	if err != nil {
		return err
	}
	p, err := svc.Imports.ImportTarget(ctx, *project)
	if err != nil {
		return err
	}
	opts := export.ReadOptions{Hosts: p.Hosts, Settings: p.Settings}
	if *errorsFile == "" {
		// The terminal shows the first bad lines and counts the others,
		// which need not be held.
		opts.MaxErrors = maxShownErrors
	}
	f, err := export.ReadFile(ctx, in, opts)
	if err != nil {
		if ctx.Err() != nil {
			return err
		}
		return importFailed(redirects.EINVALID, name, redirects.ErrorMessage(err), *errorsFile)
	}
	if f.BadCount > 0 {
		return importFailedOf(redirects.EINVALID, name, redirects.ErrorMessage(export.LineErrors(f.Bad)), f.BadCount, *errorsFile)
	}
	rules, lines := f.Rules, f.Lines
	rep, err := svc.Imports.Import(ctx, p.ID, rules, redirects.ImportOptions{Mode: mode, DryRun: *dryRun})
	if err != nil {
		if code := redirects.ErrorCode(err); code == redirects.EINVALID || code == redirects.ECONFLICT {
			return importFailed(code, name, export.RuleLines(redirects.ErrorMessage(err), lines), *errorsFile)
		}
		return err
	}
	if *errorsFile != "" {
		// An empty file says this import found no bad line, rather than
		// leaving the report of an earlier run in place.
		if err := os.WriteFile(*errorsFile, nil, 0o644); err != nil {
			return redirects.Errorf(redirects.EINVALID, "imported %d rules, but cannot write --errors-file: %v", len(rules), err)
		}
	}
	switch {
	case *asJSON:
		return c.printJSON(api.ImportCountsOf(rep))
	case !*dryRun && mode != redirects.ImportUpsert:
		// append and replace print the number of rules imported, as
		// they always have.
		c.println(strconv.Itoa(len(rules)))
		appendUnchanged(c, rep)
		return nil
	}
	w := tabwriter.NewWriter(c.m.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintf(w, "added\t%d\nupdated\t%d\nunchanged\t%d\nremoved\t%d\n", rep.Added, rep.Updated, rep.Unchanged, rep.Removed)
	if err := w.Flush(); err != nil {
		return err
	}
	if *dryRun {
		c.infof("dry run of %s %s import: nothing written", article(string(mode)), mode)
	}
	return nil
}

func (c *cmd) ruleList(ctx context.Context, args []string) error {
	fs := c.flags("rule list")
	project := fs.String("project", "", "project ID")
	asJSON := fs.Bool("json", false, "print JSON")
	pf := pageFlags(fs)
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
	if isSet(fs, pageFlagNames...) {
		return c.ruleListPage(ctx, svc.Rules, *project, pf, *asJSON, isSet(fs, "limit", "after"))
	}
	_, rules, err := svc.Rules.FindDraft(ctx, *project)
	if err != nil {
		return err
	}
	if *asJSON {
		out := make([]api.Rule, 0, len(rules))
		for i := range rules {
			j := api.RuleOf(&rules[i])
			// The whole draft is read as a deploy reads it, without
			// revisions.
			j.Revision = 0
			out = append(out, j)
		}
		return c.printJSON(out)
	}
	return c.printRules(rules, false)
}

// destinationCell is a rule's destination in a table: "-" for none (a 410),
// so that every row has as many words as the header.
func destinationCell(r *redirects.Rule) string {
	if r.Destination == "" {
		return "-"
	}
	return r.Destination
}

// hostList is the value of --except-hosts as a list: the hosts between
// commas, spaces around them trimmed; none for an empty value.
func hostList(v string) []string {
	if strings.TrimSpace(v) == "" {
		return nil
	}
	hs := strings.Split(v, ",")
	for i := range hs {
		hs[i] = strings.TrimSpace(hs[i])
	}
	return hs
}

// optionsCell is a rule's options in a table: "preservePath",
// "preserveQuery", "queryAfterFragment", "mergeQuery", "exceptHosts=" and
// its hosts joined by '|', those it has joined by a comma, or "-" for none.
func optionsCell(r *redirects.Rule) string {
	var opts []string
	if r.PreservePath {
		opts = append(opts, "preservePath")
	}
	if r.PreserveQuery {
		opts = append(opts, "preserveQuery")
	}
	if r.QueryAfterFragment {
		opts = append(opts, "queryAfterFragment")
	}
	if r.MergeQuery {
		opts = append(opts, "mergeQuery")
	}
	if len(r.ExceptHosts) > 0 {
		opts = append(opts, "exceptHosts="+strings.Join(r.ExceptHosts, "|"))
	}
	if len(opts) == 0 {
		return "-"
	}
	return strings.Join(opts, ",")
}

func (c *cmd) ruleUpdate(ctx context.Context, args []string) error {
	fs := c.flags("rule update")
	project := fs.String("project", "", "project ID")
	source := fs.String("source", "", "new source")
	dest := fs.String("destination", "", "new destination")
	status := fs.Int("status", 0, "new status: 301, 302, 303, 307, 308, or 410 (Gone: no destination)")
	match := fs.String("match", "", "new match type: exact, starts_with, pattern or regex")
	host := fs.String("host", "", "new `HOST` the rule answers only (*.example.com: any subdomain); --host= for every host")
	except := fs.String("except-hosts", "", "new comma-separated `HOSTS` a rule without a host does not answer; --except-hosts= clears them")
	priority := fs.Int("priority", 0, "new priority (0..1000000)")
	preservePath := fs.Bool("preserve-path", false, "append the rest of the requested path (starts_with rules only); =false turns it off")
	preserveQuery := fs.Bool("preserve-query", false, "pass the request's query string on; =false turns it off")
	queryAfterFragment := fs.Bool("query-after-fragment", false, "put the passed-on query after the destination's #fragment (with --preserve-query); =false turns it off")
	mergeQuery := fs.Bool("merge-query", false, "merge the request's query parameters into the destination's (with --preserve-query); =false turns it off")
	revision := fs.Int64("revision", 0, "update only if the rule is still at this revision (see rule list --limit)")
	pos, err := parse(fs, args, "RULE_ID")
	if err != nil {
		return err
	}
	if err := required(fs, "project"); err != nil {
		return err
	}
	id, err := strconv.ParseInt(pos[0], 10, 64)
	if err != nil || id <= 0 {
		return redirects.Errorf(redirects.EINVALID, "rule ID %q is not a positive whole number", pos[0])
	}
	u := redirects.RuleUpdate{Revision: *revision}
	if isSet(fs, "source") {
		u.Source = source
	}
	if isSet(fs, "destination") {
		u.Destination = dest
	}
	if isSet(fs, "status") {
		u.StatusCode = status
	}
	if isSet(fs, "match") {
		mt, err := redirects.ParseMatchType(*match)
		if err != nil {
			return err
		}
		u.MatchType = &mt
	}
	if isSet(fs, "priority") {
		u.Priority = priority
	}
	if isSet(fs, "host") {
		u.Host = host
	}
	if isSet(fs, "except-hosts") {
		hs := hostList(*except)
		if hs == nil {
			hs = []string{}
		}
		u.ExceptHosts = &hs
	}
	if isSet(fs, "preserve-path") {
		u.PreservePath = preservePath
	}
	if isSet(fs, "preserve-query") {
		u.PreserveQuery = preserveQuery
	}
	if isSet(fs, "query-after-fragment") {
		u.QueryAfterFragment = queryAfterFragment
	}
	if isSet(fs, "merge-query") {
		u.MergeQuery = mergeQuery
	}
	if u.Empty() {
		return usagef("rule update needs at least one of --source, --destination, --status, --match, --host, --priority, --preserve-path, --preserve-query, --query-after-fragment, --merge-query, --except-hosts")
	}
	if *revision < 0 {
		return redirects.Errorf(redirects.EINVALID, "revision %d is not a positive whole number", *revision)
	}
	svc, err := c.services(ctx)
	if err != nil {
		return err
	}
	if *status == redirects.StatusGone {
		// A 410 has no destination and no option: asking for one is
		// asking for them gone, unless they are named (then Validate
		// refuses them, naming the field). Only what the rule has is
		// turned off, so that a server older than an option is not sent
		// a field it does not know.
		cur, err := svc.Rules.FindRule(ctx, *project, id)
		if err != nil {
			return err
		}
		off, none := false, ""
		if u.Destination == nil && cur.Destination != "" {
			u.Destination = &none
		}
		if u.PreservePath == nil && cur.PreservePath {
			u.PreservePath = &off
		}
		if u.PreserveQuery == nil && cur.PreserveQuery {
			u.PreserveQuery = &off
		}
		if u.QueryAfterFragment == nil && cur.QueryAfterFragment {
			u.QueryAfterFragment = &off
		}
		if u.MergeQuery == nil && cur.MergeQuery {
			u.MergeQuery = &off
		}
	}
	r, err := svc.Rules.UpdateRule(ctx, *project, id, u)
	if err != nil {
		return err
	}
	c.println(strconv.FormatInt(r.Revision, 10))
	return nil
}

func (c *cmd) ruleDelete(ctx context.Context, args []string) error {
	fs := c.flags("rule delete")
	project := fs.String("project", "", "project ID")
	revision := fs.Int64("revision", 0, "delete only if the rule is still at this revision")
	all := fs.Bool("all-matching", false, "delete every rule that --search, --match, --status and --host select (needs --yes)")
	yes := fs.Bool("yes", false, "confirm --all-matching")
	ff := filterFlags(fs)
	if hasFlag(args, "all-matching") {
		if _, err := parse(fs, args); err != nil {
			return err
		}
		if !*all {
			return usagef("rule delete: --all-matching=false deletes nothing; give a RULE_ID instead")
		}
		return c.ruleDeleteMatching(ctx, fs, *project, ff, *yes)
	}
	pos, err := parse(fs, args, "RULE_ID")
	if err != nil {
		return err
	}
	if err := required(fs, "project"); err != nil {
		return err
	}
	if isSet(fs, "yes", "search", "match", "status", "host") {
		return usagef("rule delete: --yes, --search, --match, --status and --host go with --all-matching")
	}
	id, err := strconv.ParseInt(pos[0], 10, 64)
	if err != nil || id <= 0 {
		return redirects.Errorf(redirects.EINVALID, "rule ID %q is not a positive whole number", pos[0])
	}
	if *revision < 0 {
		return redirects.Errorf(redirects.EINVALID, "revision %d is not a positive whole number", *revision)
	}
	svc, err := c.services(ctx)
	if err != nil {
		return err
	}
	return svc.Rules.DeleteRule(ctx, *project, id, *revision)
}

// appendUnchanged says, on standard error, how many rules of an applied
// append the draft already had as they are, which it left unchanged.
func appendUnchanged(c *cmd, rep *redirects.ImportReport) {
	if rep.Mode == redirects.ImportAppend && !rep.DryRun && rep.Unchanged > 0 {
		c.infof("%d added; %d the draft already had as they are were left unchanged", rep.Added, rep.Unchanged)
	}
}

// maxShownErrors is how many bad lines an import reports on the terminal; a
// file with a million bad lines should not flood it. --errors-file gets
// every one.
const maxShownErrors = 100

// importFailed returns the error of an import that imported nothing: the
// first maxShownErrors lines of problems and how many more there are, and
// with errorsFile every line written there.
func importFailed(code, name, problems, errorsFile string) error {
	return importFailedOf(code, name, problems, strings.Count(problems, "\n")+1, errorsFile)
}

// importFailedOf is importFailed of total bad lines, of which problems
// holds the first (all of them when errorsFile is set).
func importFailedOf(code, name, problems string, total int, errorsFile string) error {
	what, hint := "bad lines", ""
	if code == redirects.ECONFLICT {
		// Every problem is a rule the draft holds otherwise: the file is
		// fine, and the mode that updates the draft is the fix.
		problems = strings.ReplaceAll(problems, redirects.AppendClashHint, "import with --mode upsert to update it")
		what = "lines that clash with the draft"
		hint = "\nthe draft holds these sources with other rules; rules it has as the file says are left unchanged: --mode upsert gives the draft the file's rules"
	}
	lines := strings.Split(problems, "\n")
	var note string
	if errorsFile != "" {
		if err := os.WriteFile(errorsFile, []byte(problems+"\n"), 0o644); err != nil {
			note = fmt.Sprintf("\ncannot write --errors-file: %v", err)
			errorsFile = ""
		}
	}
	if total > maxShownErrors {
		where := "--errors-file FILE writes every one"
		if errorsFile != "" {
			where = "every one is in " + errorsFile
		}
		more := fmt.Sprintf("... and %d more (%d %s in all; %s)", total-maxShownErrors, total, what, where)
		lines = append(lines[:min(len(lines), maxShownErrors):maxShownErrors], more)
	}
	return redirects.Errorf(code, "%s: nothing imported:\n%s%s%s", name, strings.Join(lines, "\n"), hint, note)
}
