package main

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"io"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
)

// helpCommands is "help": the usage, or a command's help.
var helpCommands = []command{
	{
		name:     "help",
		synopsis: []string{"[COMMAND]"},
		remark:   "the usage, or a command's help (also COMMAND --help)",
		summary:  "print the usage, or a command's help",
		example:  "redirects help rule import",
		run:      (*cmd).help,
	},
}

// help prints the usage, or the help of the command args name.
func (c *cmd) help(ctx context.Context, args []string) error {
	if len(args) == 0 {
		fmt.Fprint(c.m.Stdout, usage())
		return nil
	}
	if len(args) == 1 && isHelp(args[0]) {
		printHelp(c.m.Stdout, "help", nil)
		return nil
	}
	// "help COMMAND" is "COMMAND --help".
	return c.m.run(ctx, append(args[:len(args):len(args)], "--help"))
}

// printHelp writes a command's help: what it does, its synopsis, its
// subcommands, its flags with their defaults, and an example.
func printHelp(w io.Writer, name string, fs *flag.FlagSet) {
	d := findCommand(name)
	fmt.Fprintf(w, "redirects %s: %s\n\nUsage:\n", name, d.summary)
	for _, s := range usageLines(name) {
		fmt.Fprintf(w, "  redirects %s\n", s)
	}
	if d.about != "" {
		fmt.Fprintf(w, "\n%s\n", d.about)
	}
	if d.needsDB {
		fmt.Fprintf(w, "\nNeeds the database (--db): %s.\n", cmp.Or(d.whyDB, "it cannot run through the management API (--api)"))
	}
	if subs := subcommands(name); len(subs) > 0 {
		fmt.Fprint(w, "\nSubcommands:\n")
		tw := tabwriter.NewWriter(w, 0, 4, 4, ' ', 0)
		for _, sub := range subs {
			fmt.Fprintf(tw, "  %s\t%s\n", strings.TrimPrefix(sub.name, name+" "), sub.summary)
		}
		tw.Flush()
	}
	if fs != nil && len(flagNames(fs)) > 0 {
		fmt.Fprint(w, "\nFlags:\n")
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		for _, names := range flagLines(fs) {
			f := fs.Lookup(names[len(names)-1])
			typ, usage := flag.UnquoteUsage(f)
			if def := f.DefValue; def != "" && def != "false" && def != "0" {
				if typ == "string" {
					def = strconv.Quote(def)
				}
				usage += " (default " + def + ")"
			}
			arg := flagArg(d, f.Name, typ)
			if arg != "" {
				arg = " " + arg
			}
			for i, n := range names {
				// A one-letter flag is typed with one dash, as the
				// synopsis writes it; the others with two.
				if len(n) == 1 {
					names[i] = "-" + n
				} else {
					names[i] = "--" + n
				}
			}
			fmt.Fprintf(tw, "  %s%s\t%s\n", strings.Join(names, ", "), arg, usage)
		}
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
	fmt.Fprintf(w, "redirects %s: %s\n\nUsage: redirects %s COMMAND [flags]\n\nCommands:\n", group, findCommand(group).summary, group)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, sub := range subcommands(group) {
		fmt.Fprintf(tw, "  %s\t%s\n", strings.TrimPrefix(sub.name, group+" "), sub.summary)
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

// flagNames returns the flags of fs as they are typed, with "--".
func flagNames(fs *flag.FlagSet) []string {
	var out []string
	fs.VisitAll(func(f *flag.Flag) { out = append(out, "--"+f.Name) })
	return out
}

// flagLines returns the flags of fs one help line each, in the order of
// their names: flags that set the same variable (plan's -f and --file)
// share a line, the shortest name first.
func flagLines(fs *flag.FlagSet) [][]string {
	var lines [][]string
	var values []flag.Value
	fs.VisitAll(func(f *flag.Flag) {
		for i, v := range values {
			if sameValue(v, f.Value) {
				lines[i] = append(lines[i], f.Name)
				slices.SortStableFunc(lines[i], func(a, b string) int { return cmp.Compare(len(a), len(b)) })
				return
			}
		}
		lines = append(lines, []string{f.Name})
		values = append(values, f.Value)
	})
	return lines
}

// sameValue reports whether two flags set the same variable: the flag
// package's values are pointers to it.
func sameValue(a, b flag.Value) bool {
	va, vb := reflect.ValueOf(a), reflect.ValueOf(b)
	return va.Type() == vb.Type() && va.Kind() == reflect.Pointer && va.Pointer() == vb.Pointer()
}

// goTypes are the names flag.UnquoteUsage gives a flag's argument when its
// usage names none: Go's, which mean nothing to a user.
var goTypes = []string{"string", "int", "int64", "uint", "uint64", "float64", "float", "duration", "value"}

// flagArg returns what a flag's help line calls its argument: the name its
// usage gives (typ, from flag.UnquoteUsage), else the word the command's
// synopsis writes after it ("--project P"), else N for a number, DURATION
// for a duration, or the flag's name in capitals; "" for a flag that takes
// none.
func flagArg(d *command, name, typ string) string {
	if typ == "" || !slices.Contains(goTypes, typ) {
		return typ
	}
	re := regexp.MustCompile(`--` + regexp.QuoteMeta(name) + `[ =]([^\s\[\]-][^\s\[\]]*)`)
	for _, s := range d.synopsis {
		if m := re.FindStringSubmatch(s); m != nil {
			return m[1]
		}
	}
	switch typ {
	case "int", "int64", "uint", "uint64", "float64", "float":
		return "N"
	case "duration":
		return "DURATION"
	}
	return strings.ToUpper(name)
}
