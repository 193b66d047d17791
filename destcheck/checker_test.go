package destcheck

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"redirects"
	"redirects/webhook"
)

// serveOn starts an httptest server on ip (a loopback address) and
// returns its base URL.
func serveOn(t *testing.T, ip string, h http.Handler) string {
	t.Helper()
	return serveOnCleanup(t, ip, h)
}

// serveOnCleanup is serveOn for a test or a benchmark.
func serveOnCleanup(t testing.TB, ip string, h http.Handler) string {
	t.Helper()
	ln, err := net.Listen("tcp", ip+":0")
	if err != nil {
		t.Skipf("cannot listen on %s: %v", ip, err)
	}
	srv := &httptest.Server{Listener: ln, Config: &http.Server{Handler: h}}
	srv.Start()
	t.Cleanup(srv.Close)
	return srv.URL
}

// publicExcept127_0_0_1 is a dialer's Control under which 127.0.0.1
// stands for a public address and every other address is judged by the
// webhooks' rule.
func publicExcept127_0_0_1(network, address string, c syscall.RawConn) error {
	if strings.HasPrefix(address, "127.0.0.1:") {
		return nil
	}
	return webhook.PublicOnly(network, address, c)
}

func TestCheckOutcomes(t *testing.T) {
	var privateHits atomic.Int64
	private := serveOn(t, "127.0.0.2", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		privateHits.Add(1)
	}))
	var uas sync.Map
	mux := http.NewServeMux()
	mux.HandleFunc("/ok", func(w http.ResponseWriter, r *http.Request) { uas.Store(r.UserAgent(), true) })
	mux.HandleFunc("/404", http.NotFound)
	mux.HandleFunc("/500", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(500) })
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() })
	mux.HandleFunc("/r1", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/r2", http.StatusMovedPermanently) })
	mux.HandleFunc("/r2", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/ok", http.StatusFound) })
	mux.HandleFunc("/loop-a", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/loop-b", http.StatusFound) })
	mux.HandleFunc("/loop-b", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/loop-a", http.StatusFound) })
	mux.HandleFunc("/chain/", func(w http.ResponseWriter, r *http.Request) {
		var n int
		fmt.Sscanf(strings.TrimPrefix(r.URL.Path, "/chain/"), "%d", &n)
		http.Redirect(w, r, fmt.Sprintf("/chain/%d", n+1), http.StatusFound)
	})
	mux.HandleFunc("/to-private", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, private+"/secret", http.StatusFound)
	})
	mux.HandleFunc("/no-head", func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodHead {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		// A body that never ends: the check reads 64 KiB of it and no more.
		buf := make([]byte, 32<<10)
		for {
			if _, err := w.Write(buf); err != nil {
				return
			}
		}
	})
	base := serveOn(t, "127.0.0.1", mux)
	offsite := serveOn(t, "127.0.0.1", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, strings.Replace(base, "127.0.0.1", "localhost", 1)+"/ok", http.StatusFound)
	}))

	type want struct {
		outcome redirects.CheckOutcome
		status  int
		hops    int
		final   string
	}
	cases := map[string]want{
		base + "/ok":         {redirects.CheckOK, 200, 0, base + "/ok"},
		base + "/404":        {redirects.CheckBroken, 404, 0, base + "/404"},
		base + "/500":        {redirects.CheckBroken, 500, 0, base + "/500"},
		base + "/slow":       {redirects.CheckTimedOut, 0, 0, base + "/slow"},
		base + "/r1":         {redirects.CheckOK, 200, 2, base + "/ok"},
		base + "/loop-a":     {redirects.CheckLoop, 302, 2, base + "/loop-a"},
		base + "/chain/0":    {redirects.CheckLoop, 302, 5, base + "/chain/5"},
		base + "/to-private": {redirects.CheckRefused, 302, 1, private + "/secret"},
		base + "/no-head":    {redirects.CheckOK, 200, 0, base + "/no-head"},
		offsite + "/":        {redirects.CheckOffsite, 200, 1, strings.Replace(base, "127.0.0.1", "localhost", 1) + "/ok"},
	}
	var targets []redirects.CheckTarget
	for u := range cases {
		targets = append(targets, redirects.CheckTarget{Destination: u, URL: u})
	}
	c := &Checker{Timeout: 500 * time.Millisecond, control: publicExcept127_0_0_1}
	got, err := c.Check(context.Background(), targets, "https://www.example.com", nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, d := range got {
		w := cases[targets[i].URL]
		if d.Destination != targets[i].Destination || d.Outcome != w.outcome || d.Status != w.status || d.Hops != w.hops || d.FinalURL != w.final {
			t.Errorf("%s: got outcome %s status %d hops %d final %s (%s), want %s %d %d %s",
				targets[i].URL, d.Outcome, d.Status, d.Hops, d.FinalURL, d.Error, w.outcome, w.status, w.hops, w.final)
		}
		if d.CheckedAt.IsZero() || d.Duration <= 0 {
			t.Errorf("%s: checked at %v in %v, want a time and a duration", targets[i].URL, d.CheckedAt, d.Duration)
		}
	}
	if n := privateHits.Load(); n != 0 {
		t.Errorf("the private address got %d requests, want none", n)
	}
	wantUA := UserAgent("https://www.example.com")
	if _, ok := uas.Load(wantUA); !ok || !strings.HasPrefix(wantUA, "redirects-check/") || !strings.HasSuffix(wantUA, " (+https://www.example.com)") {
		var seen []string
		uas.Range(func(k, _ any) bool { seen = append(seen, k.(string)); return true })
		t.Errorf("User-Agent %q not seen; saw %q", wantUA, seen)
	}

	// Without the flag, the loopback server itself is refused; with it,
	// the redirect to the other loopback address is followed.
	strict := New(false)
	got, err = strict.Check(context.Background(), []redirects.CheckTarget{{Destination: "/ok", URL: base + "/ok"}}, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	if got[0].Outcome != redirects.CheckRefused || !strings.Contains(got[0].Error, "loopback") || !strings.Contains(got[0].Error, "--check-allow-private") {
		t.Errorf("loopback without the flag: %s %q, want refused naming loopback and --check-allow-private", got[0].Outcome, got[0].Error)
	}
	open := &Checker{AllowPrivate: true, Timeout: 500 * time.Millisecond}
	got, err = open.Check(context.Background(), []redirects.CheckTarget{{Destination: "x", URL: base + "/to-private"}}, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	if got[0].Outcome != redirects.CheckOffsite || got[0].Status != 200 || privateHits.Load() != 1 {
		t.Errorf("with --check-allow-private: %s (%s), %d requests to the private address, want offsite and 1", got[0].Outcome, got[0].Error, privateHits.Load())
	}
}

// TestCheckLimits counts the requests in flight per host and overall
// while two checks run at once, by two checkers as two projects' checks
// (or a scheduled one and one asked for) are, over 12 hosts (loopback
// addresses) of 20 destinations each: never more than 2 per host nor 16
// in all, for the whole process.
func TestCheckLimits(t *testing.T) {
	var mu sync.Mutex
	inFlight, maxAll := 0, 0
	perHost, maxHost := map[string]int{}, map[string]int{}
	var targets []redirects.CheckTarget
	for h := 1; h <= 12; h++ {
		ip := fmt.Sprintf("127.0.0.%d", h)
		u := serveOn(t, ip, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			inFlight++
			perHost[ip]++
			maxAll = max(maxAll, inFlight)
			maxHost[ip] = max(maxHost[ip], perHost[ip])
			mu.Unlock()
			time.Sleep(20 * time.Millisecond)
			mu.Lock()
			inFlight--
			perHost[ip]--
			mu.Unlock()
		}))
		for k := range 20 {
			d := fmt.Sprintf("%s/%d", u, k)
			targets = append(targets, redirects.CheckTarget{Destination: d, URL: d})
		}
	}
	var wg sync.WaitGroup
	results := make([][]redirects.DestinationCheck, 2)
	errs := make([]error, 2)
	for i := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i], errs[i] = New(true).Check(context.Background(), targets, "", nil)
		}()
	}
	wg.Wait()
	for i := range 2 {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		for _, d := range results[i] {
			if d.Outcome != redirects.CheckOK {
				t.Fatalf("%s: %s (%s), want ok", d.URL, d.Outcome, d.Error)
			}
		}
	}
	Shared.mu.Lock()
	left := len(Shared.hosts)
	Shared.mu.Unlock()
	if left != 0 {
		t.Errorf("the shared limits still hold %d hosts after every check ended, want none", left)
	}
	if maxAll > redirects.CheckTotal || maxAll < 3 {
		t.Errorf("at most %d requests in flight overall, want between 3 and %d", maxAll, redirects.CheckTotal)
	}
	for ip, n := range maxHost {
		if n > redirects.CheckPerHost {
			t.Errorf("%s: %d requests in flight at once, want at most %d", ip, n, redirects.CheckPerHost)
		}
	}
	t.Logf("most in flight: %d overall, per host %v", maxAll, maxHost)
}

// TestCheckCancelled: a check whose context ends midway returns the
// context's error, not partial results.
func TestCheckCancelled(t *testing.T) {
	var n atomic.Int64
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	u := serveOn(t, "127.0.0.1", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) == 5 {
			cancel()
		}
	}))
	var targets []redirects.CheckTarget
	for k := range 100 {
		d := fmt.Sprintf("%s/%d", u, k)
		targets = append(targets, redirects.CheckTarget{Destination: d, URL: d})
	}
	got, err := (&Checker{AllowPrivate: true}).Check(ctx, targets, "", nil)
	if err != context.Canceled || got != nil {
		t.Fatalf("Check = %d results, %v; want none and context.Canceled", len(got), err)
	}
	if n.Load() >= 100 {
		t.Errorf("%d requests after the cancel, want the check to stop", n.Load())
	}
}
