package main

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"redirects"
)

// command is one command of the CLI, declared once, in the file of its
// group (org.go declares every "org ..." command, next to their
// functions). Dispatch, the usage text, the command's --help, the
// suggestions for a mistyped name and the read-only check all come from
// it. Adding a command is one entry in its file's list and one function.
type command struct {
	// name is the words that run it: "deploy", "rule add". An entry
	// without run is a group: "rule" runs the commands named "rule ...",
	// and its help lists them.
	name string
	// synopsis is what follows the name on its usage line, one line for
	// each form of the command ("--project P [--json]"); none for a
	// command that takes nothing. It names every flag the command takes
	// but --db, which every command takes, and --api and --token, which
	// every command that runs through the management API takes.
	synopsis []string
	// remark is a few words after the synopsis in the usage text, or "".
	remark string
	// summary is its help in one line: what it does, at the top of its
	// --help and in its group's list.
	summary string
	// about is the paragraphs of its --help between the synopsis and the
	// flags, or "".
	about string
	// example is one or more command lines, at the end of its help.
	example string
	// readOnly marks a command that only reads the database: against a
	// SQLite file that does not exist it says so rather than create an
	// empty one and answer from it, which would hide a mistyped --db.
	readOnly bool
	// needsDB marks a command that cannot run through the management API
	// (--api): serve, quickstart, migrations of the schema. It says so
	// instead.
	needsDB bool
	// whyDB says, for a needsDB command, why it cannot run through the
	// management API; "" says it cannot.
	whyDB string
	// run runs it with the arguments after its name. Its flag set comes
	// from c.flags(name) (or c.newFlagSet(name) for a command that does
	// not take --db): --help prints the help from this entry and the
	// flags.
	run func(c *cmd, ctx context.Context, args []string) error
}

// commands is every command and group, in the order of the usage text.
// Each group's file declares its list; a new group adds its list here.
var commands []command

func init() {
	// Built in init: help's function prints the usage, which reads
	// commands.
	commands = slices.Concat(
		orgCommands, projectCommands, ruleCommands, keyCommands,
		importUndoCommands, deployCommands, planCommands, lookupExportCommands, remoteCommands,
		userCommands, memberCommands, tokenCommands, auditCommands, webhookCommands,
		safetyCommands, testCommands, verifyCommands, insightCommands, suggestCommands,
		agentCommands, destCheckCommands, serveCommands, syncCommands, quickstartCommands, versionCommands, helpCommands,
	)
}

// findCommand returns the command or group named name, or nil.
func findCommand(name string) *command {
	for i := range commands {
		if commands[i].name == name {
			return &commands[i]
		}
	}
	return nil
}

// subcommands returns the commands named after name: "rule add", "rule
// list", ... for "rule", "test set" for "test".
func subcommands(name string) []*command {
	var out []*command
	for i := range commands {
		if sub, ok := strings.CutPrefix(commands[i].name, name+" "); ok && !strings.Contains(sub, " ") {
			out = append(out, &commands[i])
		}
	}
	return out
}

// topLevelNames returns the words that may start a command line.
func topLevelNames() []string {
	var out []string
	for _, c := range commands {
		if w, _, _ := strings.Cut(c.name, " "); !slices.Contains(out, w) {
			out = append(out, w)
		}
	}
	slices.Sort(out)
	return out
}

// dispatch runs the command that args name, with the arguments after its
// name.
func (c *cmd) dispatch(ctx context.Context, args []string) error {
	name, rest := args[0], args[1:]
	top := findCommand(name)
	if top == nil || strings.Contains(name, " ") {
		return usagef("unknown command %q%s", name, suggest(name, topLevelNames()))
	}
	subs := subcommands(name)
	if len(subs) > 0 && len(rest) > 0 {
		if sub := findCommand(name + " " + rest[0]); sub != nil {
			return c.runCommand(ctx, sub, rest[1:])
		}
	}
	if top.run == nil {
		c.m.command = name
		if len(rest) == 0 {
			printGroupHelp(c.m.Stderr, name)
			return usagef("%s needs a subcommand", name)
		}
		if isHelp(rest[0]) {
			if rest[0] == "help" && len(rest) > 1 {
				// "rule help import" is "rule import --help".
				return c.dispatch(ctx, []string{name, rest[1], "--help"})
			}
			printGroupHelp(c.m.Stdout, name)
			return nil
		}
		names := make([]string, 0, len(subs))
		for _, s := range subs {
			names = append(names, s.name)
		}
		slices.Sort(names)
		return usagef("unknown command %q%s", name+" "+rest[0], suggest(name+" "+rest[0], names))
	}
	if len(subs) > 0 && len(rest) > 0 && rest[0] == "help" {
		// A command with subcommands of its own: "test help set" is "test
		// set --help", and "test help" is "test --help".
		if len(rest) > 1 && findCommand(name+" "+rest[1]) != nil {
			return c.dispatch(ctx, []string{name, rest[1], "--help"})
		}
		rest = []string{"--help"}
	}
	return c.runCommand(ctx, top, rest)
}

// runCommand runs command cm with its arguments.
func (c *cmd) runCommand(ctx context.Context, cm *command, args []string) error {
	c.command = cm
	if cm.needsDB && !slices.ContainsFunc(args, isHelpFlag) && !slices.ContainsFunc(args, isDBFlag) {
		// Said before anything is parsed or started (serve listens
		// before it opens the store); open says it too, and decides
		// when the command's own --db is among its arguments.
		if r, err := c.remote(); err == nil && r != nil {
			return errNeedsDB(cm)
		}
	}
	return cm.run(c, ctx, args)
}

// isDBFlag reports whether a command-line argument is the flag --db.
func isDBFlag(a string) bool {
	name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
	return strings.HasPrefix(a, "-") && name == "db"
}

// isHelpFlag reports whether a command-line argument asks for help.
func isHelpFlag(a string) bool { return a == "-h" || a == "-help" || a == "--help" }

// errNeedsDB is what a needsDB command says when run through the
// management API.
func errNeedsDB(cm *command) error {
	why := cmp.Or(cm.whyDB, "it cannot run through the management API")
	return redirects.Errorf(redirects.EINVALID, "%s needs the database: %s; run it with --db (without --api, REDIRECTS_API or a saved login)", cm.name, why)
}

// usageLines returns how to run command name, one line per form, without
// "redirects ": its own forms, then those of its subcommands.
func usageLines(name string) []string {
	var out []string
	for _, cm := range commands {
		if cm.run == nil || (cm.name != name && !strings.HasPrefix(cm.name, name+" ")) {
			continue
		}
		if len(cm.synopsis) == 0 {
			out = append(out, cm.name)
		}
		for _, s := range cm.synopsis {
			out = append(out, cm.name+" "+s)
		}
	}
	return out
}

// wrap breaks text at spaces into lines of at most width bytes, each
// starting with indent and ending with a newline.
func wrap(text, indent string, width int) string {
	var b strings.Builder
	line := indent
	for _, w := range strings.Fields(text) {
		if line != indent && len(line)+1+len(w) > width {
			b.WriteString(line + "\n")
			line = indent
		}
		if line != indent {
			line += " "
		}
		line += w
	}
	b.WriteString(line + "\n")
	return b.String()
}

// remarkColumn is where the remarks of the usage text's command lines
// start, unless the line is longer.
const remarkColumn = 51

// helpGroups are the headings of the usage text, by task, each with the
// first words of the commands it lists, in the order of the command
// table. A command whose first word is in none is listed under "Other"
// (a test keeps that heading empty).
var helpGroups = []struct {
	title string
	words []string
}{
	{"Organizations and projects", []string{"org", "project"}},
	{"Rules", []string{"rule"}},
	{"Deploys", []string{"plan", "apply", "deploy", "promote", "discard", "deployments"}},
	{"Checks", []string{"lint", "diff", "explain", "test", "verify", "check"}},
	{"Lookups, exports and traffic", []string{"lookup", "export", "hits", "misses", "suggest"}},
	{"Keys and tokens", []string{"key", "token", "login", "logout"}},
	{"Members, users and the audit log", []string{"member", "user", "audit"}},
	{"Delivery", []string{"sync", "agents", "webhook"}},
	{"The server", []string{"serve", "quickstart", "version", "help"}},
}

// helpGroupOf returns the title of the usage text's heading that lists
// command name.
func helpGroupOf(name string) string {
	w, _, _ := strings.Cut(name, " ")
	for _, g := range helpGroups {
		if slices.Contains(g.words, w) {
			return g.title
		}
	}
	return "Other"
}

// usage returns the usage text: every command of the table, one line per
// form, under a heading per task (helpGroups).
func usage() string {
	var b strings.Builder
	b.WriteString(`redirects: redirect rule lookup and export service

Usage: redirects [--db URL] COMMAND [flags]
       redirects --api URL --token TOKEN COMMAND [flags]   (through the management API)
       redirects --version

Commands, by task:
`)
	titles := make([]string, 0, len(helpGroups)+1)
	for _, g := range helpGroups {
		titles = append(titles, g.title)
	}
	for _, title := range append(titles, "Other") {
		first := true
		for _, cm := range commands {
			if cm.run == nil || helpGroupOf(cm.name) != title {
				continue
			}
			if first {
				fmt.Fprintf(&b, "\n%s:\n", title)
				first = false
			}
			lines := usageLines(cm.name)
			// Only this command's own forms: its subcommands follow it.
			lines = lines[:max(len(cm.synopsis), 1)]
			for i, line := range lines {
				line = "  " + line
				if i == 0 && cm.remark != "" {
					line += strings.Repeat(" ", max(3, remarkColumn-len(line))) + cm.remark
				}
				fmt.Fprintln(&b, line)
			}
		}
	}
	var local []string
	for _, cm := range commands {
		if cm.needsDB {
			local = append(local, cm.name)
		}
	}
	b.WriteString(`
Every command takes --db URL (or REDIRECTS_DB; default sqlite:redirects.db).
Through --api, every command runs but these, which need the database:
`)
	b.WriteString(wrap(strings.Join(local, ", ")+".", "  ", 78))
	b.WriteString(`Run "redirects COMMAND --help" for what a command does, its flags and an example.
`)
	return b.String()
}
