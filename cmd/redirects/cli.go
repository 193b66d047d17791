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
	"strconv"
	"strings"
	"sync"

	"redirects"
	"redirects/export"
	"redirects/internal/version"
	"redirects/postgres"
	"redirects/service"
	"redirects/sqlite"
	"redirects/webhook"
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
	// sendsNoWebhooks keeps serve from sending the webhooks' outbox. Only
	// tests set it (export_test.go): the management server the end-to-end
	// suite runs its commands through must not race the nodes a test
	// starts to deliver them.
	sendsNoWebhooks bool

	// openMu makes open safe to call from the goroutines serve starts
	// (the edge's reconnection, the scheduled checks' retries).
	openMu sync.Mutex
	store  redirects.Store
	// db is store when it is a database (opened from --db), with the
	// notices of its events when it pushes them: what serve answers from.
	db      Database
	notices redirects.Notifier
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

// exitStatus ends a command that ran well with another exit code and no
// message: plan's 2 for "something would change".
type exitStatus struct{ code int }

func (e *exitStatus) Error() string { return "exit status " + strconv.Itoa(e.code) }

// Run runs one command line and returns the process exit code.
func (m *Main) Run(ctx context.Context, args []string) int {
	defer m.Close()
	m.command = ""
	err := m.run(ctx, args)
	if err == nil {
		return exitOK
	}
	var ue *usageError
	var es *exitStatus
	switch {
	case errors.Is(err, flag.ErrHelp):
		return exitOK
	case errors.As(err, &es):
		return es.code
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
		m.store, m.db, m.notices = nil, nil, nil
		return err
	}
	return nil
}

func (m *Main) run(ctx context.Context, args []string) error {
	// Global flags may come before the command.
	global := flag.NewFlagSet("redirects", flag.ContinueOnError)
	global.SetOutput(io.Discard)
	dbURL := global.String("db", "", "database URL")
	apiURL := global.String("api", "", "management API URL")
	token := global.String("token", "", "management token")
	showVersion := global.Bool("version", false, "print the version and exit")
	if err := global.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(m.Stdout, usage())
			return err
		}
		return usagef("%s", flagError(err, args, flagNames(global)))
	}
	args = global.Args()
	if *showVersion {
		fmt.Fprintln(m.Stdout, version.Get())
		return nil
	}
	if len(args) == 0 {
		fmt.Fprint(m.Stderr, usage())
		return usagef("no command given")
	}
	c := &cmd{m: m, cfg: readConfig(m.Getenv)}
	c.cfg.db = *dbURL
	c.cfg.api, c.cfg.token = *apiURL, *token
	// Every change a command makes is recorded in the audit log as made
	// by the operating-system user who ran it.
	ctx = redirects.WithActor(ctx, cliActor(&c.cfg))
	// Against the database the command line may do anything; through the
	// management API the server authorizes the token.
	ctx = localContext(ctx)
	return c.dispatch(ctx, args)
}

// cmd carries what every command needs.
type cmd struct {
	m *Main
	// cfg is the run's configuration: the environment, then the flags.
	cfg config
	// manage holds the management listener's flags of serve and
	// quickstart.
	manage *manageOptions
	// command is the command being run: open refuses to create a
	// database for a command that only reads.
	command *command
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
//
// A command that runs through the management API also takes --api and
// --token, after its name as before it, so that its help shows how to run
// it remotely; their defaults are the global flags' values, which its
// help does not print (a token is a secret).
func (c *cmd) flags(name string) *flag.FlagSet {
	fs := c.newFlagSet(name)
	fs.StringVar(&c.cfg.db, "db", c.cfg.db, "database `URL`: sqlite:PATH or postgres://... (or REDIRECTS_DB; default "+DefaultDB+")")
	if cm := findCommand(name); cm != nil && !cm.needsDB {
		fs.StringVar(&c.cfg.api, "api", c.cfg.api, "run through the management API at `URL` (or REDIRECTS_API, or \"redirects login\")")
		fs.StringVar(&c.cfg.token, "token", c.cfg.token, "the management `TOKEN` for --api (or REDIRECTS_TOKEN)")
		fs.Lookup("api").DefValue, fs.Lookup("token").DefValue = "", ""
	}
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
	return pos, checkPositional(pos, positional)
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
	return pos, checkPositional(pos, positional)
}

// notText are the flags whose values are not text for the store: files,
// commands, URLs of the database and a path to look up, which may be any
// bytes the system takes.
var notText = map[string]bool{"db": true, "config": true, "file": true, "f": true, "out": true, "errors-file": true,
	"junit": true, "tls-cert": true, "tls-key": true, "haproxy-socket": true, "haproxy-map": true, "reload": true,
	"check": true, "path": true}

// checkFlags refuses a flag value, other than notText's, holding a NUL
// byte or invalid UTF-8 (redirects.CheckText), naming the flag: the
// values of the others end in a store, which cannot keep them as given.
func checkFlags(fs *flag.FlagSet) error {
	var err error
	fs.Visit(func(f *flag.Flag) {
		if err == nil && !notText[f.Name] {
			err = redirects.CheckText("--"+f.Name, f.Value.String())
		}
	})
	return err
}

// checkPositional is checkFlags for the positional arguments, named as
// the synopsis names them; a FILE is not text.
func checkPositional(pos, names []string) error {
	for i, p := range pos {
		if i < len(names) && strings.Contains(names[i], "FILE") {
			continue
		}
		if err := redirects.CheckText(names[min(i, len(names)-1)], p); err != nil {
			return err
		}
	}
	return nil
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
			return nil, usagef("%s: %s", fs.Name(), flagError(err, args, flagNames(fs)))
		}
		args = fs.Args()
		if len(args) == 0 {
			break
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
	return pos, checkFlags(fs)
}

// flagError is the message of a flag package's error from parsing args.
// A flag that is not defined is echoed as it was typed (the package
// writes it with one dash whatever was typed), followed by the nearest
// flag of names, if one is close.
func flagError(err error, args, names []string) string {
	name, ok := strings.CutPrefix(err.Error(), "flag provided but not defined: -")
	if !ok {
		return err.Error()
	}
	typed := "-" + name
	for _, a := range args {
		if a == "--" {
			break
		}
		if n, _, _ := strings.Cut(a, "="); n == "-"+name || n == "--"+name {
			typed = n
			break
		}
	}
	return "flag provided but not defined: " + typed + suggest("--"+name, names)
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

// open opens the database named by --db, REDIRECTS_DB or the default.
// A run against a management API (--api or a profile) has no database:
// open answers the error of a command that needs one.
func (c *cmd) open(ctx context.Context) (Database, error) {
	c.m.openMu.Lock()
	defer c.m.openMu.Unlock()
	if c.m.db != nil {
		return c.m.db, nil
	}
	if cl, err := c.remote(); err != nil || cl != nil {
		if err != nil {
			return nil, err
		}
		return nil, errNeedsDB(c.command)
	}
	if err := c.checkCIStore(); err != nil {
		return nil, err
	}
	s, notices, err := openDatabase(ctx, c.cfg.databaseURL(), c.m.Clock, c.command != nil && c.command.readOnly)
	if err != nil {
		return nil, err
	}
	c.m.store, c.m.db, c.m.notices = s, s, notices
	return s, nil
}

// checkCIStore refuses, in CI (the CI variable that GitHub Actions,
// GitLab CI and most others set), a command that could run through the
// management API when neither the API nor a database is configured and
// the default database file does not exist: there, a new file in the
// job's checkout is never what was meant, and "create one with redirects
// org create" would be the wrong advice. It names the variables to set.
func (c *cmd) checkCIStore() error {
	cf := &c.cfg
	if !cf.ci || cf.db != "" || cf.envDB != "" || c.command == nil || c.command.needsDB {
		return nil
	}
	path := strings.TrimPrefix(DefaultDB, "sqlite:")
	if _, err := os.Stat(path); err == nil {
		return nil
	}
	return redirects.Errorf(redirects.EINVALID, "%s has no management API or database to run on (CI is set, and neither REDIRECTS_API nor REDIRECTS_DB is): "+
		"set REDIRECTS_API and REDIRECTS_TOKEN (a management token, from \"redirects token create\" or the dashboard's Tokens tab), or REDIRECTS_DB", c.command.name)
}

// Database is a store with its account side and the sync agents' reports,
// as sqlite.DB and postgres.DB are: what OpenStore opens.
type Database interface {
	redirects.Store
	redirects.AccountStore
	redirects.AgentStore
	redirects.WebhookStore
	webhook.Store
}

// OpenStore opens the store a database URL names, creating a SQLite file
// that does not exist.
func OpenStore(ctx context.Context, url string, clock redirects.Clock) (Database, error) {
	return openStore(ctx, url, clock, false)
}

// openStore opens the store a database URL names; with mustExist, a SQLite
// file that does not exist is an error.
func openStore(ctx context.Context, url string, clock redirects.Clock, mustExist bool) (Database, error) {
	db, _, err := openDatabase(ctx, url, clock, mustExist)
	return db, err
}

// openDatabase is openStore, and returns the database's notices of its
// events when it pushes them (PostgreSQL), else nil.
func openDatabase(ctx context.Context, url string, clock redirects.Clock, mustExist bool) (Database, redirects.Notifier, error) {
	switch {
	case strings.HasPrefix(url, "sqlite:"):
		path := strings.TrimPrefix(url, "sqlite:")
		path = strings.TrimPrefix(path, "//")
		if path == "" {
			return nil, nil, redirects.Errorf(redirects.EINVALID, "database URL %q names no file; write sqlite:PATH", url)
		}
		open := sqlite.Open
		if mustExist {
			open = sqlite.OpenExisting
		}
		db, err := open(ctx, path)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil, redirects.Errorf(redirects.ENOTFOUND, "database file %s does not exist (create it with a command that writes, "+
				"e.g. \"redirects org create\", or check --db / REDIRECTS_DB)", path)
		}
		if err != nil {
			return nil, nil, fmt.Errorf("open %s: %w", url, err)
		}
		if clock != nil {
			db.Clock = clock
		}
		return db, nil, nil
	case strings.HasPrefix(url, "postgres://"), strings.HasPrefix(url, "postgresql://"):
		db, err := postgres.Open(ctx, url)
		if err != nil {
			return nil, nil, fmt.Errorf("open %s: %w", redact(url), err)
		}
		if clock != nil {
			db.Clock = clock
		}
		return db, db, nil
	}
	return nil, nil, redirects.Errorf(redirects.EINVALID, "database URL %q is neither sqlite:PATH nor postgres://...", redact(url))
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
var builder redirects.Builder = export.Stream

func (c *cmd) printJSON(v any) error {
	enc := json.NewEncoder(c.m.Stdout)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

func (c *cmd) println(s string) {
	fmt.Fprintln(c.m.Stdout, s)
}

// article returns the indefinite article of word: "an append import", "a
// replace import".
func article(word string) string {
	if word != "" && strings.ContainsRune("aeiouAEIOU", rune(word[0])) {
		return "an"
	}
	return "a"
}

func (c *cmd) infof(format string, args ...any) {
	fmt.Fprintf(c.m.Stderr, format+"\n", args...)
}

// services returns the service layer the run names: the management API's
// client with --api (or a profile), else the service layer over the
// database, where the command line may do anything (LocalPrincipal).
func (c *cmd) services(ctx context.Context) (redirects.Services, error) {
	cl, err := c.remote()
	if err != nil {
		return redirects.Services{}, err
	}
	if cl != nil {
		if c.command != nil && c.command.needsDB {
			return redirects.Services{}, errNeedsDB(c.command)
		}
		return cl.Services(), nil
	}
	l, err := c.local(ctx)
	return l.Services, err
}

// local returns the service layer over the database, with the operations
// only the database serves; through the management API it is the error
// of a command that needs the database.
func (c *cmd) local(ctx context.Context) (redirects.LocalServices, error) {
	s, err := c.open(ctx)
	if err != nil {
		return redirects.LocalServices{}, err
	}
	return c.localOver(s), nil
}

// localOver is the service layer over the open database s.
func (c *cmd) localOver(s Database) redirects.LocalServices {
	return service.New(service.Deps{Store: s, Accounts: s, Webhooks: s, Agents: s, Clock: c.m.Clock, Builder: builder}).Local()
}

// localContext is ctx with the principal of the command line run against
// the database, which may do anything.
func localContext(ctx context.Context) context.Context {
	return redirects.WithPrincipal(ctx, redirects.LocalPrincipal())
}
