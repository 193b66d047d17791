package redis_test

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"io"
	"log/slog"
	"math/big"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"redirects"
	"redirects/redis"
)

// server is a redis-server of the test's own, for what a shared one cannot
// show: its connection count, TLS, a password.
type server struct {
	t    *testing.T
	port string
	args []string
	cmd  *exec.Cmd
}

// startServer runs redis-server on a free loopback port with args added.
// With tls, port is the TLS port and the plain port is off.
func startServer(t *testing.T, tls bool, args ...string) *server {
	t.Helper()
	redisURL(t) // the same gate as the other Redis tests
	if _, err := exec.LookPath("redis-server"); err != nil {
		t.Skip("redis-server is not installed (apt-get install redis-server)")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	ln.Close()
	s := &server{t: t, port: port}
	s.args = append([]string{"--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", t.TempDir()}, args...)
	if tls {
		s.args = append(s.args, "--port", "0", "--tls-port", port)
	} else {
		s.args = append(s.args, "--port", port)
	}
	s.start()
	return s
}

// start runs the server (again, after stop: with an empty memory).
func (s *server) start() {
	t := s.t
	t.Helper()
	cmd := exec.Command("redis-server", s.args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s.cmd = cmd
	t.Cleanup(s.stop)
	port := s.port
	deadline := time.Now().Add(10 * time.Second)
	for {
		if c, err := net.Dial("tcp", "127.0.0.1:"+port); err == nil {
			c.Close()
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("redis-server on port %s did not listen in 10 s:\n%s", port, out.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (s *server) stop() {
	if s.cmd.ProcessState == nil {
		s.cmd.Process.Kill()
		s.cmd.Wait()
	}
}

// cli runs redis-cli against the server.
func (s *server) cli(args ...string) {
	s.t.Helper()
	if out, err := exec.Command("redis-cli", append([]string{"-p", s.port}, args...)...).CombinedOutput(); err != nil {
		s.t.Fatalf("redis-cli %v: %v %s", args, err, out)
	}
}

// info returns one field of INFO, read with redis-cli.
func (s *server) info(field string, cliArgs ...string) int {
	s.t.Helper()
	out, err := exec.Command("redis-cli", append(append([]string{"-p", s.port}, cliArgs...), "INFO")...).CombinedOutput()
	if err != nil {
		s.t.Fatalf("redis-cli INFO: %v %s", err, out)
	}
	for _, l := range strings.Split(string(out), "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(l), field+":"); ok {
			n, _ := strconv.Atoi(v)
			return n
		}
	}
	s.t.Fatalf("no %s in INFO:\n%s", field, out)
	return 0
}

func TestURLForms(t *testing.T) {
	for _, tt := range []struct{ url, addr string }{
		{"redis://127.0.0.1:6380/0", "127.0.0.1:6380"},
		{"redis://redis.internal", "redis.internal:6379"},
		{"redis://[::1]", "[::1]:6379"},
		{"redis://[::1]:6390/2", "[::1]:6390"},
		{"rediss://user:pw@cache.example:6380/1", "cache.example:6380"},
		{"redis://secret@127.0.0.1", "127.0.0.1:6379"},
	} {
		if got, err := redis.Addr(tt.url); err != nil || got != tt.addr {
			t.Errorf("Addr(%q) = %q, %v; want %q", tt.url, got, err, tt.addr)
		}
	}
	for _, bad := range []string{"http://127.0.0.1", "redis://", "redis://:pw-in-url@127.0.0.1/x", "redis://u:pw-in-url@127.0.0.1:bad/0"} {
		_, err := redis.Addr(bad)
		if err == nil {
			t.Errorf("Addr(%q) accepted", bad)
		} else if strings.Contains(err.Error(), "pw-in-url") {
			t.Errorf("Addr(%q) error repeats the password: %v", bad, err)
		}
	}
}

// TestPasswordNeverPrinted opens limiters with a wrong password, and with a
// right one to a Redis that then goes away: no error and no log line
// shows the password.
func TestPasswordNeverPrinted(t *testing.T) {
	const pw = "pw-9f3a1c-secret"
	srv := startServer(t, false, "--requirepass", pw)
	s := openStore(t)
	o := org(t, s, 5, redirects.Unlimited)
	now := time.Date(2026, 5, 5, 10, 0, 5, 0, time.UTC)
	var logs bytes.Buffer
	var mu sync.Mutex
	logger := slog.New(slog.NewTextHandler(&lockedWriter{w: &logs, mu: &mu}, &slog.HandlerOptions{Level: slog.LevelDebug}))
	for _, url := range []string{
		"redis://default:wrong-" + pw + "@127.0.0.1:" + srv.port + "/0",
		"redis://:wrong-" + pw + "@127.0.0.1:" + srv.port,
		"redis://default:" + pw + "@127.0.0.1:" + srv.port + "/99999", // no such database
	} {
		l, err := redis.Open(context.Background(), url, "p:", s, logger, fixedClock{now})
		if err != nil {
			if strings.Contains(err.Error(), pw) {
				t.Errorf("Open error shows the password: %v", err)
			}
			continue
		}
		if !l.Down() {
			t.Errorf("limiter with a wrong password or database is not in fallback")
		}
		l.Take(context.Background(), redirects.Usage{Org: o, Lookup: true, Now: now})
		l.Close()
	}
	mu.Lock()
	text := logs.String()
	mu.Unlock()
	if !strings.Contains(text, "Redis unreachable") {
		t.Fatalf("no fallback was logged:\n%s", text)
	}
	if strings.Contains(text, pw) {
		t.Fatalf("the log shows the password:\n%s", text)
	}
}

type lockedWriter struct {
	w  io.Writer
	mu *sync.Mutex
}

func (w *lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.w.Write(p)
}

// TestTLS shares limits through a redis-server that speaks only TLS, with a
// certificate the test makes.
func TestTLS(t *testing.T) {
	dir := t.TempDir()
	certFile, keyFile, pool := selfSigned(t, dir)
	srv := startServer(t, true, "--tls-cert-file", certFile, "--tls-key-file", keyFile,
		"--tls-ca-cert-file", certFile, "--tls-auth-clients", "no")
	redis.SetRootCAs(pool)
	t.Cleanup(func() { redis.SetRootCAs(nil) })
	s := openStore(t)
	o := org(t, s, 3, redirects.Unlimited)
	now := time.Date(2026, 5, 5, 10, 0, 5, 0, time.UTC)
	url := "rediss://localhost:" + srv.port + "/0"
	a, b := open(t, url, "tls:", s, now), open(t, url, "tls:", s, now)
	if a.Down() || b.Down() {
		t.Fatal("limiters over rediss:// fell back: TLS did not connect")
	}
	admitted := 0
	for i := 0; i < 6; i++ {
		if d := []*redis.Limiter{a, b}[i%2].Take(context.Background(), redirects.Usage{Org: o, Lookup: true, Now: now}); d.Refused == redirects.NotRefused {
			admitted++
		}
	}
	if admitted != 3 || a.Down() || b.Down() {
		t.Fatalf("%d of 6 admitted over TLS by two nodes (down %v %v), want the shared 3", admitted, a.Down(), b.Down())
	}
	// The same server over plain TCP is refused: the limiter did speak TLS.
	if c, err := net.Dial("tcp", "127.0.0.1:"+srv.port); err == nil {
		c.Write([]byte("PING\r\n"))
		c.SetReadDeadline(time.Now().Add(2 * time.Second))
		buf := make([]byte, 16)
		n, _ := c.Read(buf)
		c.Close()
		if strings.Contains(string(buf[:n]), "PONG") {
			t.Fatal("the TLS port answered a plain PING: the test does not test TLS")
		}
	}
	// An untrusted certificate is not accepted.
	redis.SetRootCAs(x509.NewCertPool())
	if l := open(t, url, "tls:", s, now); !l.Down() {
		t.Fatal("a limiter trusting no CA connected")
	}
}

// selfSigned writes a certificate for localhost and 127.0.0.1 and its key.
func selfSigned(t *testing.T, dir string) (certFile, keyFile string, pool *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "localhost"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		DNSNames: []string{"localhost"}, IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)},
		KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign, IsCA: true, BasicConstraintsValid: true,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kder, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder}), 0o600); err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	pool = x509.NewCertPool()
	pool.AddCert(cert)
	return certFile, keyFile, pool
}

// TestConnectionsBounded sends thousands of concurrent round trips through
// one limiter: it keeps a fixed, small number of connections, instead of
// opening one per burst.
func TestConnectionsBounded(t *testing.T) {
	srv := startServer(t, false)
	s := openStore(t)
	o := org(t, s, 1, redirects.Unlimited)
	start := time.Date(2026, 5, 5, 10, 0, 5, 0, time.UTC)
	unlessFellBack(t, func() ([]*redis.Limiter, error) {
		before := srv.info("total_connections_received")
		l := open(t, "redis://127.0.0.1:"+srv.port, "c:", s, start)
		var wg sync.WaitGroup
		var admitted atomic.Int64
		const workers, each = 64, 60
		for w := 0; w < workers; w++ {
			wg.Add(1)
			go func(w int) {
				defer wg.Done()
				for i := 0; i < each; i++ {
					// A limit of 1 and a new minute for every request: every
					// request takes its own round trip.
					now := start.Add(time.Duration(w*each+i) * time.Minute)
					if d := l.Take(context.Background(), redirects.Usage{Org: o, Lookup: true, Now: now}); d.Refused == redirects.NotRefused {
						admitted.Add(1)
					}
				}
			}(w)
		}
		wg.Wait()
		trips := l.Stats().RoundTrips
		opened := srv.info("total_connections_received") - before - 1 // the INFO's own
		clients := srv.info("connected_clients") - 1
		t.Logf("%d round trips, %d admitted, %d connections opened, %d connected", trips, admitted.Load(), opened, clients)
		defer l.Close() // before the next run counts connections
		if trips < workers*each/2 {
			return []*redis.Limiter{l}, fmt.Errorf("%d round trips for %d requests: the test did not load Redis", trips, workers*each)
		}
		if opened > 4 || clients > 4 {
			return []*redis.Limiter{l}, fmt.Errorf("%d connections opened, %d open, for %d round trips: want a fixed few", opened, clients, trips)
		}
		return []*redis.Limiter{l}, nil
	})
}
