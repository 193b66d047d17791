package http

import (
	"bytes"
	"slices"
	"strconv"
	"testing"

	"pgregory.net/rapid"

	"redirects"
)

// TestCheckOrder drives the check pipeline through Edge.Handle, one case per
// step of docs/contract.md's order, each with a request that would also
// fail a later check, so that only the order makes the answer.
func TestCheckOrder(t *testing.T) {
	f := newFixture(t, nil)
	// A well-formed key that was never stored.
	_, unknownSecret := redirects.NewKey(f.project.ID, "", false, redirects.SystemClock{}.Now())
	revoked := f.newKey(false)
	if _, err := f.db.RevokeKey(f.ctx, f.project.ID, revoked); err != nil {
		t.Fatal(err)
	}
	f.refresh()
	other := &redirects.Project{OrgID: f.org.ID, Name: "empty"}
	f.ok(f.db.CreateProject(f.ctx, other))
	f.refresh()

	tests := []struct {
		name, method, path, query, key string
		want                           *apiError
	}{
		{"method before key", "POST", "/v1/lookup", "", "", errMethod},
		{"method on export", "DELETE", "/v1/export", "", "", errMethod},
		{"missing key before parameters", "GET", "/v1/lookup", "", "", errMissingKey},
		{"malformed key", "GET", "/v1/lookup", "", "not-a-key", errInvalidKey},
		{"unknown key", "GET", "/v1/lookup", "", unknownSecret, errInvalidKey},
		{"revoked key", "GET", "/v1/lookup", f.lookupQuery("/a"), revoked, errInvalidKey},
		{"parameters before project", "GET", "/v1/lookup", "project=" + other.ID, f.secret, errMissingPath},
		{"missing project", "GET", "/v1/export", "format=csv", f.secret, errMissingProject},
		{"foreign project", "GET", "/v1/lookup", "project=" + other.ID + "&path=/a", f.secret, errProject},
		{"unknown project", "GET", "/v1/export", "project=prj_nope&format=csv", f.secret, errProject},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := f.handle(tt.method, tt.path, tt.query, tt.key)
			wantError(t, w, tt.want)
			if tt.want == errMethod && header(w, "Allow") != "GET" {
				t.Errorf("Allow %q, want GET", header(w, "Allow"))
			}
			// Limit headers are written once a key has been checked, and
			// only then.
			limited := tt.want == errMissingPath || tt.want == errMissingProject || tt.want == errProject
			if got := header(w, "X-RateLimit-Limit") != ""; got != limited {
				t.Errorf("rate headers present: %v, want %v", got, limited)
			}
		})
	}

	// The deployment is checked last: the project is the key's own.
	t.Run("version not found", func(t *testing.T) {
		w := f.handle("GET", "/v1/lookup", f.lookupQuery("/a")+"&version=99", f.secret)
		wantError(t, w, errVersionNotFound(false, 99))
		w = f.handle("GET", "/v1/export", "project="+f.project.ID+"&format=csv&version=99999999999999999999", f.secret)
		wantError(t, w, errVersionNotFoundText(true, "99999999999999999999"))
	})
	t.Run("no deployments", func(t *testing.T) {
		key, secret := redirects.NewKey(other.ID, "", false, redirects.SystemClock{}.Now())
		f.ok(f.db.CreateKey(f.ctx, key))
		f.refresh()
		wantError(t, f.handle("GET", "/v1/lookup", "project="+other.ID+"&path=/a", secret), errNoDeployments)
		wantError(t, f.handle("GET", "/v1/export", "project="+other.ID+"&format=csv", secret), errNoExports)
		wantError(t, f.handle("GET", "/v1/lookup", "project="+other.ID+"&path=/a&version=1", secret), errVersionNotFound(false, 1))
	})
	t.Run("unavailable before the store is loaded", func(t *testing.T) {
		e := &Edge{Clock: redirects.SystemClock{}, Logger: f.edge.Logger, Metrics: NewMetrics()}
		w := new(Resp)
		if slow := e.Handle(&Req{Method: "GET", Path: "/v1/lookup", APIKey: f.secret}, w); slow != nil {
			t.Fatal("took the slow path")
		}
		wantError(t, w, errUnavailable)
	})
}

// TestCheckLimits checks that quota comes before rate, and both before the
// parameters.
func TestCheckLimits(t *testing.T) {
	one := redirects.Limit(1)
	t.Run("quota before rate", func(t *testing.T) {
		f := newFixture(t, &redirects.Org{Name: "tight", Tier: redirects.TierFree, RateLimitOverride: &one, QuotaOverride: &one})
		w := f.handle("GET", "/v1/lookup", f.lookupQuery("/a"), f.secret)
		if w.Status != 200 || header(w, "X-Quota-Remaining") != "0" || header(w, "X-RateLimit-Remaining") != "0" {
			t.Fatalf("first lookup: %d, quota remaining %q, rate remaining %q", w.Status, header(w, "X-Quota-Remaining"), header(w, "X-RateLimit-Remaining"))
		}
		// Over both: the quota answers, and before the missing parameters.
		w = f.handle("GET", "/v1/lookup", "", f.secret)
		wantError(t, w, errQuota)
		if ra, err := strconv.Atoi(header(w, "Retry-After")); err != nil || ra < 1 {
			t.Errorf("Retry-After %q", header(w, "Retry-After"))
		}
		if header(w, "X-Quota-Limit") != "1" {
			t.Errorf("X-Quota-Limit %q, want 1", header(w, "X-Quota-Limit"))
		}
	})
	t.Run("rate", func(t *testing.T) {
		f := newFixture(t, &redirects.Org{Name: "slow", Tier: redirects.TierEnterprise, RateLimitOverride: &one})
		if w := f.handle("GET", "/v1/export", "project="+f.project.ID+"&format=csv", f.secret); w.Status != 200 {
			t.Fatalf("first export: %d %s", w.Status, w.Body)
		}
		w := f.handle("GET", "/v1/export", "format=%zz", f.secret)
		wantError(t, w, errRate)
		if ra, err := strconv.Atoi(header(w, "Retry-After")); err != nil || ra < 1 || ra > 60 {
			t.Errorf("Retry-After %q, want 1..60", header(w, "Retry-After"))
		}
		if header(w, "X-Quota-Limit") != "" {
			t.Errorf("an export answered quota headers")
		}
	})
}

// TestKeyMemoIsNoMemo holds an event loop's key memo to the edge without
// one: a loop's requests, drawn from live, test, revoked, unknown,
// malformed and nearly-equal keys of two projects, with keys revoked
// along the way, answer exactly as the same requests with no memo
// (net/http's, which hashes every key).
func TestKeyMemoIsNoMemo(t *testing.T) {
	f := newFixture(t, nil)
	other := &redirects.Project{OrgID: f.org.ID, Name: "other"}
	f.ok(f.db.CreateProject(f.ctx, other))
	k, otherSecret := redirects.NewKey(other.ID, "", false, redirects.SystemClock{}.Now())
	f.ok(f.db.CreateKey(f.ctx, k))
	_, unknown := redirects.NewKey(f.project.ID, "", false, redirects.SystemClock{}.Now())
	var secrets []string
	for range 3 {
		secrets = append(secrets, f.newKey(false), f.newKey(true))
	}
	f.refresh()
	near := func(s string, c byte) string { return s[:len(s)-1] + string(c) }
	keys := append(secrets, f.secret, otherSecret, unknown, "",
		near(f.secret, '-'), near(f.secret, 'Z'), near(f.secret, 'a'), f.secret+"x", f.secret[:len(f.secret)-1])
	rapid.Check(t, func(rt *rapid.T) {
		memo := new(keyMemo)
		for i := range rapid.IntRange(1, 60).Draw(rt, "requests") {
			if len(secrets) > 0 && rapid.IntRange(0, 9).Draw(rt, "revoke") == 0 {
				j := rapid.IntRange(0, len(secrets)-1).Draw(rt, "which")
				_, err := f.db.RevokeKey(f.ctx, f.project.ID, secrets[j])
				f.ok(err)
				secrets = slices.Delete(secrets, j, j+1)
				f.refresh()
			}
			key := rapid.SampledFrom(keys).Draw(rt, "key")
			project := rapid.SampledFrom([]string{f.project.ID, other.ID}).Draw(rt, "project")
			query := "project=" + project + "&path=" + rapid.SampledFrom([]string{"/a", "/b", "/c"}).Draw(rt, "path")
			with := f.handleReq(&Req{Method: "GET", Path: "/v1/lookup", RawQuery: query, APIKey: key, Ctx: f.ctx, memo: memo})
			without := f.handle("GET", "/v1/lookup", query, key)
			if with.Status != without.Status || string(with.Body) != string(without.Body) {
				rt.Fatalf("request %d (key %q, %s): with the memo %d %s, without %d %s",
					i, key, query, with.Status, with.Body, without.Status, without.Body)
			}
		}
	})
}

// TestEqualKeys holds equalKeys to bytes.Equal on random keys and on keys
// that differ in one byte, anywhere.
func TestEqualKeys(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		a := rapid.SliceOfN(rapid.Byte(), 0, maxKeyLen).Draw(rt, "a")
		b := slices.Clone(a)
		if len(b) > 0 && rapid.Bool().Draw(rt, "differ") {
			i := rapid.IntRange(0, len(b)-1).Draw(rt, "at")
			b[i] ^= byte(rapid.IntRange(1, 255).Draw(rt, "bits"))
		}
		if got, want := equalKeys(a, string(b)), bytes.Equal(a, b); got != want {
			rt.Fatalf("equalKeys(%q, %q) = %v, want %v", a, b, got, want)
		}
	})
}
