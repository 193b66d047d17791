package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// checkCommands returns what is wrong with a command table: a name that
// is not one or two words or comes twice, a command without its help (a
// summary) or an example, an example that does not run the command, a
// subcommand of no group, a group without subcommands.
func checkCommands(cmds []command) []string {
	var problems []string
	word := regexp.MustCompile(`^[a-z][a-z-]*$`)
	seen := map[string]bool{}
	for _, c := range cmds {
		words := strings.Split(c.name, " ")
		if len(words) > 2 || !slices.ContainsFunc(words, word.MatchString) || !word.MatchString(words[len(words)-1]) {
			problems = append(problems, fmt.Sprintf("command %q: a name is one or two lowercase words", c.name))
		}
		if seen[c.name] {
			problems = append(problems, fmt.Sprintf("command %q is declared twice", c.name))
		}
		seen[c.name] = true
		if c.summary == "" || strings.Contains(c.summary, "\n") {
			problems = append(problems, fmt.Sprintf("command %q has no help: its summary is one line of what it does", c.name))
		}
		if c.run == nil {
			// A group.
			if c.example != "" || c.about != "" || len(c.synopsis) > 0 || c.readOnly {
				problems = append(problems, fmt.Sprintf("group %q has what only a command has: synopsis, about, example or readOnly", c.name))
			}
			continue
		}
		if c.example == "" {
			problems = append(problems, fmt.Sprintf("command %q has no example", c.name))
		}
		for _, line := range strings.Split(c.example, "\n") {
			if !strings.Contains(line+" ", "redirects "+c.name+" ") {
				problems = append(problems, fmt.Sprintf("command %q: example line %q does not run it", c.name, line))
			}
		}
		if strings.Contains(c.remark, "\n") || slices.ContainsFunc(c.synopsis, func(s string) bool { return s == "" || strings.Contains(s, "\n") }) {
			problems = append(problems, fmt.Sprintf("command %q: a synopsis or remark is one line, not empty", c.name))
		}
	}
	for _, c := range cmds {
		group, _, ok := strings.Cut(c.name, " ")
		if ok && !seen[group] {
			problems = append(problems, fmt.Sprintf("command %q is in no group: declare %q", c.name, group))
		}
		if c.run == nil && !slices.ContainsFunc(cmds, func(s command) bool { return strings.HasPrefix(s.name, c.name+" ") }) {
			problems = append(problems, fmt.Sprintf("group %q has no commands", c.name))
		}
	}
	return problems
}

// TestCommandTable checks every command of the table: each has its help
// and an example.
func TestCommandTable(t *testing.T) {
	if len(commands) < 40 {
		t.Fatalf("the table has %d commands", len(commands))
	}
	for _, p := range checkCommands(commands) {
		t.Error(p)
	}
}

// TestCheckCommands holds checkCommands to the mistakes it is there to
// catch.
func TestCheckCommands(t *testing.T) {
	run := func(*cmd, context.Context, []string) error { return nil }
	good := command{name: "frob", synopsis: []string{"--project P"}, summary: "frob a project",
		example: `redirects frob --project "$PROJECT"`, run: run}
	if p := checkCommands([]command{good}); len(p) != 0 {
		t.Fatalf("checkCommands(a good command) = %q, want nothing", p)
	}
	with := func(f func(*command)) []command {
		c := good
		f(&c)
		return []command{c}
	}
	for _, tc := range []struct {
		what  string
		table []command
		want  string
	}{
		{"no example", with(func(c *command) { c.example = "" }), `command "frob" has no example`},
		{"no help", with(func(c *command) { c.summary = "" }), `command "frob" has no help`},
		{"a help of two lines", with(func(c *command) { c.summary = "frob\na project" }), `command "frob" has no help`},
		{"an example of another command", with(func(c *command) { c.example = "redirects frobnicate" }), `example line "redirects frobnicate" does not run it`},
		{"a bad name", with(func(c *command) { c.name = "Frob" }), `command "Frob": a name is one or two lowercase words`},
		{"three words", with(func(c *command) { c.name = "a b c" }), `command "a b c": a name is one or two lowercase words`},
		{"twice", []command{good, good}, `command "frob" is declared twice`},
		{"an empty synopsis line", with(func(c *command) { c.synopsis = []string{""} }), `command "frob": a synopsis or remark is one line`},
		{"a subcommand without its group", with(func(c *command) {
			c.name, c.example = "widget frob", "redirects widget frob"
		}), `command "widget frob" is in no group: declare "widget"`},
		{"a group without commands", []command{good, {name: "widget", summary: "widgets"}}, `group "widget" has no commands`},
		{"a group with an example", []command{{name: "widget", summary: "widgets", example: "redirects widget"},
			{name: "widget frob", summary: "frob", example: "redirects widget frob", run: run}}, `group "widget" has what only a command has`},
	} {
		p := checkCommands(tc.table)
		if !slices.ContainsFunc(p, func(s string) bool { return strings.Contains(s, tc.want) }) {
			t.Errorf("%s: checkCommands = %q, want a problem saying %q", tc.what, p, tc.want)
		}
	}
}

// wantHelp is the help of command name as the table describes it.
func wantHelp(t *testing.T, name string) (prefix, suffix string) {
	t.Helper()
	c := findCommand(name)
	prefix = "redirects " + name + ": " + c.summary + "\n\nUsage:\n"
	for _, line := range usageLines(name) {
		prefix += "  redirects " + line + "\n"
	}
	if c.about != "" {
		prefix += "\n" + c.about + "\n"
	}
	if subs := subcommands(name); len(subs) > 0 {
		prefix += "\nSubcommands:\n"
		width := 0
		for _, s := range subs {
			width = max(width, len(s.name)-len(name)-1)
		}
		for _, s := range subs {
			prefix += fmt.Sprintf("  %-*s    %s\n", width, strings.TrimPrefix(s.name, name+" "), s.summary)
		}
	}
	suffix = "\nExample:\n"
	for _, line := range strings.Split(c.example, "\n") {
		suffix += "  " + line + "\n"
	}
	return prefix, suffix
}

// TestUsageAndHelpFromTable: the usage lists every command of the table
// with its synopsis and remark; "redirects help CMD" and "CMD --help"
// print that command's summary, synopsis, about, flags and example; a
// group's help lists its commands with their summaries.
func TestUsageAndHelpFromTable(t *testing.T) {
	db := "sqlite:" + filepath.Join(t.TempDir(), "none.db")
	usage, stderr, code := inProcess(t, db, "", "--help")
	if code != 0 || stderr != "" {
		t.Fatalf("redirects --help: exit %d, stderr %q", code, stderr)
	}
	lines := strings.Split(usage, "\n")
	for _, c := range commands {
		if c.run == nil {
			out, stderr, code := inProcess(t, db, "", c.name, "--help")
			if code != 0 || stderr != "" || !strings.HasPrefix(out, "redirects "+c.name+": "+c.summary+"\n") {
				t.Errorf("redirects %s --help: exit %d, stderr %q, stdout:\n%s", c.name, code, stderr, out)
			}
			for _, sub := range subcommands(c.name) {
				line := regexp.MustCompile(`(?m)^  ` + regexp.QuoteMeta(strings.TrimPrefix(sub.name, c.name+" ")) + ` +` + regexp.QuoteMeta(sub.summary) + `$`)
				if !line.MatchString(out) {
					t.Errorf("redirects %s --help does not list %q with its summary:\n%s", c.name, sub.name, out)
				}
			}
			continue
		}
		forms := c.synopsis
		if len(forms) == 0 {
			forms = []string{""}
		}
		for i, s := range forms {
			want := strings.TrimSpace("  " + c.name + " " + s)
			found := slices.ContainsFunc(lines, func(l string) bool {
				rest, ok := strings.CutPrefix(l, "  "+want)
				if i == 0 && c.remark != "" {
					return ok && strings.HasPrefix(rest, "   ") && strings.TrimSpace(rest) == c.remark
				}
				return ok && rest == ""
			})
			if !found {
				t.Errorf("redirects --help has no line %q (with its remark %q):\n%s", want, c.remark, usage)
			}
		}
		prefix, suffix := wantHelp(t, c.name)
		for _, args := range [][]string{append(strings.Fields(c.name), "--help"), append([]string{"help"}, strings.Fields(c.name)...)} {
			out, stderr, code := inProcess(t, db, "", args...)
			if code != 0 || stderr != "" || !strings.HasPrefix(out, prefix) || !strings.HasSuffix(out, suffix) {
				t.Errorf("redirects %s: exit %d, stderr %q, stdout:\n%s\nwant it to start with:\n%s\nand end with:\n%s",
					strings.Join(args, " "), code, stderr, out, prefix, suffix)
			}
		}
	}
}

// helpFlags returns the flags that "redirects NAME --help" lists.
func helpFlags(t *testing.T, name string) []string {
	t.Helper()
	out, _, code := inProcess(t, "sqlite:"+filepath.Join(t.TempDir(), "none.db"), "", append(strings.Fields(name), "--help")...)
	if code != 0 {
		t.Fatalf("redirects %s --help: exit %d", name, code)
	}
	_, list, _ := strings.Cut(out, "\nFlags:\n")
	list, _, _ = strings.Cut(list, "\n\n")
	var flags []string
	for _, m := range regexp.MustCompile(`(?m)^  (?:(-[a-z]), )?(--[a-z][a-z-]*)`).FindAllStringSubmatch(list, -1) {
		if m[1] != "" {
			flags = append(flags, m[1])
		}
		flags = append(flags, m[2])
	}
	return flags
}

// TestHelpFlagsSayWhatTheyTake: every command's list of flags names each
// flag as it is typed (a one-letter flag with one dash, beside the long
// name that sets the same value) and its argument by what it is, never
// by a Go type.
func TestHelpFlagsSayWhatTheyTake(t *testing.T) {
	db := "sqlite:" + filepath.Join(t.TempDir(), "none.db")
	goType := regexp.MustCompile(`(?m)^  (?:-[a-z], )?--[a-z][a-z-]* (string|int|int64|uint|uint64|float64|duration|value)\b`)
	oneLetter := regexp.MustCompile(`(?m)^  --[a-z]\b`)
	for _, c := range commands {
		if c.run == nil {
			continue
		}
		out, _, code := inProcess(t, db, "", append(strings.Fields(c.name), "--help")...)
		if code != 0 {
			t.Fatalf("redirects %s --help: exit %d", c.name, code)
		}
		_, list, _ := strings.Cut(out, "\nFlags:\n")
		list, _, _ = strings.Cut(list, "\n\n")
		for _, m := range goType.FindAllString(list, -1) {
			t.Errorf("redirects %s --help names a flag's argument by its Go type: %q", c.name, strings.TrimSpace(m))
		}
		for _, m := range oneLetter.FindAllString(list, -1) {
			t.Errorf("redirects %s --help lists a one-letter flag with two dashes: %q", c.name, strings.TrimSpace(m))
		}
	}
	for _, name := range []string{"plan", "apply"} {
		out, _, _ := inProcess(t, db, "", name, "--help")
		if !regexp.MustCompile(`(?m)^  -f, --file FILE +the project FILE \(JSON\)$`).MatchString(out) {
			t.Errorf("redirects %s --help does not list -f and --file on one line:\n%s", name, out)
		}
	}
	out, _, _ := inProcess(t, db, "", "project", "update", "--help")
	for _, want := range []string{"\n  --project P ", "\n  --host H ", "\n  --name NAME "} {
		if !strings.Contains(out, want) {
			t.Errorf("redirects project update --help does not say %q:\n%s", want, out)
		}
	}
}

// TestSynopsisNamesEveryFlag: a command's synopsis in the table names every
// flag the command takes but --db, --api and --token (where it takes
// them: the usage's first lines name them), and every flag it names is one
// the command takes.
func TestSynopsisNamesEveryFlag(t *testing.T) {
	flagRE := regexp.MustCompile(`--[a-z][a-z-]*`)
	shortFlagRE := regexp.MustCompile(`(?:^|[\s\[|])-([a-z])\b`)
	for _, c := range commands {
		if c.run == nil {
			continue
		}
		var named []string
		for _, s := range c.synopsis {
			named = append(named, flagRE.FindAllString(s, -1)...)
			// A one-letter flag is written -f, and listed so by --help.
			for _, m := range shortFlagRE.FindAllStringSubmatch(s, -1) {
				named = append(named, "-"+m[1])
			}
		}
		var takes []string
		for _, f := range helpFlags(t, c.name) {
			f = strings.TrimSpace(f)
			takes = append(takes, f)
			if f != "--db" && f != "--api" && f != "--token" && !slices.Contains(named, f) {
				t.Errorf("command %q takes %s, which its synopsis %q does not name", c.name, f, c.synopsis)
			}
		}
		for _, f := range named {
			if !slices.Contains(takes, f) {
				t.Errorf("the synopsis of %q names %s, which the command does not take", c.name, f)
			}
		}
	}
}

// TestREADMEReadOnly holds docs/cli.md's list of the commands that only
// read (moved there from the README) to the table.
func TestREADMEReadOnly(t *testing.T) {
	b, err := os.ReadFile("../../docs/cli.md")
	if err != nil {
		t.Fatal(err)
	}
	_, list, ok := strings.Cut(string(b), "A command that only reads (")
	list, _, _ = strings.Cut(list, ")")
	if !ok {
		t.Fatal(`docs/cli.md has no "A command that only reads (...)"`)
	}
	var readme, table []string
	for _, m := range regexp.MustCompile("`([^`]+)`").FindAllStringSubmatch(list, -1) {
		readme = append(readme, strings.Join(strings.Fields(m[1]), " "))
	}
	for _, c := range commands {
		if c.readOnly {
			table = append(table, c.name)
		}
	}
	slices.Sort(readme)
	slices.Sort(table)
	if !slices.Equal(readme, table) {
		t.Errorf("docs/cli.md says these commands only read:\n%q\nthe table says:\n%q", readme, table)
	}
}

// TestAddCommand declares one command, as a new one is added, and finds it
// dispatched, in the usage and its group's help, with its help, in the
// suggestions for a typo, and read-only against a missing database.
func TestAddCommand(t *testing.T) {
	saved := commands
	t.Cleanup(func() { commands = saved })
	var ran []string
	commands = append(slices.Clone(saved), command{
		name:     "rule frob",
		synopsis: []string{"--project P [--twice] RULE_ID"},
		summary:  "frob a draft rule",
		about:    "Frobbing changes nothing.",
		example:  `redirects rule frob --project "$PROJECT" 42`,
		readOnly: true,
		run: func(c *cmd, ctx context.Context, args []string) error {
			fs := c.flags("rule frob")
			fs.String("project", "", "project ID")
			fs.Bool("twice", false, "frob it twice")
			pos, err := parse(fs, args, "RULE_ID")
			if err != nil {
				return err
			}
			if err := required(fs, "project"); err != nil {
				return err
			}
			if _, err := c.services(ctx); err != nil {
				return err
			}
			ran = append(ran, pos[0])
			return nil
		},
	})
	if p := checkCommands(commands); len(p) != 0 {
		t.Fatalf("checkCommands: %q", p)
	}
	missing := filepath.Join(t.TempDir(), "missing.db")
	db := "sqlite:" + missing
	usage, _, _ := inProcess(t, db, "", "help")
	if !strings.Contains(usage, "\n  rule frob --project P [--twice] RULE_ID\n") {
		t.Errorf("the usage does not list rule frob:\n%s", usage)
	}
	group, _, _ := inProcess(t, db, "", "rule", "--help")
	if !regexp.MustCompile(`(?m)^  frob +frob a draft rule$`).MatchString(group) {
		t.Errorf("rule --help does not list frob:\n%s", group)
	}
	help, _, code := inProcess(t, db, "", "help", "rule", "frob")
	if prefix, suffix := wantHelp(t, "rule frob"); code != 0 || !strings.HasPrefix(help, prefix) || !strings.HasSuffix(help, suffix) ||
		!strings.Contains(help, "  --twice ") {
		t.Errorf("help rule frob: exit %d:\n%s", code, help)
	}
	if _, stderr, code := inProcess(t, db, "", "rule", "frb"); code != 2 || !strings.Contains(stderr, `(did you mean "rule frob"?)`) {
		t.Errorf("rule frb: exit %d, stderr %q; want 2 and the suggestion", code, stderr)
	}
	// Read-only: a database file that is not there is an error, not created.
	if _, stderr, code := inProcess(t, db, "", "rule", "frob", "--project", "p", "7"); code != 1 || !strings.Contains(stderr, "does not exist") {
		t.Errorf("rule frob on a missing database: exit %d, stderr %q; want 1 and that it does not exist", code, stderr)
	}
	if _, err := os.Stat(missing); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("rule frob created %s (stat: %v)", missing, err)
	}
	// A database that exists: the command runs.
	made := "sqlite:" + filepath.Join(t.TempDir(), "made.db")
	if _, stderr, code := inProcess(t, made, "", "org", "create", "--name", "Acme", "--tier", "free"); code != 0 {
		t.Fatalf("org create: exit %d, %s", code, stderr)
	}
	if _, stderr, code := inProcess(t, made, "", "rule", "frob", "7", "--project", "p"); code != 0 || !slices.Equal(ran, []string{"7"}) {
		t.Errorf("rule frob: exit %d, stderr %q, ran %q; want 0 and one run with 7", code, stderr, ran)
	}
}

func TestEditDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"deploy", "deploy", 0}, {"deplyo", "deploy", 1}, {"depoly", "deploy", 1},
		{"deply", "deploy", 1}, {"deployy", "deploy", 1}, {"dxploy", "deploy", 1}, {"lsit", "list", 1},
		{"", "abc", 3}, {"frob", "add", 4}, {"ca", "abc", 3},
	} {
		if got := editDistance(tc.a, tc.b); got != tc.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}

func TestSuggest(t *testing.T) {
	cands := []string{"deploy", "deployments", "lookup", "export", "org", "rule"}
	for _, tc := range []struct{ word, want string }{
		{"deplyo", ` (did you mean "deploy"?)`},
		{"DEPLOY", ` (did you mean "deploy"?)`},
		{"deploymnts", ` (did you mean "deployments"?)`},
		{"rules", ` (did you mean "rule"?)`},
		{"og", ` (did you mean "org"?)`},
		{"xyz", ""},
		{"frobnicate", ""},
		{"exprt", ` (did you mean "export"?)`},
	} {
		if got := suggest(tc.word, cands); got != tc.want {
			t.Errorf("suggest(%q) = %q, want %q", tc.word, got, tc.want)
		}
	}
}
