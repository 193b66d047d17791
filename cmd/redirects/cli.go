package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sort"
	"strings"

	"redirects"
	"redirects/export"
	"redirects/internal/version"
	"redirects/postgres"
	"redirects/sqlite"
)

// Exit codes of every command.
const (
	exitOK    = 0
	exitError = 1
	exitUsage = 2
)

// DefaultDB is the database used when neither --db nor REDIRECTS_DB is set.
const DefaultDB = "sqlite:redirects.db"

// Main is the program: its streams and environment are fields so that tests
// run it in-process exactly as the binary does.
type Main struct {
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	Getenv func(string) string
	Clock  redirects.Clock
	// Ready, if set, is called once "serve" or "quickstart" listens, with
	// the edge and admin addresses (admin "" when there is none): a test
	// that starts a server on 127.0.0.1:0 learns its ports from it.
	Ready func(edgeAddr, adminAddr string)

	store redirects.Store
	// command is the command or group being run, once known: a usage
	// error points to its help.
	command string
}

// NewMain returns a Main wired to the process's streams and environment.
func NewMain() *Main {
	return &Main{
		Stdin:  os.Stdin,
		Stdout: os.Stdout,
		Stderr: os.Stderr,
		Getenv: os.Getenv,
		Clock:  redirects.SystemClock{},
	}
}

// usageError is a command line that does not parse: exit 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...)}
}

const usageText = `redirects: redirect rule lookup and export service

Usage: redirects [--db URL] COMMAND [flags]
       redirects --version

Commands:
  org create --name NAME --tier free|pro|enterprise [--rate-limit N|unlimited] [--monthly-quota N|unlimited]
  org update ORG_ID [--name NAME] [--tier T] [--rate-limit N|unlimited|default] [--monthly-quota N|unlimited|default]
  org list [--json]
  org delete ORG_ID --confirm NAME                 deletes its projects and everything of theirs
  project create --org ORG_ID --name NAME [--host H]...
  project list [--org ORG_ID] [--json]
  project rename --project P --name NAME
  project update --project P [--name NAME] [--host H]... [--clear-hosts] [--keep-exports N] [--shrink-limit PERCENT]
  project delete --project P --confirm NAME        deletes its rules, keys, deployments and exports
  rule add --project P --source S --destination D [--status 301|302] [--match exact|starts_with] [--priority N]
  rule import --project P [--mode append|upsert|replace] [--replace] [--dry-run] [--json] [--errors-file FILE] FILE|-
  rule list --project P [--json]
  rule list --project P [--search Q] [--match M] [--status N] [--sort S] [--limit N] [--after CURSOR] [--json]
  rule update --project P RULE_ID [--source S] [--destination D] [--status N] [--match M] [--priority N] [--revision N]
  rule delete --project P RULE_ID [--revision N]
  rule delete --project P --all-matching [--search Q] [--match M] [--status N] --yes
  key create --project P [--test] [--name LABEL]
  key list --project P [--json]
  key revoke --project P KEY_ID_OR_FULL_KEY
  deploy --project P [--message TEXT] [--from-version N] [--force --reason TEXT] [--allow-shrink]
  deployments --project P [--json]
  lookup --project P --path PATH [--version N]
  export --project P --format FORMAT [--version N]
  user create --email EMAIL [--operator] [--password-stdin]
  user list [--json]
  user disable EMAIL_OR_ID
  user reset-password EMAIL_OR_ID [--password-stdin]
  member add --org ORG_ID --user EMAIL --role owner|editor|viewer
  member list --org ORG_ID [--json]
  member remove --org ORG_ID --user EMAIL
  token create --org ORG_ID --role owner|editor|viewer [--name LABEL] [--expires DURATION] [--user EMAIL]
  token list --org ORG_ID [--json]
  token revoke --org ORG_ID TOKEN_ID
  audit [--org ORG_ID] [--project P] [--actor A] [--action A] [--since T] [--until T] [--limit N] [--csv|--json]
  lint --project P [--version N|draft|live] [--host H]... [--json]
  diff --project P [--from N|draft|live] [--to N|draft|live] [--max-paths N] [--json]
  explain --project P --path PATH [--version N|draft|live] [--json]
  test --project P [FILE] [--version N|draft|live] [--junit FILE] [--host H]... [--json]
  test set --project P FILE|-                      store the test file every deploy runs
  verify --base-url URL --project P [--version N|draft|live] [--concurrency N] [--timeout D] [--json]
  hits --project P [--stale-since T] [--json]           hits and last hit of each draft rule
  misses --project P [--limit N] [--json]               the paths asked for most that no rule answered
  serve [--addr HOST:PORT] [--admin-addr HOST:PORT] [--redis URL] [--log-level LEVEL] [--log-format text|json] [--engine evhttp|net/http] [--manage-addr HOST:PORT [--tls-cert FILE --tls-key FILE]]
  quickstart [--addr HOST:PORT] [--admin-addr HOST:PORT] [--manage-addr HOST:PORT] [--log-format text|json]   demo data in a local database, then serve
  version                                                  the version, commit and build date (also --version)
  help [COMMAND]                                           the usage, or a command's help (also COMMAND --help)

Every command takes --db URL (or REDIRECTS_DB; default sqlite:redirects.db).
Run "redirects COMMAND --help" for what a command does, its flags and an example.
`

// Run runs one command line and returns the process exit code.
func (m *Main) Run(ctx context.Context, args []string) int {
	defer m.Close()
	m.command = ""
	err := m.run(ctx, args)
	if err == nil {
		return exitOK
	}
	var ue *usageError
	switch {
	case errors.Is(err, flag.ErrHelp):
		return exitOK
	case errors.As(err, &ue):
		help := "redirects --help"
		if m.command != "" {
			help = "redirects " + m.command + " --help"
		}
		fmt.Fprintf(m.Stderr, "redirects: %s\nRun %q for usage.\n", ue.msg, help)
		return exitUsage
	}
	msg := redirects.ErrorMessage(err)
	if redirects.ErrorCode(err) == redirects.EINTERNAL {
		msg = err.Error()
	}
	fmt.Fprintf(m.Stderr, "redirects: %s\n", msg)
	return exitError
}

// Close releases the store, if a command opened one.
func (m *Main) Close() error {
	if m.store != nil {
		err := m.store.Close()
		m.store = nil
		return err
	}
	return nil
}

func (m *Main) run(ctx context.Context, args []string) error {
	// Global flags may come before the command.
	global := flag.NewFlagSet("redirects", flag.ContinueOnError)
	global.SetOutput(io.Discard)
	dbURL := global.String("db", "", "database URL")
	showVersion := global.Bool("version", false, "print the version and exit")
	if err := global.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(m.Stdout, usageText)
			return err
		}
		return usagef("%v%s", err, suggestFlag(err, flagNames(global)))
	}
	args = global.Args()
	if *showVersion {
		fmt.Fprintln(m.Stdout, version.Get())
		return nil
	}
	if len(args) == 0 {
		fmt.Fprint(m.Stderr, usageText)
		return usagef("no command given")
	}
	// Every change a command makes is recorded in the audit log as made
	// by the operating-system user who ran it.
	ctx = redirects.WithActor(ctx, m.cliActor())
	c := &cmd{m: m, db: *dbURL}
	name, rest := args[0], args[1:]
	switch name {
	case "help":
		if len(rest) == 0 {
			fmt.Fprint(m.Stdout, usageText)
			return nil
		}
		if len(rest) == 1 && isHelp(rest[0]) {
			printHelp(m.Stdout, "help", nil)
			return nil
		}
		// "help COMMAND" is "COMMAND --help".
		return m.run(ctx, append(rest[:len(rest):len(rest)], "--help"))
	case "version":
		fs := c.newFlagSet("version")
		if _, err := parse(fs, rest); err != nil {
			return err
		}
		fmt.Fprintln(m.Stdout, version.Get())
		return nil
	case "org":
		return c.sub(ctx, "org", rest, map[string]func(context.Context, []string) error{
			"create": c.orgCreate, "update": c.orgUpdate, "list": c.orgList, "delete": c.orgDelete,
		})
	case "project":
		return c.sub(ctx, "project", rest, map[string]func(context.Context, []string) error{
			"create": c.projectCreate, "list": c.projectList, "rename": c.projectRename, "update": c.projectUpdate, "delete": c.projectDelete,
		})
	case "rule":
		return c.sub(ctx, "rule", rest, map[string]func(context.Context, []string) error{
			"add": c.ruleAdd, "import": c.ruleImport, "list": c.ruleList, "update": c.ruleUpdate, "delete": c.ruleDelete,
		})
	case "key":
		return c.sub(ctx, "key", rest, map[string]func(context.Context, []string) error{
			"create": c.keyCreate, "list": c.keyList, "revoke": c.keyRevoke,
		})
	case "user":
		return c.sub(ctx, "user", rest, map[string]func(context.Context, []string) error{
			"create": c.userCreate, "list": c.userList, "disable": c.userDisable, "reset-password": c.userResetPassword,
		})
	case "member":
		return c.sub(ctx, "member", rest, map[string]func(context.Context, []string) error{
			"add": c.memberAdd, "list": c.memberList, "remove": c.memberRemove,
		})
	case "token":
		return c.sub(ctx, "token", rest, map[string]func(context.Context, []string) error{
			"create": c.tokenCreate, "list": c.tokenList, "revoke": c.tokenRevoke,
		})
	case "audit":
		return c.audit(ctx, rest)
	case "deploy":
		return c.deploy(ctx, rest)
	case "deployments":
		return c.deployments(ctx, rest)
	case "lookup":
		return c.lookup(ctx, rest)
	case "export":
		return c.export(ctx, rest)
	case "lint":
		return c.lint(ctx, rest)
	case "diff":
		return c.diff(ctx, rest)
	case "explain":
		return c.explain(ctx, rest)
	case "test":
		return c.test(ctx, rest)
	case "verify":
		return c.verify(ctx, rest)
	case "hits":
		return c.hits(ctx, rest)
	case "misses":
		return c.misses(ctx, rest)
	case "serve":
		return c.serve(ctx, rest)
	case "quickstart":
		return c.quickstart(ctx, rest)
	}
	return usagef("unknown command %q%s", name, suggest(name, topLevelNames()))
}

// cmd carries what every command needs.
type cmd struct {
	m  *Main
	db string
	// manage holds the management listener's flags of serve and
	// quickstart.
	manage *manageOptions
	// name is the command being run, as its flag set is named ("rule
	// list"): open refuses to create a database for a command that only
	// reads.
	name string
}

func (c *cmd) sub(ctx context.Context, group string, args []string, cmds map[string]func(context.Context, []string) error) error {
	c.m.command = group
	if len(args) == 0 {
		printGroupHelp(c.m.Stderr, group)
		return usagef("%s needs a subcommand", group)
	}
	if isHelp(args[0]) {
		if args[0] == "help" && len(args) > 1 {
			// "rule help import" is "rule import --help".
			return c.sub(ctx, group, []string{args[1], "--help"}, cmds)
		}
		printGroupHelp(c.m.Stdout, group)
		return nil
	}
	f, ok := cmds[args[0]]
	if !ok {
		names := make([]string, 0, len(cmds))
		for n := range cmds {
			names = append(names, group+" "+n)
		}
		sort.Strings(names)
		return usagef("unknown command %q%s", group+" "+args[0], suggest(group+" "+args[0], names))
	}
	return f(ctx, args[1:])
}

// newFlagSet returns a flag set whose --help prints the command's help on
// standard output. Errors are reported by parse, once, on standard error.
func (c *cmd) newFlagSet(name string) *flag.FlagSet {
	c.m.command = name
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() { printHelp(c.m.Stdout, name, fs) }
	return fs
}

// flags returns a flag set for a command that also accepts --db.
func (c *cmd) flags(name string) *flag.FlagSet {
	c.name = name
	fs := c.newFlagSet(name)
	fs.StringVar(&c.db, "db", c.db, "database `URL`: sqlite:PATH or postgres://... (or REDIRECTS_DB; default "+DefaultDB+")")
	return fs
}

// parseOptional is parse for a command whose positional arguments may all
// be left out.
func parseOptional(fs *flag.FlagSet, args []string, positional ...string) ([]string, error) {
	pos, err := parseFlags(fs, args)
	if err != nil {
		return nil, err
	}
	if len(pos) > len(positional) {
		return nil, usagef("%s takes at most %s, got %q", fs.Name(), strings.Join(positional, " "), strings.Join(pos, " "))
	}
	return pos, nil
}

// parse parses flags and positional arguments in any order, and checks the
// number of positional arguments.
func parse(fs *flag.FlagSet, args []string, positional ...string) ([]string, error) {
	pos, err := parseFlags(fs, args)
	if err != nil {
		return nil, err
	}
	if len(pos) != len(positional) {
		if len(positional) == 0 {
			return nil, usagef("%s takes no arguments, got %q", fs.Name(), strings.Join(pos, " "))
		}
		return nil, usagef("%s takes %s", fs.Name(), strings.Join(positional, " "))
	}
	return pos, nil
}

// parseFlags parses flags and positional arguments in any order and
// returns the positional ones.
func parseFlags(fs *flag.FlagSet, args []string) ([]string, error) {
	// The flag package calls Usage on every error; only --help prints it.
	help := fs.Usage
	fs.Usage = func() {}
	defer func() { fs.Usage = help }()
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				if help != nil {
					help()
				}
				return nil, err
			}
			return nil, usagef("%s: %v%s", fs.Name(), err, suggestFlag(err, flagNames(fs)))
		}
		args = fs.Args()
		if len(args) == 0 {
			break
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
	return pos, nil
}

// suggestFlag returns a suggestion for the flag that err says is not
// defined, or "".
func suggestFlag(err error, names []string) string {
	name, ok := strings.CutPrefix(err.Error(), "flag provided but not defined: ")
	if !ok {
		return ""
	}
	return suggest("--"+strings.TrimLeft(name, "-"), names)
}

// required checks that each named flag was given a non-empty value.
func required(fs *flag.FlagSet, names ...string) error {
	for _, n := range names {
		if fs.Lookup(n).Value.String() == "" {
			return usagef("%s needs --%s", fs.Name(), n)
		}
	}
	return nil
}

// start parses a command line (flags and the named positional arguments),
// checks the required flags, and opens the store.
func (c *cmd) start(ctx context.Context, fs *flag.FlagSet, args []string, requiredFlags []string, positional ...string) ([]string, redirects.Store, error) {
	pos, err := parse(fs, args, positional...)
	if err != nil {
		return nil, nil, err
	}
	if err := required(fs, requiredFlags...); err != nil {
		return nil, nil, err
	}
	s, err := c.open(ctx)
	if err != nil {
		return nil, nil, err
	}
	return pos, s, nil
}

// isSet reports whether any of the named flags was given.
func isSet(fs *flag.FlagSet, names ...string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) {
		for _, n := range names {
			set = set || f.Name == n
		}
	})
	return set
}

// open opens the store named by --db, REDIRECTS_DB or the default.
func (c *cmd) open(ctx context.Context) (redirects.Store, error) {
	if c.m.store != nil {
		return c.m.store, nil
	}
	url := c.db
	if url == "" {
		url = c.m.Getenv("REDIRECTS_DB")
	}
	if url == "" {
		url = DefaultDB
	}
	s, err := openStore(ctx, url, c.m.Clock, readers[c.name])
	if err != nil {
		return nil, err
	}
	c.m.store = s
	return s, nil
}

// readers are the commands that only read the database: against a SQLite
// file that does not exist they say so rather than create an empty one and
// answer from it, which would hide a mistyped --db.
var readers = map[string]bool{
	"org list": true, "project list": true, "rule list": true, "key list": true,
	"user list": true, "member list": true, "token list": true,
	"deployments": true, "lookup": true, "export": true, "audit": true,
	"lint": true, "diff": true, "explain": true, "test": true, "verify": true,
	"hits": true, "misses": true,
	"serve": true,
}

// Database is a store with its account side, as sqlite.DB and postgres.DB
// are: what OpenStore opens.
type Database interface {
	redirects.Store
	redirects.AccountStore
}

// OpenStore opens the store a database URL names, creating a SQLite file
// that does not exist.
func OpenStore(ctx context.Context, url string, clock redirects.Clock) (Database, error) {
	return openStore(ctx, url, clock, false)
}

// openStore opens the store a database URL names; with mustExist, a SQLite
// file that does not exist is an error.
func openStore(ctx context.Context, url string, clock redirects.Clock, mustExist bool) (Database, error) {
	switch {
	case strings.HasPrefix(url, "sqlite:"):
		path := strings.TrimPrefix(url, "sqlite:")
		path = strings.TrimPrefix(path, "//")
		if path == "" {
			return nil, redirects.Errorf(redirects.EINVALID, "database URL %q names no file; write sqlite:PATH", url)
		}
		open := sqlite.Open
		if mustExist {
			open = sqlite.OpenExisting
		}
		db, err := open(ctx, path)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, redirects.Errorf(redirects.ENOTFOUND, "database file %s does not exist (create it with a command that writes, "+
				"e.g. \"redirects org create\", or check --db / REDIRECTS_DB)", path)
		}
		if err != nil {
			return nil, fmt.Errorf("open %s: %w", url, err)
		}
		if clock != nil {
			db.Clock = clock
		}
		return db, nil
	case strings.HasPrefix(url, "postgres://"), strings.HasPrefix(url, "postgresql://"):
		db, err := postgres.Open(ctx, url)
		if err != nil {
			return nil, fmt.Errorf("open %s: %w", redact(url), err)
		}
		if clock != nil {
			db.Clock = clock
		}
		return db, nil
	}
	return nil, redirects.Errorf(redirects.EINVALID, "database URL %q is neither sqlite:PATH nor postgres://...", redact(url))
}

// redact hides a password in a URL for messages.
func redact(url string) string {
	at := strings.LastIndex(url, "@")
	scheme := strings.Index(url, "://")
	if at < 0 || scheme < 0 || at < scheme {
		return url
	}
	userinfo := url[scheme+3 : at]
	if i := strings.Index(userinfo, ":"); i >= 0 {
		return url[:scheme+3] + userinfo[:i] + ":xxxxx" + url[at:]
	}
	return url
}

// builder is what a deploy renders: the seven export files and the report.
var builder redirects.Builder = export.Render

func (c *cmd) printJSON(v any) error {
	enc := json.NewEncoder(c.m.Stdout)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

func (c *cmd) println(s string) {
	fmt.Fprintln(c.m.Stdout, s)
}

func (c *cmd) infof(format string, args ...any) {
	fmt.Fprintf(c.m.Stderr, format+"\n", args...)
}
