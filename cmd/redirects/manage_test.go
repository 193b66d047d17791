package main

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"math/big"
	"net"
	"net/http"
	"net/http/cookiejar"
	neturl "net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"redirects"
	"redirects/internal/testproxy"
	"redirects/internal/testreport"
)

// syncBuffer is a bytes.Buffer that a running Main writes while the test
// reads.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// inProcess runs Main with args on the database db and returns its
// output; stdin feeds it.
func inProcess(t *testing.T, db, stdin string, args ...string) (string, string, int) {
	t.Helper()
	var out, errb syncBuffer
	m := &Main{Stdin: strings.NewReader(stdin), Stdout: &out, Stderr: &errb, Clock: redirects.SystemClock{},
		Getenv: func(k string) string {
			if k == "REDIRECTS_DB" {
				return db
			}
			return ""
		}}
	code := m.Run(context.Background(), args)
	return out.String(), errb.String(), code
}

// running is a Main running serve or quickstart until the test ends.
type running struct {
	out, errb *syncBuffer
	cancel    context.CancelFunc
	code      chan int
}

func start(t *testing.T, db string, args ...string) *running {
	t.Helper()
	r := &running{out: &syncBuffer{}, errb: &syncBuffer{}, code: make(chan int, 1)}
	m := &Main{Stdin: strings.NewReader(""), Stdout: r.out, Stderr: r.errb, Clock: redirects.SystemClock{},
		Getenv: func(k string) string {
			if k == "REDIRECTS_DB" {
				return db
			}
			return ""
		}}
	ctx, cancel := context.WithCancel(context.Background())
	r.cancel = cancel
	go func() { r.code <- m.Run(ctx, args) }()
	t.Cleanup(func() { r.stop(t) })
	return r
}

// stop ends the program as SIGTERM does and checks that it exits 0.
func (r *running) stop(t *testing.T) {
	t.Helper()
	if r.cancel == nil {
		return
	}
	r.cancel()
	r.cancel = nil
	select {
	case code := <-r.code:
		if code != 0 {
			t.Errorf("exit code %d after the context ended; stderr:\n%s", code, r.errb.String())
		}
	case <-time.After(15 * time.Second):
		t.Errorf("did not stop within 15 s")
	}
}

// freeAddr returns a loopback address that was free a moment ago.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// waitFor polls until check holds, for up to 15 s.
func waitFor(t *testing.T, what string, check func() bool) {
	t.Helper()
	for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if check() {
			return
		}
	}
	t.Fatalf("%s: not within 15 s", what)
}

// apiCall sends JSON to the management API and decodes the answer.
func apiCall(t *testing.T, c *http.Client, method, url, csrf string, body, out any) *http.Response {
	t.Helper()
	var rd *bytes.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	} else {
		rd = bytes.NewReader(nil)
	}
	req, err := http.NewRequest(method, url, rd)
	if err != nil {
		t.Fatal(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if csrf != "" {
		req.Header.Set("X-CSRF-Token", csrf)
	}
	res, err := c.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer res.Body.Close()
	if out != nil {
		if err := json.NewDecoder(res.Body).Decode(out); err != nil {
			t.Fatalf("%s %s: %d, body not JSON: %v", method, url, res.StatusCode, err)
		}
	}
	return res
}

// TestServeManagementAPI: serve --manage-addr starts the management API
// on its own listener; an operator made on the command line signs in and
// creates an organization; the program stops cleanly.
func TestServeManagementAPI(t *testing.T) {
	storeIndependent(t, "it runs on a SQLite file of its own")
	db := "sqlite:" + filepath.Join(t.TempDir(), "r.db")
	const pw = "correct horse battery staple"
	if _, errs, code := inProcess(t, db, pw+"\n", "user", "create", "--email", "ops@example.com", "--operator", "--password-stdin"); code != 0 {
		t.Fatalf("user create: %s", errs)
	}
	addr := freeAddr(t)
	r := start(t, db, "serve", "--addr", "127.0.0.1:0", "--admin-addr", "", "--engine", "net/http", "--manage-addr", addr)
	base := "http://" + addr + "/manage/v1"
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar, Timeout: 10 * time.Second}
	waitFor(t, "the management API answers", func() bool {
		res, err := c.Get(base + "/orgs")
		if err == nil {
			res.Body.Close()
		}
		return err == nil && res.StatusCode == 401
	})
	var s struct{ CSRFToken string }
	if res := apiCall(t, c, "POST", base+"/session", "", map[string]string{"email": "ops@example.com", "password": pw}, &s); res.StatusCode != 200 {
		t.Fatalf("login: %d", res.StatusCode)
	}
	var o struct{ ID, Name string }
	if res := apiCall(t, c, "POST", base+"/orgs", s.CSRFToken, map[string]string{"name": "Acme", "tier": "pro"}, &o); res.StatusCode != 201 {
		t.Fatalf("create org: %d", res.StatusCode)
	}
	// The command line sees what the API did, and who did it.
	out, _, _ := inProcess(t, db, "", "audit", "--action", "org.create", "--json")
	if !strings.Contains(out, o.ID) || !strings.Contains(out, `"label": "ops@example.com"`) {
		t.Fatalf("audit after the API created %s:\n%s", o.ID, out)
	}
	r.stop(t)
	if _, err := c.Get(base + "/orgs"); err == nil {
		t.Fatalf("the management API still answers after the stop")
	}
}

// TestServeManagementAPIOverTLS: with --tls-cert and --tls-key the
// listener serves TLS and the session cookie is Secure.
func TestServeManagementAPIOverTLS(t *testing.T) {
	dir := t.TempDir()
	certFile, keyFile, pool := selfSigned(t, dir)
	db := "sqlite:" + filepath.Join(dir, "r.db")
	const pw = "correct horse battery staple"
	if _, errs, code := inProcess(t, db, pw+"\n", "user", "create", "--email", "ops@example.com", "--password-stdin"); code != 0 {
		t.Fatalf("user create: %s", errs)
	}
	addr := freeAddr(t)
	start(t, db, "serve", "--addr", "127.0.0.1:0", "--admin-addr", "", "--engine", "net/http", "--manage-addr", addr,
		"--tls-cert", certFile, "--tls-key", keyFile)
	c := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	base := "https://" + addr + "/manage/v1"
	waitFor(t, "the management API answers over TLS", func() bool {
		res, err := c.Get(base + "/orgs")
		if err == nil {
			res.Body.Close()
		}
		return err == nil && res.StatusCode == 401
	})
	res := apiCall(t, c, "POST", base+"/session", "", map[string]string{"email": "ops@example.com", "password": pw}, nil)
	if res.StatusCode != 200 || len(res.Cookies()) != 1 || !res.Cookies()[0].Secure || !res.Cookies()[0].HttpOnly {
		t.Fatalf("login over TLS: %d, cookies %+v", res.StatusCode, res.Cookies())
	}
	if res.Header.Get("Strict-Transport-Security") == "" {
		t.Errorf("no Strict-Transport-Security over TLS")
	}
}

// selfSigned writes a certificate for 127.0.0.1 and its key.
func selfSigned(t *testing.T, dir string) (certFile, keyFile string, pool *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "127.0.0.1"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kb, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb}), 0o600); err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	pool = x509.NewCertPool()
	pool.AddCert(cert)
	return certFile, keyFile, pool
}

// TestServeManagementFlags: bad TLS flags stop serve before it serves.
func TestServeManagementFlags(t *testing.T) {
	db := "sqlite:" + filepath.Join(t.TempDir(), "r.db")
	_, errs, code := inProcess(t, db, "", "serve", "--addr", "127.0.0.1:0", "--admin-addr", "", "--engine", "net/http",
		"--manage-addr", "127.0.0.1:0", "--tls-cert", "cert.pem")
	if code != exitUsage || !strings.Contains(errs, "--tls-cert and --tls-key go together") {
		t.Errorf("--tls-cert alone: exit %d, %s", code, errs)
	}
	_, errs, code = inProcess(t, db, "", "serve", "--addr", "127.0.0.1:0", "--admin-addr", "", "--engine", "net/http",
		"--manage-addr", "127.0.0.1:0", "--tls-cert", "missing.pem", "--tls-key", "missing.key")
	if code != exitError || !strings.Contains(errs, "missing.pem") {
		t.Errorf("missing certificate: exit %d, %s", code, errs)
	}
}

var manageLogin = regexp.MustCompile(`Management API: (http://\S+)/\nLogin: (\S+)  one-time password \(shown once\): (\S+)`)

// TestQuickstartManagementAPI: quickstart prints the management address
// and a login that works, as owner of the demo organization; a second run
// gives a new password and ends the first.
func TestQuickstartManagementAPI(t *testing.T) {
	storeIndependent(t, "it runs on a SQLite file of its own")
	db := "sqlite:" + filepath.Join(t.TempDir(), "r.db")
	run := func() (base, email, pw string, stop func()) {
		r := start(t, db, "quickstart", "--addr", "127.0.0.1:0", "--admin-addr", "", "--manage-addr", "127.0.0.1:0")
		var m []string
		waitFor(t, "quickstart prints the management login", func() bool {
			m = manageLogin.FindStringSubmatch(r.out.String())
			return m != nil
		})
		return m[1], m[2], m[3], func() { r.stop(t) }
	}
	base, email, pw, stop := run()
	if email != "admin@example.com" {
		t.Fatalf("login %s", email)
	}
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Timeout: 10 * time.Second, Jar: jar}
	var session struct{ CSRFToken string }
	if res := apiCall(t, c, "POST", base+"/session", "", map[string]string{"email": email, "password": pw}, &session); res.StatusCode != 200 {
		t.Fatalf("quickstart login: %d", res.StatusCode)
	}
	// The printed password is a one-time password: the API serves nothing
	// else until it is changed.
	var refused struct{ Code string }
	if res := apiCall(t, c, "GET", base+"/orgs", "", nil, &refused); res.StatusCode != 403 || refused.Code != "PASSWORD_CHANGE_REQUIRED" {
		t.Fatalf("the quickstart login's orgs before the password change: %d %+v, want 403 PASSWORD_CHANGE_REQUIRED", res.StatusCode, refused)
	}
	if res := apiCall(t, c, "POST", base+"/session/password", session.CSRFToken, map[string]string{"currentPassword": pw, "newPassword": "the demo's own password"}, nil); res.StatusCode != 200 {
		t.Fatalf("the quickstart login's password change: %d", res.StatusCode)
	}
	var orgs struct {
		Orgs []struct {
			Name string
			Role *string
		}
	}
	apiCall(t, c, "GET", base+"/orgs", "", nil, &orgs)
	if len(orgs.Orgs) != 1 || orgs.Orgs[0].Name != "Demo" || orgs.Orgs[0].Role == nil || *orgs.Orgs[0].Role != "owner" {
		t.Fatalf("the quickstart login's orgs: %+v", orgs)
	}
	stop()

	base, _, pw2, _ := run()
	if pw2 == pw {
		t.Fatalf("the second quickstart printed the same password")
	}
	if res := apiCall(t, c, "GET", base+"/orgs", "", nil, nil); res.StatusCode != 401 {
		t.Errorf("the first run's session after a new password: %d, want 401", res.StatusCode)
	}
	if res := apiCall(t, c, "POST", base+"/session", "", map[string]string{"email": email, "password": pw}, nil); res.StatusCode != 401 {
		t.Errorf("the first password after the second run: %d, want 401", res.StatusCode)
	}
}

// TestServeManagementAPIWithoutItsDatabase: a node started while its
// database cannot be reached serves the management API with 503 until it
// can, as the edge does, and stops cleanly.
func TestServeManagementAPIWithoutItsDatabase(t *testing.T) {
	db := "postgres://redirects@127.0.0.1:1/redirects?sslmode=disable&connect_timeout=1"
	addr := freeAddr(t)
	r := start(t, db, "serve", "--addr", "127.0.0.1:0", "--admin-addr", "", "--engine", "net/http", "--manage-addr", addr)
	c := &http.Client{Timeout: 10 * time.Second}
	var body struct{ Error, Code string }
	waitFor(t, "the management API answers", func() bool {
		res, err := c.Get("http://" + addr + "/manage/v1/orgs")
		if err != nil {
			return false
		}
		defer res.Body.Close()
		json.NewDecoder(res.Body).Decode(&body)
		return res.StatusCode == 503 && res.Header.Get("Cache-Control") == "no-store"
	})
	if body.Code != "SERVICE_UNAVAILABLE" {
		t.Errorf("503 body %+v", body)
	}
	r.stop(t)
}

// TestManagementAPIReachesItsDatabaseLater: once the database answers, the
// management API serves without a restart.
func TestManagementAPIReachesItsDatabaseLater(t *testing.T) {
	storeIndependent(t, "it makes a PostgreSQL database of its own")
	admin := os.Getenv("REDIRECTS_TEST_POSTGRES")
	if admin == "" {
		testreport.Skip(t, testreport.Postgres, "REDIRECTS_TEST_POSTGRES is not set; run with REDIRECTS_TEST_POSTGRES='postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable'")
	}
	testreport.Ran(t, testreport.Postgres)
	name := "redirects_manage_" + strconv.FormatInt(time.Now().UnixNano(), 36)
	pgExec := func(sql string) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		conn, err := pgx.Connect(ctx, admin)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close(ctx)
		if _, err := conn.Exec(ctx, sql); err != nil {
			t.Fatal(err)
		}
	}
	pgExec("CREATE DATABASE " + name)
	t.Cleanup(func() { pgExec("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)") })
	u, err := neturl.Parse(admin)
	if err != nil {
		t.Fatal(err)
	}
	target := u.Host
	proxyAddr := freeAddr(t)
	u.Host, u.Path = proxyAddr, "/"+name
	q := u.Query()
	q.Set("connect_timeout", "1")
	u.RawQuery = q.Encode()

	addr := freeAddr(t)
	start(t, u.String(), "serve", "--addr", "127.0.0.1:0", "--admin-addr", "", "--engine", "net/http", "--manage-addr", addr)
	c := &http.Client{Timeout: 10 * time.Second}
	status := func() int {
		res, err := c.Get("http://" + addr + "/manage/v1/orgs")
		if err != nil {
			return 0
		}
		res.Body.Close()
		return res.StatusCode
	}
	waitFor(t, "503 while the database cannot be reached", func() bool { return status() == 503 })
	testproxy.Start(t, proxyAddr, target)
	waitFor(t, "401 once the database answers", func() bool { return status() == 401 })
}
