package main_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"os"
	"os/user"
	"regexp"
	"slices"
	"strings"
	"testing"

	"redirects"
	"redirects/postgres"
	"redirects/sqlite"
)

// openAccounts opens the CLI's database directly, to check what the
// commands stored.
func openAccounts(t *testing.T, c *cli) redirects.AccountStore {
	t.Helper()
	ctx := context.Background()
	var (
		s   redirects.Store
		err error
	)
	if path, ok := strings.CutPrefix(c.db, "sqlite:"); ok {
		s, err = sqlite.Open(ctx, path)
	} else {
		s, err = postgres.Open(ctx, c.db)
	}
	if err != nil {
		t.Fatalf("open %s: %v", c.db, err)
	}
	t.Cleanup(func() { s.Close() })
	return s.(redirects.AccountStore)
}

// storedBytes returns the SQLite database file and its WAL, or nil for
// another store.
func storedBytes(t *testing.T, c *cli) []byte {
	t.Helper()
	path, ok := strings.CutPrefix(c.db, "sqlite:")
	if !ok {
		return nil
	}
	var all []byte
	for _, p := range []string{path, path + "-wal"} {
		b, err := os.ReadFile(p)
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		all = append(all, b...)
	}
	if len(all) == 0 {
		t.Fatalf("the database %s is empty", path)
	}
	return all
}

// osUser is the name the CLI records as the actor of its changes.
func osUser() string {
	name := ""
	if u, err := user.Current(); err == nil {
		name = u.Username
	}
	if name == "" {
		name = os.Getenv("USER")
	}
	if name == "" {
		name = "unknown"
	}
	if s := os.Getenv("SUDO_USER"); s != "" && s != name {
		name += " (sudo from " + s + ")"
	}
	return name
}

var oneTimePassword = regexp.MustCompile(`one-time password \(shown only now\): ([0-9A-Za-z]{24})\n`)

func TestUserCommands(t *testing.T) {
	c := newCLI(t)
	a := openAccounts(t, c)

	// Without --password-stdin: the ID on stdout, a one-time password on
	// stderr, and it is the password that was stored.
	r := c.exec("", "user", "create", "--email", " Ada@Example.COM", "--operator")
	if r.code != 0 {
		t.Fatalf("user create: exit %d, stderr %q", r.code, r.stderr)
	}
	ada := strings.TrimSpace(r.stdout)
	mustMatch(t, "user ID", `^usr_[0-9A-Za-z]{16}$`, ada)
	m := oneTimePassword.FindStringSubmatch(r.stderr)
	if m == nil {
		t.Fatalf("user create printed no one-time password on stderr: %q", r.stderr)
	}
	adaPassword := m[1]
	if strings.Contains(r.stdout, adaPassword) {
		t.Fatal("the one-time password is on stdout")
	}
	u, err := a.FindUserByID(context.Background(), ada)
	if err != nil {
		t.Fatal(err)
	}
	if u.Email != "ada@example.com" || !u.Operator || !redirects.VerifyPassword(u.PasswordHash, adaPassword) {
		t.Fatalf("stored user %s operator %v; the printed password verifies: %v", u.Email, u.Operator, redirects.VerifyPassword(u.PasswordHash, adaPassword))
	}

	// With --password-stdin: that password, nothing printed of it.
	const bobPassword = "bob's long secret password"
	r = c.exec(bobPassword+"\n", "user", "create", "--email", "bob@example.com", "--password-stdin")
	if r.code != 0 || strings.Contains(r.stderr+r.stdout, bobPassword) || strings.Contains(r.stderr, "one-time") {
		t.Fatalf("user create --password-stdin: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	bob := strings.TrimSpace(r.stdout)
	if u, _ := a.FindUserByEmail(context.Background(), "bob@example.com"); u == nil || u.ID != bob || u.Operator || !redirects.VerifyPassword(u.PasswordHash, bobPassword) {
		t.Fatalf("bob was not stored with the password from stdin: %+v", u)
	}

	// Mistakes.
	c.fail(1, "exists", "user", "create", "--email", "ADA@example.com")
	c.fail(1, "is not of the form", "user", "create", "--email", "ada")
	r = c.exec("short\n", "user", "create", "--email", "eve@example.com", "--password-stdin")
	if r.code != 1 || !strings.Contains(r.stderr, "fewer than the 12") || strings.Contains(r.stderr, "short") {
		t.Fatalf("short password: exit %d, stderr %q", r.code, r.stderr)
	}
	r = c.exec("", "user", "create", "--email", "eve@example.com", "--password-stdin")
	if r.code != 1 || !strings.Contains(r.stderr, "no password") {
		t.Fatalf("empty stdin: exit %d, stderr %q", r.code, r.stderr)
	}
	c.fail(2, "needs --email", "user", "create")
	c.fail(2, "unknown command", "user", "delete", "ada@example.com")

	var users []struct {
		ID, Email          string
		Operator, Disabled bool
		DisabledAt         *string
	}
	listing := c.ok("user", "list", "--json")
	if strings.Contains(listing, "argon2") || strings.Contains(listing, "password") {
		t.Fatalf("user list shows password hashes:\n%s", listing)
	}
	c.jsonOf(&users, "user", "list", "--json")
	if len(users) != 2 || users[0].ID != ada || !users[0].Operator || users[1].ID != bob || users[1].Operator || users[1].Disabled {
		t.Fatalf("user list = %+v", users)
	}
	if table := c.ok("user", "list"); !strings.Contains(table, "ada@example.com") || !strings.Contains(table, bob) {
		t.Fatalf("user list table:\n%s", table)
	}

	// Reset: a new one-time password replaces the old.
	r = c.exec("", "user", "reset-password", "ada@example.com")
	m = oneTimePassword.FindStringSubmatch(r.stderr)
	if r.code != 0 || r.stdout != "" || m == nil || m[1] == adaPassword {
		t.Fatalf("reset-password: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	newPassword := m[1]
	if u, _ := a.FindUserByID(context.Background(), ada); !redirects.VerifyPassword(u.PasswordHash, newPassword) || redirects.VerifyPassword(u.PasswordHash, adaPassword) {
		t.Fatal("after reset-password the new password does not verify, or the old one still does")
	}
	const bobNew = "bob's newer secret password"
	if r := c.exec(bobNew+"\r\n", "user", "reset-password", bob, "--password-stdin"); r.code != 0 || strings.Contains(r.stderr, bobNew) {
		t.Fatalf("reset-password --password-stdin: %+v", r)
	}
	if u, _ := a.FindUserByID(context.Background(), bob); !redirects.VerifyPassword(u.PasswordHash, bobNew) {
		t.Fatal("the password from stdin (CRLF line ending) does not verify")
	}
	c.fail(1, "not found", "user", "reset-password", "nobody@example.com")

	// Disable.
	c.ok("user", "disable", "bob@example.com")
	c.jsonOf(&users, "user", "list", "--json")
	if !users[1].Disabled || users[1].DisabledAt == nil || users[0].Disabled {
		t.Fatalf("after disabling bob: %+v", users)
	}
	if r := c.exec("", "user", "disable", bob); r.code != 0 || !strings.Contains(r.stderr, "already disabled") {
		t.Fatalf("disabling again: %+v", r)
	}
	c.fail(1, "not found", "user", "disable", "usr_nobody")

	// No password is stored or logged in clear.
	if b := storedBytes(t, c); b != nil {
		for _, pw := range []string{adaPassword, bobPassword, newPassword, bobNew} {
			if bytes.Contains(b, []byte(pw)) {
				t.Errorf("the database file holds the password %q in clear", pw)
			}
		}
		if !bytes.Contains(b, []byte("$argon2id$")) {
			t.Error("the database file holds no argon2id hash: the check above looked at the wrong bytes")
		}
	}
	if out := c.ok("audit", "--json", "--limit", "0"); strings.Contains(out, "argon2id") || strings.Contains(out, adaPassword) || strings.Contains(out, newPassword) {
		t.Fatalf("the audit log holds a password or hash:\n%s", out)
	}
}

func TestMemberAndTokenCommands(t *testing.T) {
	c := newCLI(t)
	a := openAccounts(t, c)
	org, _ := c.setup()
	other, _ := c.setup()
	c.ok("user", "create", "--email", "ada@example.com")
	bob := c.ok("user", "create", "--email", "bob@example.com")

	c.ok("member", "add", "--org", org, "--user", "ada@example.com", "--role", "owner")
	c.ok("member", "add", "--org", org, "--user", bob, "--role", "viewer")
	c.fail(1, `role "admin" is not one of owner, editor, viewer`, "member", "add", "--org", org, "--user", "bob@example.com", "--role", "admin")
	c.fail(1, "not found", "member", "add", "--org", org, "--user", "nobody@example.com", "--role", "viewer")
	c.fail(1, "not found", "member", "add", "--org", "org_nope", "--user", "bob@example.com", "--role", "viewer")
	c.fail(2, "needs --role", "member", "add", "--org", org, "--user", "bob@example.com")
	var members []struct{ UserID, Email, Role string }
	c.jsonOf(&members, "member", "list", "--org", org, "--json")
	if len(members) != 2 || members[0].Email != "ada@example.com" || members[0].Role != "owner" || members[1].UserID != bob || members[1].Role != "viewer" {
		t.Fatalf("member list = %+v", members)
	}

	// Tokens: shown once, stored as a hash.
	token := c.ok("token", "create", "--org", org, "--role", "editor", "--name", "deploy bot", "--expires", "30d")
	mustMatch(t, "management token", `^redir_mgmt_[0-9A-Za-z]{32}$`, token)
	// A viewer may create viewer tokens, not editor ones.
	c.fail(1, "may not create editor tokens", "token", "create", "--org", org, "--role", "editor", "--user", "bob@example.com")
	c.fail(1, "not found", "token", "create", "--org", other, "--role", "viewer", "--user", "bob@example.com")
	bobToken := c.ok("token", "create", "--org", org, "--role", "viewer", "--user", "bob@example.com", "--name", "bob's")
	c.fail(2, "not a duration", "token", "create", "--org", org, "--role", "viewer", "--expires", "soon")
	c.fail(2, "not above zero", "token", "create", "--org", org, "--role", "viewer", "--expires", "0h")
	c.fail(1, "not one of owner, editor, viewer", "token", "create", "--org", org, "--role", "root")

	listing := c.ok("token", "list", "--org", org, "--json")
	for _, secret := range []string{token, bobToken} {
		if strings.Contains(listing, secret[len(redirects.ManagementTokenPrefix):]) || strings.Contains(listing, redirects.HashKey(secret)) {
			t.Fatalf("token list shows a token or its hash:\n%s", listing)
		}
	}
	type tokenJSON struct {
		ID, Label, Role, Last4 string
		CreatedBy              *string
		ExpiresAt, RevokedAt   *string
	}
	var tokens []tokenJSON
	tokenID := func(t tokenJSON) string { return t.ID }
	c.jsonOf(&tokens, "token", "list", "--org", org, "--json")
	tokens = withoutOwnTokens(c, tokens, tokenID)
	if len(tokens) != 2 || tokens[0].Label != "deploy bot" || tokens[0].Role != "editor" || tokens[0].Last4 != token[len(token)-4:] ||
		tokens[0].CreatedBy != nil || tokens[0].ExpiresAt == nil ||
		tokens[1].CreatedBy == nil || *tokens[1].CreatedBy != "bob@example.com" || tokens[1].ExpiresAt != nil {
		t.Fatalf("token list = %+v", tokens)
	}
	found, err := a.FindTokenByHash(context.Background(), redirects.HashKey(token))
	if err != nil || found.ID != tokens[0].ID || found.OrgID != org {
		t.Fatalf("the printed token does not authenticate: %+v, %v", found, err)
	}

	// Revocation: never through another organization.
	c.fail(1, "not a management token of", "token", "revoke", "--org", other, tokens[0].ID)
	c.ok("token", "revoke", "--org", org, tokens[0].ID)
	if _, err := a.FindTokenByHash(context.Background(), redirects.HashKey(token)); redirects.ErrorCode(err) != redirects.ENOTFOUND {
		t.Fatalf("a revoked token authenticates: %v", err)
	}
	// Removing bob revokes the token he created.
	c.ok("member", "remove", "--org", org, "--user", "bob@example.com")
	c.jsonOf(&tokens, "token", "list", "--org", org, "--json")
	tokens = withoutOwnTokens(c, tokens, tokenID)
	if tokens[1].RevokedAt == nil {
		t.Fatalf("bob's token survived his removal: %+v", tokens[1])
	}
	c.fail(1, "no member", "member", "remove", "--org", org, "--user", "bob@example.com")
	c.jsonOf(&members, "member", "list", "--org", org, "--json")
	if len(members) != 1 {
		t.Fatalf("after member remove: %+v", members)
	}

	if b := storedBytes(t, c); b != nil {
		for _, secret := range []string{token, bobToken} {
			if bytes.Contains(b, []byte(secret)) {
				t.Errorf("the database file holds the token %s... in clear", secret[:15])
			}
			if !bytes.Contains(b, []byte(redirects.HashKey(secret))) {
				t.Errorf("the database file lacks the token's hash: the check above looked at the wrong bytes")
			}
		}
	}
}

// TestAuditCommand makes one change of every kind from the CLI and finds
// each in the audit log, made by the operating-system user.
func TestAuditCommand(t *testing.T) {
	skipInAPIMode(t, "it checks that the CLI on a database records its changes as made by the operating-system user; through the API the actor is the management token (the manage package's tests check that)")
	c := newCLI(t)
	org, p := c.setup()
	c.ok("org", "update", org, "--tier", "enterprise")
	rule := c.ok("rule", "add", "--project", p, "--source", "/old", "--destination", "/new")
	c.ok("rule", "delete", "--project", p, rule)
	key := c.ok("key", "create", "--project", p, "--name", "edge")
	c.ok("key", "revoke", "--project", p, key)
	ada := c.ok("user", "create", "--email", "ada@example.com", "--operator")
	c.ok("member", "add", "--org", org, "--user", ada, "--role", "owner")
	c.ok("member", "add", "--org", org, "--user", ada, "--role", "editor")
	token := c.ok("token", "create", "--org", org, "--role", "viewer", "--name", "=cmd|' /C calc'!A0")
	c.ok("token", "revoke", "--org", org, token)
	c.ok("user", "reset-password", ada)
	c.ok("member", "remove", "--org", org, "--user", ada)
	c.ok("user", "disable", ada)

	type entry struct {
		ID                                         int64
		Time, OrgID, ProjectID, Action, ObjectType string
		ObjectID                                   string
		Actor                                      struct{ Kind, ID, Label, RemoteAddr string }
		Before, After                              map[string]any
	}
	var entries []entry
	c.jsonOf(&entries, "audit", "--json", "--limit", "0")
	want := []string{"user.disable", "member.remove", "user.reset_password", "token.revoke", "token.create", "member.update",
		"member.add", "user.create", "key.revoke", "key.create", "rule.delete", "rule.create", "org.update", "project.create", "org.create"}
	var got []string
	for _, e := range entries {
		got = append(got, e.Action)
		if e.Actor.Kind != "cli" || e.Actor.Label != osUser() || e.Actor.RemoteAddr != "" {
			t.Errorf("%s: actor %+v, want cli %q", e.Action, e.Actor, osUser())
		}
	}
	if !slices.Equal(got, want) {
		t.Fatalf("audit actions = %v, want %v", got, want)
	}
	for _, e := range entries {
		if e.Action == "org.update" && (e.Before["tier"] != "pro" || e.After["tier"] != "enterprise") {
			t.Errorf("org.update: before %v after %v, want the tier from pro to enterprise", e.Before, e.After)
		}
		if e.Action == "rule.delete" && (e.ObjectID != rule || e.Before["source"] != "/old" || e.After != nil) {
			t.Errorf("rule.delete: %+v", e)
		}
	}
	out := c.ok("audit", "--json", "--limit", "0")
	if strings.Contains(out, key[11:]) || strings.Contains(out, redirects.HashKey(key)) {
		t.Fatal("the audit log holds an API key or its hash")
	}

	// Filters.
	count := func(args ...string) int {
		t.Helper()
		var es []entry
		c.jsonOf(&es, append([]string{"audit", "--json", "--limit", "0"}, args...)...)
		return len(es)
	}
	for _, tc := range []struct {
		args []string
		want int
	}{
		{[]string{"--project", p}, 5},
		{[]string{"--org", org}, 12},
		{[]string{"--action", "rule.*"}, 2},
		{[]string{"--action", "member.add"}, 1},
		{[]string{"--actor", osUser()}, 15},
		{[]string{"--actor", "somebody else"}, 0},
		{[]string{"--since", "2100-01-01"}, 0},
		{[]string{"--until", "2000-01-01T00:00:00Z"}, 0},
		{[]string{"--since", "1h"}, 15},
	} {
		if n := count(tc.args...); n != tc.want {
			t.Errorf("audit %v: %d entries, want %d", tc.args, n, tc.want)
		}
	}
	if n := len(strings.Split(c.ok("audit", "--limit", "3"), "\n")); n != 4 {
		t.Errorf("audit --limit 3 printed %d lines, want a header and 3", n)
	}

	// CSV: a header, one record per entry, formulas defused.
	recs, err := csv.NewReader(strings.NewReader(c.ok("audit", "--csv", "--limit", "0"))).ReadAll()
	if err != nil {
		t.Fatalf("audit --csv is not CSV: %v", err)
	}
	if len(recs) != 16 || strings.Join(recs[0], ",") != "id,time,orgId,projectId,actorKind,actorId,actorLabel,remoteAddr,action,objectType,objectId,before,after" {
		t.Fatalf("audit --csv: %d records, header %v", len(recs), recs[0])
	}
	if recs[1][8] != "user.disable" || recs[1][6] != osUser() {
		t.Errorf("first CSV record = %v", recs[1])
	}
	for _, rec := range recs[1:] {
		for _, cell := range rec {
			if cell != "" && strings.ContainsRune("=+-@", rune(cell[0])) {
				t.Errorf("CSV cell %q would run as a formula", cell)
			}
		}
	}

	c.fail(2, "not a time", "audit", "--since", "yesterday")
	c.fail(2, "not both", "audit", "--csv", "--json")
	c.fail(1, "not found", "audit", "--org", "org_nope")
	c.fail(1, "not an action", "audit", "--action", "rule;drop")
}
