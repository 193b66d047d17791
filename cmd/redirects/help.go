package main

import (
	"flag"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
)

// doc is what "redirects COMMAND --help" says about a command besides its
// synopsis (taken from usageText, so the two cannot drift) and its flags
// (taken from the command's flag set).
type doc struct {
	summary string // one line, for the group's list
	about   string // paragraphs, or ""
	example string // one or more command lines
}

// groups are the commands that take a subcommand, with the subcommands in
// the order of the usage text.
var groups = map[string]struct {
	summary string
	subs    []string
}{
	"org":     {"organizations: their tier and limits", []string{"create", "update", "list", "delete"}},
	"project": {"projects of an organization", []string{"create", "list", "rename", "update", "delete"}},
	"rule":    {"the draft redirect rules of a project", []string{"add", "import", "list", "update", "delete"}},
	"key":     {"API keys of a project, for the edge API", []string{"create", "list", "revoke"}},
	"user":    {"users of the management API and dashboard", []string{"create", "list", "disable", "reset-password"}},
	"member":  {"the members of an organization and their roles", []string{"add", "list", "remove"}},
	"token":   {"management API tokens of an organization", []string{"create", "list", "revoke"}},
	"test":    {"expected-outcome tests: run them (test --project P [FILE]) or store them", []string{"set"}},
}

// commands are every command a user can run, as the dispatch in run knows
// them: the suggestions for a mistyped command come from it, and a test
// holds it, docs and the usage text to each other.
var commands = []string{
	"org create", "org update", "org list", "org delete",
	"project create", "project list", "project rename", "project update", "project delete",
	"rule add", "rule import", "rule list", "rule update", "rule delete",
	"key create", "key list", "key revoke",
	"deploy", "deployments", "lookup", "export",
	"user create", "user list", "user disable", "user reset-password",
	"member add", "member list", "member remove",
	"token create", "token list", "token revoke",
	"audit", "lint", "diff", "explain", "test", "test set", "verify",
	"hits", "misses",
	"serve", "quickstart", "version", "help",
}

const csvFormat = `The file is CSV (RFC 4180): a header line, then one rule per line.

  source,destination,statusCode,matchType,priority
  /old,/new,301,exact,
  /blog,https://blog.example.com/,302,starts_with,10

  source       the path the rule applies to, starting with /
  destination  a path starting with / or an http:// or https:// URL
  statusCode   301 or 302
  matchType    exact or starts_with
  priority     optional column: the precedence of a starts_with rule, lower
               first (0..1000000); an empty cell, or a file without the
               column, gives 100

The header names the columns, in any order, with or without priority; case
and a UTF-8 byte order mark do not matter. Blank lines are skipped. A field
that holds a comma, a double quote or a line break is put in double quotes,
with a double quote inside it doubled: "/a,b" or "/say ""hi""". One file may
not hold two rules with the same matchType and source.

The import is all or nothing: if any line is bad, nothing is imported and
every bad line is reported with its line number: the first 100 on the
terminal, and every one in FILE with --errors-file FILE. Without --replace the rules
are added to the draft, and a source that already has a rule of the same
match type is an error; with --replace they take the place of every draft
rule of the project. Nothing is live until "redirects deploy". The command
prints the number of rules imported.`

var docs = map[string]doc{
	"org create": {"create an organization and print its ID",
		"The tier sets the default limits: free 100 requests a minute and 10000 a month, pro 1000 and\n1000000, enterprise unlimited. --rate-limit and --monthly-quota override them.",
		`redirects org create --name "Acme Inc" --tier pro`},
	"org update": {"change an organization's name, tier or limits",
		"Limits set to default follow the tier again.",
		"redirects org update \"$ORG\" --tier enterprise\nredirects org update \"$ORG\" --rate-limit default"},
	"org list": {"list the organizations with their tiers and limits", "",
		"redirects org list --json"},
	"org delete": {"delete an organization with its projects and everything of theirs",
		"--confirm takes the organization's name, typed back, so that a wrong ID deletes nothing.",
		`redirects org delete "$ORG" --confirm "Acme Inc"`},
	"project create": {"create a project in an organization and print its ID", "",
		`PROJECT=$(redirects project create --org "$ORG" --name www)`},
	"project list": {"list the projects, of every organization or of one", "",
		`redirects project list --org "$ORG" --json`},
	"project rename": {"rename a project", "",
		`redirects project rename --project "$PROJECT" --name shop`},
	"project update": {"change a project's settings: export retention and deploy shrink limit",
		"--keep-exports N: how many of the latest deployments keep their export files (default 20); older\nversions' files are rendered again when asked for, identical to the deploy's.\n--shrink-limit is the percentage of the live rules a deploy may remove without --allow-shrink\n(0 to 100; 10 for a new project).",
		"redirects project update --project \"$PROJECT\" --keep-exports 50\nredirects project update --project \"$PROJECT\" --shrink-limit 25"},
	"project delete": {"delete a project with its rules, keys, deployments and exports",
		"--confirm takes the project's name, typed back, so that a wrong ID deletes nothing.",
		`redirects project delete --project "$PROJECT" --confirm www`},
	"rule add": {"add one draft rule and print its ID",
		"An exact rule answers one path; a starts_with rule answers every path under its source, and of\nseveral starts_with rules the one with the lowest priority wins. Nothing is live until\n\"redirects deploy\".",
		"redirects rule add --project \"$PROJECT\" --source /old --destination /new\nredirects rule add --project \"$PROJECT\" --source /blog --destination https://blog.example.com/ --match starts_with --status 302"},
	"rule import": {"import draft rules from a CSV file, all or nothing", csvFormat,
		"redirects rule import --project \"$PROJECT\" rules.csv\nredirects rule import --project \"$PROJECT\" --replace --errors-file bad-lines.txt - < rules.csv"},
	"rule list": {"list the draft rules of a project, all of them or one page",
		"Without --search, --match, --status, --sort, --limit or --after every rule is printed, by source.\nWith --limit one page is printed, and the next page's cursor on stderr, for --after.",
		"redirects rule list --project \"$PROJECT\"\nredirects rule list --project \"$PROJECT\" --search '/blog*' --limit 50 --json"},
	"rule update": {"change a draft rule",
		"Only the flags given change. With --revision the update is refused if the rule has changed since.",
		`redirects rule update --project "$PROJECT" 42 --destination /newer`},
	"rule delete": {"delete a draft rule, or every rule a filter selects",
		"With --all-matching every rule that --search, --match and --status select is deleted; --yes\nconfirms it.",
		"redirects rule delete --project \"$PROJECT\" 42\nredirects rule delete --project \"$PROJECT\" --all-matching --search '/old*' --yes"},
	"key create": {"create an API key and print it, the only time it is shown",
		"A test key (redir_test_...) answers like a live one, with a per-minute limit of its own and no\nmonthly quota.",
		`redirects key create --project "$PROJECT" --name edge`},
	"key list": {"list a project's API keys, never the keys themselves", "",
		`redirects key list --project "$PROJECT"`},
	"key revoke": {"revoke an API key, by its ID or the full key",
		"Revoking a key that is already revoked changes nothing, says so, and exits 0.",
		`redirects key revoke --project "$PROJECT" key_1a2b3c4d5e6f7g8h`},
	"deploy": {"make the draft rules live as a new version and print the version",
		"With --from-version the rules of an earlier version go live again (a rollback).\n\n" +
			"Every deploy is checked first. Lint errors (loops) and failing cases of the project's stored\n" +
			"test file block it unless it is forced with --force --reason TEXT, which the audit log records.\n" +
			"A deploy that removes more of the live rules than the project's shrink limit (10 % unless\n" +
			"\"project update --shrink-limit\" says otherwise; once at least 10 rules go), or all of them,\n" +
			"needs --allow-shrink; a rollback does not.\n" +
			"A blocked deploy changes nothing, says why on stderr and exits 1; warnings block nothing.",
		"redirects deploy --project \"$PROJECT\" --message \"spring cleanup\"\nredirects deploy --project \"$PROJECT\" --from-version 3\n" +
			"redirects deploy --project \"$PROJECT\" --force --reason \"loop fixed upstream tonight\""},
	"deployments": {"list a project's deployments, version 1 first", "",
		`redirects deployments --project "$PROJECT" --json`},
	"lookup": {"look a path up in a deployed version, as the edge API would", "",
		`redirects lookup --project "$PROJECT" --path /old`},
	"export": {"print an export file of a deployed version: CSV, nginx or HAProxy", "",
		`redirects export --project "$PROJECT" --format nginx > redirects.map`},
	"user create": {"create a user and print its ID (and a one-time password on stderr)",
		"", `redirects user create --email ada@example.com --operator`},
	"user list": {"list the users", "", "redirects user list --json"},
	"user disable": {"disable a user: their sessions end and the tokens they created are revoked", "",
		"redirects user disable ada@example.com"},
	"user reset-password": {"give a user a new password (a one-time one on stderr, or read)", "",
		"printf '%s' \"$PASSWORD\" | redirects user reset-password ada@example.com --password-stdin"},
	"member add": {"add a user to an organization with a role", "",
		`redirects member add --org "$ORG" --user ada@example.com --role editor`},
	"member list": {"list the members of an organization", "",
		`redirects member list --org "$ORG"`},
	"member remove": {"remove a user from an organization", "",
		`redirects member remove --org "$ORG" --user ada@example.com`},
	"token create": {"create a management API token and print it, the only time it is shown", "",
		`redirects token create --org "$ORG" --role editor --name ci --expires 30d`},
	"token list": {"list an organization's management tokens", "",
		`redirects token list --org "$ORG"`},
	"token revoke": {"revoke a management token, by its ID or the full token",
		"Revoking a token that is already revoked changes nothing, says so, and exits 0.",
		`redirects token revoke --org "$ORG" tok_1a2b3c4d5e6f7g8h`},
	"audit": {"print the audit log: who changed what, when",
		"--since and --until take a time (RFC 3339), a date (2006-01-02) or a duration ago (24h, 7d).",
		`redirects audit --project "$PROJECT" --since 7d --action 'rule.*'`},
	"lint": {"check a version's rules for loops, chains, shadowed and redundant rules",
		"Exits 1 when it finds what blocks a deploy.",
		`redirects lint --project "$PROJECT" --host www.example.com`},
	"diff": {"show the paths whose answer changes between two versions",
		"", `redirects diff --project "$PROJECT" --from live --to draft`},
	"explain": {"show which rule answers a path and why", "",
		`redirects explain --project "$PROJECT" --path /blog/post`},
	"test": {"check expected outcomes from a file against a version",
		"FILE is CSV with the header path,status,destination[,final_destination], one case a line:\nstatus is 301, 302, or none for a path no rule may answer. Exits 1 when a case fails.\n" +
			"Without FILE, the project's stored test file.\n\nSubcommands:\n  set    store the project's test file, which every deploy runs against the rules it puts live",
		`redirects test --project "$PROJECT" cases.txt --junit results.xml`},
	"test set": {"store the project's test file, which every deploy runs against the rules it puts live",
		"The file is checked first: a bad line is reported with its number and nothing is stored.\nAn empty file is refused; FILE - reads standard input.",
		`redirects test set --project "$PROJECT" cases.csv`},
	"verify": {"ask a running web server for every rule's source and check its answers",
		"Exits 1 when the server answers otherwise.",
		`redirects verify --base-url http://127.0.0.1:8080 --project "$PROJECT"`},
	"hits": {"show each draft rule's hits and last hit, as the edge nodes counted them",
		"Hits are counted for live keys' lookups by every edge node and written every second; a rule is\nnamed by its match type and source, so its hits carry over deploys. --stale-since takes a time\n(RFC 3339), a date (2006-01-02) or a duration ago (90d), and lists only the rules with no hit since.",
		`redirects hits --project "$PROJECT" --stale-since 90d`},
	"misses": {"show the paths live lookups asked for most that no rule answered (204)",
		"Each edge node keeps its most frequent missed paths per project and writes them every second;\nthe store keeps the 10,000 most frequent per project.",
		`redirects misses --project "$PROJECT" --limit 20`},
	"serve": {"serve the edge API (and /metrics on the admin address)",
		"The database must exist: create it with a command that writes first.",
		"redirects serve --addr 127.0.0.1:8080"},
	"quickstart": {"create demo data in a local database, then serve it",
		"", "redirects quickstart"},
	"version": {"print the version, commit and build date", "", "redirects version"},
	"help":    {"print the usage, or a command's help", "", "redirects help rule import"},
}

// synopses returns the lines of usageText that show how to run command
// name, without the "  " in front and the remarks after them.
func synopses(name string) []string {
	var out []string
	for _, line := range strings.Split(usageText, "\n") {
		if !strings.HasPrefix(line, "  ") {
			continue
		}
		line = strings.TrimSpace(line)
		if line != name && !strings.HasPrefix(line, name+" ") {
			continue
		}
		if i := strings.Index(line, "   "); i >= 0 {
			line = strings.TrimSpace(line[:i])
		}
		out = append(out, line)
	}
	return out
}

// printHelp writes a command's help: what it does, its synopsis, its flags
// with their defaults, and an example.
func printHelp(w io.Writer, name string, fs *flag.FlagSet) {
	d := docs[name]
	fmt.Fprintf(w, "redirects %s: %s\n\nUsage:\n", name, d.summary)
	syn := synopses(name)
	if len(syn) == 0 {
		syn = []string{name + " [flags]"}
	}
	for _, s := range syn {
		fmt.Fprintf(w, "  redirects %s\n", s)
	}
	if d.about != "" {
		fmt.Fprintf(w, "\n%s\n", d.about)
	}
	if fs != nil && len(flagNames(fs)) > 0 {
		fmt.Fprint(w, "\nFlags:\n")
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fs.VisitAll(func(f *flag.Flag) {
			typ, usage := flag.UnquoteUsage(f)
			if def := f.DefValue; def != "" && def != "false" && def != "0" {
				if typ == "string" {
					def = strconv.Quote(def)
				}
				usage += " (default " + def + ")"
			}
			if typ != "" {
				typ = " " + typ
			}
			fmt.Fprintf(tw, "  --%s%s\t%s\n", f.Name, typ, usage)
		})
		tw.Flush()
	}
	if d.example != "" {
		fmt.Fprint(w, "\nExample:\n")
		for _, line := range strings.Split(d.example, "\n") {
			fmt.Fprintf(w, "  %s\n", line)
		}
	}
}

// printGroupHelp writes the help of a command group: its subcommands, one
// line each.
func printGroupHelp(w io.Writer, group string) {
	g := groups[group]
	fmt.Fprintf(w, "redirects %s: %s\n\nUsage: redirects %s COMMAND [flags]\n\nCommands:\n", group, g.summary, group)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, sub := range g.subs {
		fmt.Fprintf(tw, "  %s\t%s\n", sub, docs[group+" "+sub].summary)
	}
	tw.Flush()
	fmt.Fprintf(w, "\nRun \"redirects %s COMMAND --help\" for a command's flags and an example.\n", group)
}

// isHelp reports whether arg asks for help.
func isHelp(arg string) bool {
	switch arg {
	case "-h", "-help", "--h", "--help", "help":
		return true
	}
	return false
}

// suggest returns ` (did you mean "X"?)` for the candidate closest to
// word, or "" when none is close enough to be a likely typo.
func suggest(word string, candidates []string) string {
	best, bestD := "", -1
	for _, c := range candidates {
		d := editDistance(strings.ToLower(word), strings.ToLower(c))
		if bestD < 0 || d < bestD {
			best, bestD = c, d
		}
	}
	// One edit in a short word and two in a longer one are typos; more is
	// another word.
	limit := 1
	if len([]rune(word)) >= 5 {
		limit = 2
	}
	if bestD >= 0 && bestD <= limit {
		return fmt.Sprintf(" (did you mean %q?)", best)
	}
	return ""
}

// editDistance is the optimal string alignment distance between a and b:
// insertions, deletions, substitutions and transpositions of two adjacent
// characters each count one.
func editDistance(a, b string) int {
	s, t := []rune(a), []rune(b)
	d := make([][]int, len(s)+1)
	for i := range d {
		d[i] = make([]int, len(t)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(s); i++ {
		for j := 1; j <= len(t); j++ {
			cost := 1
			if s[i-1] == t[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && s[i-1] == t[j-2] && s[i-2] == t[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(s)][len(t)]
}

// topLevelNames returns the words that may start a command line.
func topLevelNames() []string {
	seen := map[string]bool{}
	var out []string
	for _, c := range commands {
		w, _, _ := strings.Cut(c, " ")
		if !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	sort.Strings(out)
	return out
}

// flagNames returns the flags of fs as they are typed, with "--".
func flagNames(fs *flag.FlagSet) []string {
	var out []string
	fs.VisitAll(func(f *flag.Flag) { out = append(out, "--"+f.Name) })
	return out
}
