package main_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"redirects"
	main "redirects/cmd/redirects"
)

// With REDIRECTS_TEST_E2E_STORE=api the suite runs its commands through
// the management API of a real "redirects serve" (--manage-addr) on the
// test's SQLite file, as a CLI with --api and --token does: the same
// commands and the same assertions as on the database. Each runs with an
// owner token of the organization it addresses, made on the database the
// first time it is needed. What only the database can do stays on it: the
// commands marked as needing it (serve, quickstart, the operator's org and
// user commands, token create), those that open no store, the operator's
// views across organizations (orgOf), and the commands the tests run as
// processes (c.command: signals, kill -9, several writers on one file). A
// command that fails through the API fails the test: nothing falls back
// to the database.

// apiMode reports whether the suite runs through the management API.
func apiMode() bool { return os.Getenv("REDIRECTS_TEST_E2E_STORE") == "api" }

// skipInAPIMode skips a test that checks the database mode itself.
func skipInAPIMode(t *testing.T, why string) {
	t.Helper()
	if apiMode() {
		t.Skip("REDIRECTS_TEST_E2E_STORE=api: " + why)
	}
}

// actorKind is the kind of actor the audit log records for the commands
// the cli runs: the operating-system user's "cli" on a database, the
// management token's "token" through the API.
func (c *cli) actorKind() string {
	if c.api != nil {
		return string(redirects.ActorToken)
	}
	return string(redirects.ActorCLI)
}

// apiServer is the cli's management API, started on first use.
type apiServer struct {
	once sync.Once
	url  string
	err  string

	mu       sync.Mutex
	tokens   map[string]string // organization ID -> an owner token of it
	tokenIDs []string          // the IDs of those tokens
}

// onDB reports whether a command runs on the database in api mode: one
// marked as needing it (serve, quickstart, the operator's org and user
// commands, token create: main.CommandNeedsDB), or one that opens no
// store.
func onDB(name string) bool {
	return main.CommandNeedsDB(name) || slices.Contains([]string{"help", "version", "login", "logout", "sync"}, name)
}

// acrossOrgs are the commands that, without --org, list every
// organization's objects: an operator's view, which a token (one
// organization's) has only where there is one organization. With more,
// they run on the database.
var acrossOrgs = []string{"org list", "project list"}

// commandOf returns the command a command line runs ("rule add"), the
// arguments after its name, and whether the line picks its store itself
// (--db, --api or --token anywhere). A line that names no command (a
// group, a typo) gives "".
func commandOf(args []string) (name string, rest []string, own bool) {
	commandNames := main.CommandNames()
	for _, a := range args {
		if !strings.HasPrefix(a, "-") {
			continue
		}
		a = strings.TrimLeft(a, "-")
		if k, _, _ := strings.Cut(a, "="); k == "db" || k == "api" || k == "token" {
			own = true
		}
	}
	i := 0
	for i < len(args) && strings.HasPrefix(args[i], "-") {
		a := strings.TrimLeft(args[i], "-")
		i++
		if a == "db" || a == "api" || a == "token" {
			i++
		}
	}
	if i >= len(args) {
		return "", nil, own
	}
	if i+1 < len(args) && slices.Contains(commandNames, args[i]+" "+args[i+1]) {
		return args[i] + " " + args[i+1], args[i+2:], own
	}
	if slices.Contains(commandNames, args[i]) {
		return args[i], args[i+1:], own
	}
	return "", nil, own
}

// flagValue returns the value of --name (or -name) in args, or "".
func flagValue(args []string, name string) string {
	for i, a := range args {
		if !strings.HasPrefix(a, "-") {
			continue
		}
		a = strings.TrimLeft(a, "-")
		if v, ok := strings.CutPrefix(a, name+"="); ok {
			return v
		}
		if a == name && i+1 < len(args) {
			return args[i+1]
		}
	}
	return ""
}

// positional returns the first argument of rest that is neither a flag
// nor a flag's value, for the commands whose flags all take values, or "".
func positional(rest []string) string {
	for i := 0; i < len(rest); i++ {
		if strings.HasPrefix(rest[i], "-") {
			if !strings.Contains(rest[i], "=") && !slices.Contains([]string{"--json", "-json", "--yes", "--csv"}, rest[i]) {
				i++
			}
			continue
		}
		return rest[i]
	}
	return ""
}

// apiEnv returns the environment that runs args through the management
// API, or nil for a command that runs on the database.
func (c *cli) apiEnv(args []string) map[string]string {
	c.t.Helper()
	if c.api == nil {
		return nil
	}
	name, rest, own := commandOf(args)
	if own || name == "" || onDB(name) || slices.ContainsFunc(rest, func(a string) bool {
		return a == "--help" || a == "-help" || a == "-h"
	}) {
		return nil
	}
	org := c.orgOf(name, rest)
	if org == "" {
		return nil
	}
	return map[string]string{"REDIRECTS_API": c.apiURL(), "REDIRECTS_TOKEN": c.ownerToken(org)}
}

// db opens the test's database for the harness's own look-ups.
func (c *cli) openDB() main.Database {
	c.t.Helper()
	s, err := main.OpenStore(context.Background(), c.db, nil)
	if err != nil {
		c.t.Fatalf("api mode: opening %s: %v", c.db, err)
	}
	return s
}

// orgOf returns the organization whose token runs a command: the one its
// --org names, its --project's, its webhook's, its project file's, or the
// only one there is. One that names an organization or project that does
// not exist runs with the token of another, as a user's would, and the
// API answers for the missing one. "" runs the command on the database:
// one that lists every organization's objects where there are several,
// audit without --org or --project (the operator's log, users' entries
// included), and any command while there is no organization (hence no
// token), the database file not existing included.
func (c *cli) orgOf(name string, rest []string) string {
	c.t.Helper()
	ctx := context.Background()
	if path, ok := strings.CutPrefix(c.db, "sqlite:"); ok {
		if _, err := os.Stat(path); err != nil {
			return ""
		}
	}
	s := c.openDB()
	defer s.Close()
	org, project := flagValue(rest, "org"), flagValue(rest, "project")
	switch {
	case org != "":
	case strings.HasPrefix(name, "webhook ") && name != "webhook create" && name != "webhook list":
		id := positional(rest)
		type webhooks interface {
			FindWebhook(context.Context, string) (*redirects.WebhookEndpoint, error)
			FindWebhookDelivery(context.Context, string) (*redirects.WebhookDelivery, error)
		}
		if ws, ok := s.(webhooks); ok {
			if d, err := ws.FindWebhookDelivery(ctx, id); err == nil {
				id = d.EndpointID
			}
			if e, err := ws.FindWebhook(ctx, id); err == nil {
				org = e.OrgID
			}
		}
	case name == "plan" || name == "apply":
		file := flagValue(rest, "f")
		if file == "" {
			file = flagValue(rest, "file")
		}
		var p struct {
			Project string `json:"project"`
		}
		if data, err := os.ReadFile(file); err == nil && json.Unmarshal(data, &p) == nil {
			project = p.Project
		}
	}
	if org == "" && project != "" {
		if p, err := s.FindProjectByID(ctx, project); err == nil {
			org = p.OrgID
		}
	}
	if org != "" {
		if _, err := s.FindOrgByID(ctx, org); err == nil {
			return org
		}
	}
	orgs, err := s.FindOrgs(ctx)
	if err != nil {
		c.t.Fatalf("api mode: listing the organizations: %v", err)
	}
	named := org != "" || project != ""
	switch {
	case len(orgs) == 0:
		return "" // no organization, so no token: only the database can answer
	case name == "audit" && !named:
		return "" // the operator's log of every organization and user
	case len(orgs) == 1:
		return orgs[0].ID
	case slices.Contains(acrossOrgs, name) && !named:
		return ""
	case named && len(orgs) > 0:
		return orgs[0].ID
	}
	c.t.Fatalf("api mode: cannot tell which organization's token runs %q %q (%d organizations)", name, rest, len(orgs))
	return ""
}

// ownerToken returns an owner token of org, made on the database on first
// use.
func (c *cli) ownerToken(org string) string {
	c.t.Helper()
	c.api.mu.Lock()
	defer c.api.mu.Unlock()
	if tok, ok := c.api.tokens[org]; ok {
		return tok
	}
	r := c.execOn(nil, "", "token", "create", "--org", org, "--role", "owner", "--name", "e2e-api")
	if r.code != 0 {
		c.t.Fatalf("api mode: creating an owner token of %s: exit %d: %s", org, r.code, r.stderr)
	}
	tok := strings.TrimSpace(r.stdout)
	c.api.tokens[org] = tok
	id := regexp.MustCompile(`created management token (\S+) `).FindStringSubmatch(r.stderr)
	if id == nil {
		c.t.Fatalf("api mode: token create did not name the token: %q", r.stderr)
	}
	c.api.tokenIDs = append(c.api.tokenIDs, id[1])
	return tok
}

// withoutOwnTokens returns a token list without the tokens api mode made
// for itself (none in the other modes), so that a test checks its own.
func withoutOwnTokens[T any](c *cli, tokens []T, id func(T) string) []T {
	if c.api == nil {
		return tokens
	}
	c.api.mu.Lock()
	defer c.api.mu.Unlock()
	return slices.DeleteFunc(tokens, func(t T) bool { return slices.Contains(c.api.tokenIDs, id(t)) })
}

var manageAddrLine = regexp.MustCompile(`msg="management API serving" addr=(\S+)`)

// apiURL returns the management API's address, starting the server on the
// test's database on first use. It stops when the test ends.
func (c *cli) apiURL() string {
	c.t.Helper()
	a := c.api
	a.once.Do(func() {
		var logs syncBuffer
		m := c.newMain(nil)
		m.Stdout, m.Stderr = &logs, &logs
		// The tests start the nodes that send webhooks, and watch them.
		m.SendNoWebhooks()
		ready := make(chan struct{})
		m.Ready = func(string, string) { close(ready) }
		ctx, cancel := context.WithCancel(context.Background())
		exited := make(chan int, 1)
		go func() {
			exited <- m.Run(ctx, []string{"serve", "--addr", "127.0.0.1:0", "--admin-addr", "", "--engine", "net/http", "--manage-addr", "127.0.0.1:0"})
		}()
		c.t.Cleanup(func() {
			cancel()
			select {
			case <-exited:
			case <-time.After(15 * time.Second):
				c.t.Errorf("api mode: the management server did not stop within 15 s; logs:\n%s", logs.String())
			}
		})
		select {
		case <-ready:
		case code := <-exited:
			a.err = fmt.Sprintf("serve exited with %d before listening; logs:\n%s", code, logs.String())
			return
		case <-time.After(15 * time.Second):
			a.err = "serve did not start in 15 s; logs:\n" + logs.String()
			return
		}
		match := manageAddrLine.FindStringSubmatch(logs.String())
		if match == nil {
			a.err = "serve did not log its management address; logs:\n" + logs.String()
			return
		}
		a.url = "http://" + match[1]
	})
	if a.err != "" {
		c.t.Fatalf("api mode: %s", a.err)
	}
	return a.url
}

// TestE2EStoreMode checks the suite's mode itself: in api mode the
// commands a test runs reach the database through the management API (the
// audit log names the token that ran them), elsewhere the CLI writes it;
// and a command line is read as the mode routes it.
func TestE2EStoreMode(t *testing.T) {
	for _, tc := range []struct {
		args []string
		name string
		own  bool
	}{
		{[]string{"token", "list", "--org", "org_x"}, "token list", false},
		{[]string{"rule", "add", "--project", "p", "--source", "/a"}, "rule add", false},
		{[]string{"--db", "sqlite:x", "rule", "list", "--project", "p"}, "rule list", true},
		{[]string{"rule", "list", "--project", "p", "--db=sqlite:x"}, "rule list", true},
		{[]string{"--api", "http://x", "--token", "t", "deployments", "--project", "p"}, "deployments", true},
		{[]string{"test", "--project", "p", "cases.csv"}, "test", false},
		{[]string{"test", "set", "--project", "p", "cases.csv"}, "test set", false},
		{[]string{"rule", "lsit"}, "", false},
	} {
		if name, _, own := commandOf(tc.args); name != tc.name || own != tc.own {
			t.Errorf("commandOf(%q) = %q, own %v; want %q, %v", tc.args, name, own, tc.name, tc.own)
		}
	}
	for _, name := range []string{"serve", "quickstart", "org create", "user create", "token create", "help", "sync"} {
		if !onDB(name) {
			t.Errorf("%s would run through the API", name)
		}
	}
	for _, name := range []string{"rule add", "deploy", "token list", "member add", "audit", "webhook create", "export"} {
		if onDB(name) {
			t.Errorf("%s would run on the database in api mode", name)
		}
	}

	c := newCLI(t)
	org, p := c.setup()
	c.ok("rule", "add", "--project", p, "--source", "/old", "--destination", "/new")
	c.ok("deploy", "--project", p)
	a := openAccounts(t, c)
	es, err := a.FindAudit(context.Background(), redirects.AuditFilter{OrgID: org, Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, e := range es {
		kinds = append(kinds, e.Action+" by "+string(e.Actor.Kind))
	}
	// project create, rule create, deployment create: made by the mode's
	// actor; the org's creation is the operator's, on the database.
	want := []string{"deployment.create by " + c.actorKind(), "rule.create by " + c.actorKind(), "project.create by " + c.actorKind()}
	if !slices.Equal(kinds[:min(3, len(kinds))], want) {
		t.Fatalf("audit log %v, want it to start %v", kinds, want)
	}
}
