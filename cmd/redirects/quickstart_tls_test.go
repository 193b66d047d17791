package main

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"redirects"
)

// loginFormToken returns the csrf field of a sign-in page.
func loginFormToken(t *testing.T, page string) string {
	t.Helper()
	m := regexp.MustCompile(`name="csrf" value="([^"]+)"`).FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("the sign-in page has no csrf field:\n%s", page)
	}
	return m[1]
}

// TestQuickstartTLSPrintsHTTPS: with --tls-cert, quickstart prints https
// addresses for the dashboard and the management API, in its curl
// commands too, and the dashboard it names answers there over TLS with
// Strict-Transport-Security on the sign-in page.
func TestQuickstartTLSPrintsHTTPS(t *testing.T) {
	storeIndependent(t, "it runs on a SQLite file of its own")
	dir := t.TempDir()
	certFile, keyFile, pool := selfSigned(t, dir)
	db := "sqlite:" + filepath.Join(dir, "r.db")
	r := start(t, db, "quickstart", "--addr", "127.0.0.1:0", "--admin-addr", "", "--manage-addr", "127.0.0.1:0",
		"--tls-cert", certFile, "--tls-key", keyFile)
	dashboard := regexp.MustCompile(`Dashboard: (\S+)/  \(sign in with the login below\)\nManagement API: (\S+)/\n`)
	var m []string
	waitFor(t, "quickstart prints the dashboard", func() bool {
		m = dashboard.FindStringSubmatch(r.out.String())
		return m != nil && strings.Contains(r.out.String(), "# your organizations:")
	})
	out := r.out.String()
	if !strings.HasPrefix(m[1], "https://127.0.0.1:") || m[2] != m[1]+"/manage/v1" {
		t.Fatalf("with --tls-cert, the dashboard is at %q and the API at %q; want https addresses\n%s", m[1], m[2], out)
	}
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "curl ") && strings.Contains(l, "/manage/v1") && !strings.Contains(l, "'https://") {
			t.Errorf("a management curl command without https: %s", l)
		}
	}
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar, Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	res, err := c.Get(m[1] + "/login")
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || res.Header.Get("Strict-Transport-Security") == "" {
		t.Fatalf("GET %s/login over TLS: %d, Strict-Transport-Security %q", m[1], res.StatusCode, res.Header.Get("Strict-Transport-Security"))
	}
	login := regexp.MustCompile(`Login: (\S+)  one-time password \(shown once\): (\S+)`).FindStringSubmatch(out)
	res, err = c.PostForm(m[1]+"/login", url.Values{"csrf": {loginFormToken(t, string(page))}, "email": {login[1]}, "password": {login[2]}})
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 200 || res.Header.Get("Strict-Transport-Security") == "" {
		t.Fatalf("signing in over TLS: %d %s, Strict-Transport-Security %q", res.StatusCode, res.Request.URL, res.Header.Get("Strict-Transport-Security"))
	}
}

// TestQuickstartRevokesEarlierKeys: a second quickstart run on the same
// database revokes the key the first printed; only the newest quickstart
// key is live, and a key made by hand stays live.
func TestQuickstartRevokesEarlierKeys(t *testing.T) {
	db := "sqlite:" + filepath.Join(t.TempDir(), "r.db")
	keyLine := regexp.MustCompile(`API key \(shown once\): (\S+)\n`)
	var project string
	run := func() string {
		r := start(t, db, "quickstart", "--addr", "127.0.0.1:0", "--admin-addr", "", "--manage-addr", "")
		var m []string
		waitFor(t, "quickstart prints its key", func() bool {
			m = keyLine.FindStringSubmatch(r.out.String())
			return m != nil
		})
		project = regexp.MustCompile(`serving project (\S+) `).FindStringSubmatch(r.out.String())[1]
		r.stop(t)
		return m[1]
	}
	first := run()
	out, errs, code := inProcess(t, db, "", "key", "create", "--project", project, "--name", "mine")
	if code != 0 {
		t.Fatalf("key create: %s", errs)
	}
	mine := strings.TrimSpace(out)
	second := run()
	out, errs, code = inProcess(t, db, "", "key", "list", "--project", project, "--json")
	if code != 0 {
		t.Fatalf("key list: %s", errs)
	}
	var keys []struct {
		Name, Last4 string
		RevokedAt   *string
	}
	if err := json.Unmarshal([]byte(out), &keys); err != nil {
		t.Fatalf("key list --json: %v\n%s", err, out)
	}
	live := map[string]string{}
	for _, k := range keys {
		if k.RevokedAt == nil {
			live[k.Last4] = k.Name
		}
	}
	last4 := func(s string) string { return s[len(s)-4:] }
	if len(live) != 2 || live[last4(second)] != "quickstart" || live[last4(mine)] != "mine" || live[last4(first)] != "" {
		t.Fatalf("live keys after two runs: %v (first …%s, second …%s, mine …%s)", live, last4(first), last4(second), last4(mine))
	}
}

// TestOneTimePasswordsMustBeChanged: a password the CLI prints (user
// create, user reset-password) is one the user must change at their first
// sign-in; one given on standard input is not.
func TestOneTimePasswordsMustBeChanged(t *testing.T) {
	db := "sqlite:" + filepath.Join(t.TempDir(), "r.db")
	for _, args := range [][]string{
		{"user", "create", "--email", "printed@example.com"},
		{"user", "create", "--email", "given@example.com", "--password-stdin"},
		{"user", "create", "--email", "reset@example.com", "--password-stdin"},
		{"user", "reset-password", "reset@example.com"},
	} {
		if _, errs, code := inProcess(t, db, "a password given on stdin\n", args...); code != 0 {
			t.Fatalf("%s: %s", args, errs)
		}
	}
	s, err := OpenStore(context.Background(), db, redirects.SystemClock{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	a := s.(redirects.AccountStore)
	for email, want := range map[string]bool{"printed@example.com": true, "given@example.com": false, "reset@example.com": true} {
		u, err := a.FindUserByEmail(context.Background(), email)
		if err != nil || u.MustChangePassword != want {
			t.Errorf("%s: must change password %v (%v), want %v", email, u != nil && u.MustChangePassword, err, want)
		}
	}
}
