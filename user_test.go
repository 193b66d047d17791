package redirects_test

import (
	"context"
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"time"

	"redirects"
)

func TestNormalizeEmail(t *testing.T) {
	for in, want := range map[string]string{
		"Ada@Example.COM":         "ada@example.com",
		"  ops+alerts@corp.io \n": "ops+alerts@corp.io",
		"a@b":                     "a@b",
	} {
		if got, err := redirects.NormalizeEmail(in); err != nil || got != want {
			t.Errorf("NormalizeEmail(%q) = %q, %v, want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"", "ada", "@example.com", "ada@", "Ada <ada@example.com>", "a b@example.com",
		strings.Repeat("a", 250) + "@example.com", "ada@exa\x00mple.com"} {
		if got, err := redirects.NormalizeEmail(in); redirects.ErrorCode(err) != redirects.EINVALID {
			t.Errorf("NormalizeEmail(%q) = %q, %v, want EINVALID", in, got, err)
		}
	}
}

func TestPasswordHash(t *testing.T) {
	pw := "correct horse battery"
	h, err := redirects.HashPassword(pw)
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`^\$argon2id\$v=19\$m=19456,t=2,p=1\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$`).MatchString(h) {
		t.Fatalf("hash %q is not an argon2id PHC string", h)
	}
	if strings.Contains(h, pw) {
		t.Fatalf("hash %q holds the password", h)
	}
	if h2, _ := redirects.HashPassword(pw); h2 == h {
		t.Fatal("two hashes of one password are equal: the salt is not fresh")
	}
	if !redirects.VerifyPassword(h, pw) {
		t.Fatal("VerifyPassword refuses the right password")
	}
	for _, wrong := range []string{"correct horse batterY", "", pw + " "} {
		if redirects.VerifyPassword(h, wrong) {
			t.Errorf("VerifyPassword accepts %q", wrong)
		}
	}
	for _, bad := range []string{"", pw, "$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA",
		strings.Replace(h, "m=19456", "m=99999999", 1), strings.Replace(h, "v=19", "v=18", 1), "$2a$10$abcdefghijklmnopqrstuv"} {
		if redirects.VerifyPassword(bad, pw) {
			t.Errorf("VerifyPassword(%q) accepts the password", bad)
		}
	}
	if err := redirects.CheckPasswordHash(pw); redirects.ErrorCode(err) != redirects.EINVALID {
		t.Errorf("CheckPasswordHash(a clear password) = %v, want EINVALID", err)
	}
}

func TestPasswordRules(t *testing.T) {
	if _, err := redirects.HashPassword("short"); redirects.ErrorCode(err) != redirects.EINVALID || strings.Contains(err.Error(), "short") {
		t.Errorf("HashPassword(short) = %v, want EINVALID that does not repeat the password", err)
	}
	if _, err := redirects.HashPassword(strings.Repeat("x", redirects.MaxPasswordLength+1)); redirects.ErrorCode(err) != redirects.EINVALID {
		t.Errorf("HashPassword(too long) = %v, want EINVALID", err)
	}
	// Twelve characters of four bytes each count as twelve.
	if err := redirects.CheckPasswordRules(strings.Repeat("🔑", 12)); err != nil {
		t.Errorf("twelve emoji: %v", err)
	}
	a, b := redirects.NewPassword(), redirects.NewPassword()
	if a == b || len(a) != redirects.OneTimePasswordLength || redirects.CheckPasswordRules(a) != nil {
		t.Errorf("NewPassword gave %q and %q", a, b)
	}
}

func TestCheckLogin(t *testing.T) {
	h, _ := redirects.HashPassword("correct horse battery")
	u := &redirects.User{ID: "usr_1", Email: "a@example.com", PasswordHash: h}
	if err := redirects.CheckLogin(u, "correct horse battery"); err != nil {
		t.Fatalf("right password: %v", err)
	}
	now := time.Now()
	disabled := *u
	disabled.DisabledAt = &now
	var msgs []string
	for _, tc := range []struct {
		u  *redirects.User
		pw string
	}{{u, "wrong password!!"}, {nil, "correct horse battery"}, {&disabled, "correct horse battery"}} {
		err := redirects.CheckLogin(tc.u, tc.pw)
		if redirects.ErrorCode(err) != redirects.EUNAUTHORIZED {
			t.Fatalf("CheckLogin(%v) = %v, want EUNAUTHORIZED", tc.u, err)
		}
		msgs = append(msgs, err.Error())
	}
	if msgs[0] != msgs[1] || msgs[1] != msgs[2] {
		t.Errorf("failed logins can be told apart: %q", msgs)
	}
}

func TestManagementToken(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	tok, secret := redirects.NewManagementToken("org_A", redirects.RoleEditor, "ci", "usr_1", now, time.Hour)
	if !regexp.MustCompile(`^redir_mgmt_[0-9A-Za-z]{32}$`).MatchString(secret) || !redirects.WellFormedManagementToken(secret) {
		t.Fatalf("secret %q is not redir_mgmt_ and 32 alphanumerics", secret)
	}
	if !regexp.MustCompile(`^tok_[0-9A-Za-z]{16}$`).MatchString(tok.ID) || tok.Hash != redirects.HashKey(secret) || tok.Last4 != secret[len(secret)-4:] {
		t.Fatalf("token %+v does not match its secret", tok)
	}
	if err := tok.Validate(); err != nil {
		t.Fatal(err)
	}
	if !tok.Active(now.Add(59*time.Minute)) || tok.Active(now.Add(time.Hour)) {
		t.Error("a one-hour token is not active for exactly one hour")
	}
	tok.RevokedAt = &now
	if tok.Active(now) {
		t.Error("a revoked token is active")
	}
	for _, s := range []string{"", "redir_mgmt_", secret + "x", secret[:len(secret)-1] + "-", "redir_live_" + secret[11:]} {
		if redirects.WellFormedManagementToken(s) {
			t.Errorf("WellFormedManagementToken(%q) = true", s)
		}
	}
	bad, _ := redirects.NewManagementToken("org_A", "admin", "ci", "", now, 0)
	if err := bad.Validate(); redirects.ErrorCode(err) != redirects.EINVALID {
		t.Errorf("token with role admin: %v, want EINVALID", err)
	}
}

func TestSession(t *testing.T) {
	now := time.Now()
	s, secret := redirects.NewSession("usr_1", now, time.Hour)
	if len(secret) != redirects.SessionSecretLength || s.Hash != redirects.HashSessionSecret(secret) || strings.Contains(s.Hash, secret) {
		t.Fatalf("session %+v, secret %q", s, secret)
	}
	if !s.CheckCSRF(s.CSRFToken) || s.CheckCSRF("") || s.CheckCSRF(s.CSRFToken+"x") {
		t.Error("CheckCSRF accepts a wrong token or refuses the right one")
	}
	if !s.Active(now) || s.Active(now.Add(time.Hour)) {
		t.Error("Active is wrong at the edges")
	}
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
}

func TestActorAndAuditEntry(t *testing.T) {
	ctx := context.Background()
	if a := redirects.ActorFrom(ctx); a.Kind != redirects.ActorSystem {
		t.Errorf("actor of a bare context = %+v, want system", a)
	}
	ctx = redirects.WithActor(ctx, redirects.Actor{Kind: redirects.ActorToken, ID: "tok_1", Label: "ci", RemoteAddr: "192.0.2.1"})
	limit := redirects.Limit(5)
	before := redirects.OrgAuditFields(&redirects.Org{Name: "Acme", Tier: redirects.TierFree})
	after := redirects.OrgAuditFields(&redirects.Org{Name: "Acme", Tier: redirects.TierPro, RateLimitOverride: &limit})
	b, a := redirects.AuditDiff(before, after)
	e := redirects.NewAuditEntry(ctx, time.Now(), redirects.AuditOrgUpdate, "org_A", "", "org", "org_A", b, a)
	if e.Actor.Kind != redirects.ActorToken || e.Actor.Label != "ci" || e.Actor.RemoteAddr != "192.0.2.1" {
		t.Errorf("entry actor = %+v", e.Actor)
	}
	if got, want := string(e.Before), `{"rateLimitOverride":null,"tier":"free"}`; got != want {
		t.Errorf("before = %s, want %s (only the changed fields)", got, want)
	}
	if got, want := string(e.After), `{"rateLimitOverride":"5","tier":"pro"}`; got != want {
		t.Errorf("after = %s, want %s", got, want)
	}
	if e := redirects.NewAuditEntry(ctx, time.Now(), redirects.AuditRuleDelete, "", "", "rule", "1", map[string]any{"source": "/<a>"}, nil); e.After != nil || !json.Valid(e.Before) || !strings.Contains(string(e.Before), "/<a>") {
		t.Errorf("deletion entry: before %s after %s", e.Before, e.After)
	}
	f := redirects.AuditFilter{Action: "rule.*"}
	if err := f.Validate(); err != nil || f.ActionPrefix() != "rule." || f.Limit != redirects.DefaultAuditLimit {
		t.Errorf("filter rule.*: %v, prefix %q, limit %d", err, f.ActionPrefix(), f.Limit)
	}
	for _, bad := range []redirects.AuditFilter{{Action: "rule%"}, {Limit: -1}, {Since: time.Unix(10, 0), Until: time.Unix(5, 0)}} {
		if err := bad.Validate(); redirects.ErrorCode(err) != redirects.EINVALID {
			t.Errorf("filter %+v: %v, want EINVALID", bad, err)
		}
	}
}
