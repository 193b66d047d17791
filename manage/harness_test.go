package manage

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"redirects"
	"redirects/api"
	"redirects/export"
	"redirects/internal/testreport"
	"redirects/postgres"
	"redirects/service"
	"redirects/sqlite"
	"redirects/storetest"
)

// testStore is what both stores are.
type testStore interface {
	redirects.Store
	redirects.AccountStore
}

// newStoreFunc opens an empty store whose clock is clock.
type newStoreFunc func(t *testing.T, clock redirects.Clock) testStore

// stores returns the stores the suite runs on: SQLite always, PostgreSQL
// when REDIRECTS_TEST_POSTGRES names a server.
func stores() []struct {
	name string
	open newStoreFunc
} {
	return []struct {
		name string
		open newStoreFunc
	}{{"sqlite", newSQLite}, {"postgres", newPostgres}}
}

// runSuite runs a test over every store.
func runSuite(t *testing.T, test func(t *testing.T, open newStoreFunc)) {
	for _, s := range stores() {
		t.Run(s.name, func(t *testing.T) { test(t, s.open) })
	}
}

func newSQLite(t *testing.T, clock redirects.Clock) testStore {
	t.Helper()
	db, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "redirects.db"))
	if err != nil {
		t.Fatalf("sqlite.Open: %v", err)
	}
	db.Clock = clock
	t.Cleanup(func() { db.Close() })
	return db
}

// pgDB is the PostgreSQL database of the test run, created by the first
// test that needs one and dropped by TestMain; each store gets an empty
// schema of it.
var pgDB struct {
	once  sync.Once
	admin string
	name  string
	err   error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if pgDB.name != "" {
		if err := pgExec(pgDB.admin, `DROP DATABASE IF EXISTS `+pgx.Identifier{pgDB.name}.Sanitize()+` WITH (FORCE)`); err != nil {
			fmt.Fprintf(os.Stderr, "drop the test database %s: %v\n", pgDB.name, err)
			code = 1
		}
	}
	os.Exit(code)
}

func pgExec(u, sql string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, u)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, sql)
	return err
}

func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}

func newPostgres(t *testing.T, clock redirects.Clock) testStore {
	t.Helper()
	admin := os.Getenv("REDIRECTS_TEST_POSTGRES")
	if admin == "" {
		testreport.Skip(t, testreport.Postgres, "REDIRECTS_TEST_POSTGRES is not set; run with REDIRECTS_TEST_POSTGRES='postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable' go test ./manage")
	}
	testreport.Ran(t, testreport.Postgres)
	pgDB.once.Do(func() {
		name := "redirects_manage_" + randomHex(6)
		if pgDB.err = pgExec(admin, `CREATE DATABASE `+name); pgDB.err == nil {
			pgDB.admin, pgDB.name = admin, name
		}
	})
	if pgDB.err != nil {
		t.Fatalf("create the test database: %v", pgDB.err)
	}
	u, err := url.Parse(admin)
	if err != nil {
		t.Fatalf("REDIRECTS_TEST_POSTGRES: %v", err)
	}
	u.Path = "/" + pgDB.name
	schema := "s_" + randomHex(6)
	if err := pgExec(u.String(), `CREATE SCHEMA `+schema); err != nil {
		t.Fatalf("create schema: %v", err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	db, err := postgres.Open(context.Background(), u.String())
	if err != nil {
		t.Fatalf("postgres.Open: %v", err)
	}
	db.Clock = clock
	t.Cleanup(func() { db.Close() })
	return db
}

// env is one management API on a real listener over a real store.
type env struct {
	t     *testing.T
	store testStore
	clock *storetest.Clock
	srv   *httptest.Server
	ctx   context.Context
}

// newEnv starts the API on 127.0.0.1 over a new store; tweak, if set,
// changes the config first, and tls serves it over TLS.
func newEnv(t *testing.T, open newStoreFunc, tls bool, tweak func(*Config)) *env {
	t.Helper()
	clock := storetest.NewClock(storetest.Start)
	s := open(t, clock)
	cfg := Config{Store: s, Accounts: s, Clock: clock, Secure: tls, Checker: okChecker{}}
	if tweak != nil {
		tweak(&cfg)
	}
	h := Handler(cfg)
	var srv *httptest.Server
	if tls {
		srv = httptest.NewTLSServer(h)
	} else {
		srv = httptest.NewServer(h)
	}
	t.Cleanup(srv.Close)
	return &env{t: t, store: s, clock: clock, srv: srv, ctx: context.Background()}
}

// client calls the API as one caller: a token, a session, or nobody.
type client struct {
	e      *env
	token  string
	cookie *http.Cookie
	csrf   string
	// noCSRF leaves the CSRF header off.
	noCSRF bool
}

func (e *env) anon() *client                { return &client{e: e} }
func (e *env) withToken(tok string) *client { return &client{e: e, token: tok} }

// csvBody is a request body sent as text/csv.
type csvBody string

// resp is an answer, read whole.
type resp struct {
	status int
	header http.Header
	body   []byte
	req    string
}

// do sends a request; body is JSON-encoded unless it is a string or
// []byte, sent as it is. hdr holds header name, value pairs.
func (c *client) do(method, path string, body any, hdr ...string) *resp {
	c.e.t.Helper()
	return c.send(c.request(method, path, body, hdr...))
}

// request builds the request do sends; its GetBody gives the body again.
func (c *client) request(method, path string, body any, hdr ...string) *http.Request {
	c.e.t.Helper()
	var rd io.Reader
	ctype := ""
	switch b := body.(type) {
	case nil:
	case csvBody:
		rd, ctype = strings.NewReader(string(b)), "text/csv"
	case string:
		rd, ctype = strings.NewReader(b), "application/json"
	case []byte:
		rd, ctype = bytes.NewReader(b), "application/json"
	default:
		j, err := json.Marshal(b)
		if err != nil {
			c.e.t.Fatal(err)
		}
		rd, ctype = bytes.NewReader(j), "application/json"
	}
	req, err := http.NewRequest(method, c.e.srv.URL+path, rd)
	if err != nil {
		c.e.t.Fatal(err)
	}
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	if c.cookie != nil {
		req.AddCookie(c.cookie)
		if !c.noCSRF && c.csrf != "" {
			req.Header.Set(CSRFHeader, c.csrf)
		}
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	return req
}

// send sends a request built by request and reads the answer whole.
func (c *client) send(req *http.Request) *resp {
	c.e.t.Helper()
	res, err := c.e.srv.Client().Do(req)
	if err != nil {
		c.e.t.Fatalf("%s %s: %v", req.Method, req.URL.RequestURI(), err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		c.e.t.Fatal(err)
	}
	return &resp{status: res.StatusCode, header: res.Header, body: b, req: req.Method + " " + req.URL.RequestURI()}
}

// decode reads the JSON body into v.
func (r *resp) decode(t *testing.T, v any) {
	t.Helper()
	if err := json.Unmarshal(r.body, v); err != nil {
		t.Fatalf("%s: body %s is not the JSON expected: %v", r.req, r.body, err)
	}
}

// errBody returns the error answer's code and message.
func (r *resp) errBody(t *testing.T) (code, msg string) {
	t.Helper()
	var e api.Error
	r.decode(t, &e)
	return e.Code, e.Error
}

// want checks the status, and for an error the code, and returns r.
func (r *resp) want(t *testing.T, status int, code ...string) *resp {
	t.Helper()
	if r.status != status {
		t.Fatalf("%s: status %d, want %d; body %s", r.req, r.status, status, r.body)
	}
	if len(code) > 0 {
		if got, _ := r.errBody(t); got != code[0] {
			t.Fatalf("%s: code %q, want %q; body %s", r.req, got, code[0], r.body)
		}
	}
	return r
}

// user creates a user with a password; operator makes them an operator.
func (e *env) user(email string, operator bool) (*redirects.User, string) {
	e.t.Helper()
	pw := redirects.NewPassword()
	hash, err := redirects.HashPassword(pw)
	if err != nil {
		e.t.Fatal(err)
	}
	u := &redirects.User{Email: email, PasswordHash: hash, Operator: operator}
	if err := e.store.CreateUser(e.ctx, u); err != nil {
		e.t.Fatalf("CreateUser %s: %v", email, err)
	}
	return u, pw
}

// session makes a session for u in the store (no password check, which
// costs tens of milliseconds) and returns a client that uses it.
func (e *env) session(u *redirects.User) *client {
	e.t.Helper()
	s, secret := redirects.NewSession(u.ID, e.clock.Now(), time.Hour)
	if err := e.store.CreateSession(e.ctx, s); err != nil {
		e.t.Fatalf("CreateSession: %v", err)
	}
	return &client{e: e, cookie: &http.Cookie{Name: SessionCookie, Value: secret}, csrf: s.CSRFToken}
}

// login signs in through the API.
func (e *env) login(email, pw string) (*client, *resp) {
	e.t.Helper()
	r := e.anon().do("POST", "/manage/v1/session", map[string]string{"email": email, "password": pw})
	if r.status != http.StatusOK {
		return nil, r
	}
	var s api.Session
	r.decode(e.t, &s)
	c := &client{e: e, csrf: s.CSRFToken}
	for _, ck := range (&http.Response{Header: r.header}).Cookies() {
		if ck.Name == SessionCookie {
			c.cookie = &http.Cookie{Name: ck.Name, Value: ck.Value}
		}
	}
	if c.cookie == nil {
		e.t.Fatalf("login answered no %s cookie: %v", SessionCookie, r.header)
	}
	return c, r
}

// token makes a management token of orgID with role, created by the CLI
// (no creator), and returns its secret.
func (e *env) token(orgID string, role redirects.Role, label string, ttl time.Duration) (*redirects.ManagementToken, string) {
	e.t.Helper()
	tok, secret := redirects.NewManagementToken(orgID, role, label, "", e.clock.Now(), ttl)
	if err := e.store.CreateToken(e.ctx, tok); err != nil {
		e.t.Fatalf("CreateToken: %v", err)
	}
	return tok, secret
}

// org is an organization with a member of each role, a token of each
// role, a project with rules, a key and a deployment.
type org struct {
	org     *redirects.Org
	project *redirects.Project
	rule    *redirects.Rule
	key     *redirects.Key
	users   map[redirects.Role]*redirects.User
	// sessions and tokens call the API as the member, or a token, of each
	// role.
	sessions map[redirects.Role]*client
	tokens   map[redirects.Role]*client
	tokenIDs map[redirects.Role]string
}

// newOrg builds an org named name.
func (e *env) newOrg(name string) *org {
	e.t.Helper()
	ctx := e.ctx
	o := &org{org: &redirects.Org{Name: name, Tier: redirects.TierPro}, users: map[redirects.Role]*redirects.User{},
		sessions: map[redirects.Role]*client{}, tokens: map[redirects.Role]*client{}, tokenIDs: map[redirects.Role]string{}}
	if err := e.store.CreateOrg(ctx, o.org); err != nil {
		e.t.Fatal(err)
	}
	o.project = &redirects.Project{OrgID: o.org.ID, Name: name + "-site"}
	if err := e.store.CreateProject(ctx, o.project); err != nil {
		e.t.Fatal(err)
	}
	o.rule = &redirects.Rule{ProjectID: o.project.ID, Source: "/old", Destination: "/new", StatusCode: 301, MatchType: redirects.Exact, Priority: 100}
	if err := e.store.AddRule(ctx, o.rule); err != nil {
		e.t.Fatal(err)
	}
	if _, err := service.DeployUnchecked(ctx, e.store, o.project.ID, redirects.DeployOptions{Message: "first"}, export.Build); err != nil {
		e.t.Fatal(err)
	}
	o.key, _ = redirects.NewKey(o.project.ID, "edge", false, e.clock.Now())
	if err := e.store.CreateKey(ctx, o.key); err != nil {
		e.t.Fatal(err)
	}
	for _, role := range redirects.Roles {
		u, _ := e.user(fmt.Sprintf("%s-%s-%s@example.com", strings.ToLower(name), role, randomHex(3)), false)
		if err := e.store.SetMember(ctx, &redirects.Membership{OrgID: o.org.ID, UserID: u.ID, Role: role}); err != nil {
			e.t.Fatal(err)
		}
		o.users[role] = u
		o.sessions[role] = e.session(u)
		tok, secret := e.token(o.org.ID, role, name+" "+string(role)+" token", 0)
		o.tokens[role] = e.withToken(secret)
		o.tokenIDs[role] = tok.ID
	}
	return o
}

// okChecker is a destination checker that finds every target answering
// 200, without a request: the API's tests hold routes and roles, the
// checker has tests of its own (package destcheck).
type okChecker struct{}

func (okChecker) Check(ctx context.Context, targets []redirects.CheckTarget, _ string, _ func(*redirects.DestinationCheck)) ([]redirects.DestinationCheck, error) {
	out := make([]redirects.DestinationCheck, len(targets))
	for i, tg := range targets {
		out[i] = redirects.DestinationCheck{Destination: tg.Destination, URL: tg.URL, Outcome: redirects.CheckOK, Status: 200, FinalURL: tg.URL, CheckedAt: storetest.Start}
	}
	return out, nil
}
