package service_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"redirects"
	"redirects/service"
	"redirects/sqlite"
)

// The fixture of the authorization table (authz_table_test.go): a real
// SQLite file with two organizations and a caller of every kind.

// authzPassword is every fixture user's password.
const authzPassword = "correct horse battery staple"

// authzHash hashes authzPassword once for every fixture: hashing is
// deliberately slow.
var authzHash = sync.OnceValues(func() (string, error) { return redirects.HashPassword(authzPassword) })

// authzCallers are the callers of the matrix, in the order they call.
// Each user caller is signed in (its session is in the context, as the
// doors put it); token callers are management tokens of the fixture's
// organization; "other member" is an owner of the other organization only.
var authzCallers = []string{
	"none",
	"viewer", "editor", "owner",
	"viewer token", "editor token", "owner token",
	"operator", "operator owner",
	"other member",
	"local",
}

// authzUserRoles are the user callers and their role in the fixture's
// organization ("" for none); "other member" is an owner of the other
// one, and "spare" a viewer who calls nothing: members, sessions and
// users operations act on them.
var authzUserRoles = map[string]redirects.Role{
	"viewer": redirects.RoleViewer, "editor": redirects.RoleEditor, "owner": redirects.RoleOwner,
	"operator": "", "operator owner": redirects.RoleOwner,
	"other member": "", "spare": redirects.RoleViewer,
}

// authzFixture is the service over a real SQLite file: an organization
// with a project, a rule, a key, tokens, a webhook with a delivery, an
// applied import, a live and a staged deployment, a miss and an agent
// report; users and tokens of each caller; another organization with a
// project of its own.
type authzFixture struct {
	t    *testing.T
	db   *sqlite.DB
	path string
	// reader reads every table for snapshots, beside the store.
	reader       *sql.DB
	svc          redirects.LocalServices
	now          time.Time
	org, other   *redirects.Org
	project      *redirects.Project
	otherProject *redirects.Project
	rule         *redirects.Rule
	key          *redirects.Key
	// target is a token the editor created: the one RevokeToken revokes.
	target   *redirects.ManagementToken
	tokens   map[redirects.Role]*redirects.ManagementToken
	users    map[string]*redirects.User
	sessions map[string]*redirects.Session
	// spareSecret is the cookie secret of the spare user's session.
	spareSecret string
	webhook     *redirects.WebhookEndpoint
	delivery    string
	undoID      int64
	// theirs are the other organization's objects of the same kinds.
	theirs struct {
		rule     *redirects.Rule
		key      *redirects.Key
		token    *redirects.ManagementToken
		webhook  *redirects.WebhookEndpoint
		delivery string
		undoID   int64
	}
}

// newAuthzTemplate makes the fixture's database once, in a directory
// that lasts as long as t, and closes it: newAuthzFixture copies the file,
// which is much faster than making it again for every row.
func newAuthzTemplate(t *testing.T) *authzFixture {
	t.Helper()
	hash, err := authzHash()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	f := &authzFixture{t: t, path: filepath.Join(t.TempDir(), "redirects.db"), now: time.Date(2026, 3, 14, 15, 9, 26, 0, time.UTC),
		tokens: map[redirects.Role]*redirects.ManagementToken{}, users: map[string]*redirects.User{}, sessions: map[string]*redirects.Session{}}
	if f.db, err = sqlite.Open(ctx, f.path); err != nil {
		t.Fatal(err)
	}
	defer f.db.Close()
	f.db.Clock = fixedClock(f.now)
	f.svc = service.New(service.Deps{Store: f.db, Accounts: f.db, Clock: fixedClock(f.now), Checker: okChecker{}}).Local()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}

	f.org = &redirects.Org{Name: "Acme", Tier: redirects.TierPro}
	f.other = &redirects.Org{Name: "Other", Tier: redirects.TierPro}
	must(f.db.CreateOrg(ctx, f.org))
	must(f.db.CreateOrg(ctx, f.other))
	f.project = &redirects.Project{OrgID: f.org.ID, Name: "shop"}
	f.otherProject = &redirects.Project{OrgID: f.other.ID, Name: "theirs"}
	must(f.db.CreateProject(ctx, f.project))
	must(f.db.CreateProject(ctx, f.otherProject))
	f.rule = authzRule(f.project.ID, "/old")
	must(f.db.AddRule(ctx, f.rule))
	f.theirs.rule = authzRule(f.otherProject.ID, "/theirs")
	must(f.db.AddRule(ctx, f.theirs.rule))

	for _, name := range append(authzCallers, "spare") {
		role, ok := authzUserRoles[name]
		if !ok {
			continue
		}
		u := &redirects.User{Email: strings.ReplaceAll(name, " ", "-") + "@example.com", PasswordHash: hash, Operator: strings.HasPrefix(name, "operator")}
		must(f.db.CreateUser(ctx, u))
		switch {
		case role != "":
			must(f.db.SetMember(ctx, &redirects.Membership{OrgID: f.org.ID, UserID: u.ID, Role: role}))
		case name == "other member":
			must(f.db.SetMember(ctx, &redirects.Membership{OrgID: f.other.ID, UserID: u.ID, Role: redirects.RoleOwner}))
		}
		sess, secret := redirects.NewSession(u.ID, f.now, time.Hour)
		must(f.db.CreateSession(ctx, sess))
		f.users[name], f.sessions[name] = u, sess
		if name == "spare" {
			f.spareSecret = secret
		}
	}
	for _, r := range redirects.Roles {
		tok, _ := redirects.NewManagementToken(f.org.ID, r, string(r)+" token", f.users[string(r)].ID, f.now, 0)
		must(f.db.CreateToken(ctx, tok))
		f.tokens[r] = tok
	}
	f.target, _ = redirects.NewManagementToken(f.org.ID, redirects.RoleEditor, "target", f.users["editor"].ID, f.now, 0)
	must(f.db.CreateToken(ctx, f.target))

	local := authzLocal()
	rep, err := f.svc.Imports.Import(local, f.project.ID, []redirects.Rule{*authzRule(f.project.ID, "/imported")}, redirects.ImportOptions{})
	must(err)
	f.undoID = rep.UndoID
	_, _, err = f.svc.Deploys.Deploy(local, f.project.ID, redirects.DeployOptions{Message: "first"})
	must(err)
	_, _, err = f.svc.Deploys.Deploy(local, f.project.ID, redirects.DeployOptions{Message: "staged", Stage: true})
	must(err)
	f.key, _, err = f.svc.Keys.CreateKey(local, f.project.ID, "edge", false)
	must(err)
	f.webhook, err = f.svc.Webhooks.CreateWebhook(local, f.org.ID, "https://hooks.example.com/redirects", nil, nil)
	must(err)
	f.delivery, err = f.svc.Webhooks.SendWebhookTest(local, f.org.ID, f.webhook.ID)
	must(err)
	rep, err = f.svc.Imports.Import(local, f.otherProject.ID, []redirects.Rule{*authzRule(f.otherProject.ID, "/their-import")}, redirects.ImportOptions{})
	must(err)
	f.theirs.undoID = rep.UndoID
	f.theirs.key, _, err = f.svc.Keys.CreateKey(local, f.otherProject.ID, "their edge", false)
	must(err)
	f.theirs.token, _ = redirects.NewManagementToken(f.other.ID, redirects.RoleViewer, "theirs", f.users["other member"].ID, f.now, 0)
	must(f.db.CreateToken(ctx, f.theirs.token))
	f.theirs.webhook, err = f.svc.Webhooks.CreateWebhook(local, f.other.ID, "https://hooks.example.com/theirs", nil, nil)
	must(err)
	f.theirs.delivery, err = f.svc.Webhooks.SendWebhookTest(local, f.other.ID, f.theirs.webhook.ID)
	must(err)
	must(f.db.AddMisses(ctx, []redirects.Miss{{ProjectID: f.project.ID, Path: "/missing", Count: 3, FirstSeen: f.now, LastSeen: f.now}}))
	// The store keeps the agents' reports of the last AgentRetention by
	// the wall clock.
	must(f.db.RecordAgents(ctx, []redirects.AgentReport{{ProjectID: f.project.ID, Agent: "web-1", Format: "nginx", AppliedVersion: 1, SeenAt: time.Now().UTC()}}))
	// A destination check that ended, to read.
	job := &redirects.CheckJob{ID: authzCheckJob, ProjectID: f.project.ID, Owner: "authz", LeaseUntil: f.now.Add(time.Hour),
		BaseURL: "https://www.example.com", StartedAt: f.now}
	must(f.db.StartCheckJob(ctx, job))
	_, err = f.db.FinishCheckJob(ctx, job.ID, nil, 0, "made by the fixture")
	must(err)
	// Two open suggestions: one to accept, one to dismiss.
	must(f.db.ReplaceSuggestions(ctx, f.project.ID, []redirects.Suggestion{authzSuggestion(f.project.ID, "/suggested-a"), authzSuggestion(f.project.ID, "/suggested-d")}))
	return f
}

// authzCheckJob is the ID of the fixture's destination check.
const authzCheckJob = "chk_authzfixture00000"

// authzSuggestion is an open suggestion of a rule from path.
func authzSuggestion(projectID, path string) redirects.Suggestion {
	return redirects.Suggestion{ID: redirects.SuggestionID("", path, "/new"), ProjectID: projectID, Path: path, Destination: "/new",
		StatusCode: 301, Kind: redirects.SuggestSitemap, Confidence: 50, Misses: 1, Evidence: "/new", Reason: "a test", State: redirects.SuggestionOpen}
}

// newAuthzFixture returns a fixture of its own, for t: a copy of the
// template's closed database, opened.
func newAuthzFixture(t *testing.T, tmpl *authzFixture) *authzFixture {
	t.Helper()
	f := *tmpl
	f.t, f.path = t, filepath.Join(t.TempDir(), "redirects.db")
	for _, suffix := range []string{"", "-wal"} {
		b, err := os.ReadFile(tmpl.path + suffix)
		if errors.Is(err, fs.ErrNotExist) && suffix != "" {
			continue
		} else if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f.path+suffix, b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	var err error
	if f.db, err = sqlite.Open(context.Background(), f.path); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.db.Close() })
	f.db.Clock = fixedClock(f.now)
	f.svc = service.New(service.Deps{Store: f.db, Accounts: f.db, Clock: fixedClock(f.now), Checker: okChecker{}}).Local()
	if f.reader, err = sql.Open("sqlite", f.path); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.reader.Close() })
	return &f
}

// authzRule is a draft rule of project projectID from source.
func authzRule(projectID, source string) *redirects.Rule {
	return &redirects.Rule{ProjectID: projectID, Source: source, Destination: "/new", StatusCode: 301, MatchType: redirects.Exact, Priority: 100}
}

// authzLocal is the command line's context with --db.
func authzLocal() context.Context {
	ctx := redirects.WithActor(context.Background(), redirects.Actor{Kind: redirects.ActorCLI, Label: "tester"})
	return redirects.WithPrincipal(ctx, redirects.LocalPrincipal())
}

// as returns the context of caller name, as the doors make it now.
func (f *authzFixture) as(name string) context.Context {
	f.t.Helper()
	ctx := context.Background()
	switch name {
	case "none":
		return ctx
	case "local":
		return authzLocal()
	case "viewer token", "editor token", "owner token":
		tok := f.tokens[redirects.Role(strings.TrimSuffix(name, " token"))]
		ctx = redirects.WithActor(ctx, redirects.Actor{Kind: redirects.ActorToken, ID: tok.ID, Label: tok.Label})
		return redirects.WithPrincipal(ctx, redirects.TokenPrincipal(tok))
	}
	u, ok := f.users[name]
	if !ok {
		f.t.Fatalf("no caller %q", name)
	}
	ms, err := f.db.FindMemberships(ctx, u.ID)
	if err != nil {
		f.t.Fatal(err)
	}
	ctx = redirects.WithActor(ctx, redirects.Actor{Kind: redirects.ActorUser, ID: u.ID, Label: u.Email})
	ctx = redirects.WithSession(ctx, f.sessions[name])
	return redirects.WithPrincipal(ctx, redirects.UserPrincipal(u, ms))
}

// snapshot returns every table's rows, each table as one string, read
// through a connection of its own.
func (f *authzFixture) snapshot() map[string]string {
	f.t.Helper()
	db := f.reader
	var tables []string
	rows, err := db.Query(`SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name`)
	if err != nil {
		f.t.Fatal(err)
	}
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			f.t.Fatal(err)
		}
		tables = append(tables, name)
	}
	if err := rows.Close(); err != nil {
		f.t.Fatal(err)
	}
	out := make(map[string]string, len(tables))
	for _, table := range tables {
		rows, err := db.Query(`SELECT * FROM "` + table + `"`)
		if err != nil {
			f.t.Fatal(err)
		}
		cols, _ := rows.Columns()
		var lines []string
		for rows.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				f.t.Fatal(err)
			}
			lines = append(lines, fmt.Sprintf("%q", vals))
		}
		if err := rows.Close(); err != nil {
			f.t.Fatal(err)
		}
		sort.Strings(lines)
		out[table] = strings.Join(lines, "\n")
	}
	return out
}

// okChecker finds every target answering 200, without a request: the
// authorization table holds who may check, package destcheck how.
type okChecker struct{}

func (okChecker) Check(ctx context.Context, targets []redirects.CheckTarget, _ string, _ func(*redirects.DestinationCheck)) ([]redirects.DestinationCheck, error) {
	out := make([]redirects.DestinationCheck, len(targets))
	for i, tg := range targets {
		out[i] = redirects.DestinationCheck{Destination: tg.Destination, URL: tg.URL, Outcome: redirects.CheckOK, Status: 200, FinalURL: tg.URL, CheckedAt: time.Unix(0, 0)}
	}
	return out, nil
}
