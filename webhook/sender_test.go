package webhook_test

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	neturl "net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"redirects"
	"redirects/internal/testreport"
	"redirects/postgres"
	"redirects/sqlite"
	"redirects/storetest"
	"redirects/webhook"
)

type store interface {
	redirects.Store
	redirects.WebhookStore
}

func openSQLite(t *testing.T, clock redirects.Clock) store {
	t.Helper()
	db, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "redirects.db"))
	if err != nil {
		t.Fatal(err)
	}
	db.Clock = clock
	t.Cleanup(func() { db.Close() })
	return db
}

// receiver is a webhook endpoint on 127.0.0.1 that verifies every
// signature against its secrets and answers from a script of statuses
// (the last repeats).
type receiver struct {
	*httptest.Server
	t       *testing.T
	mu      sync.Mutex
	secrets []string
	script  []int
	got     []received
}

type received struct {
	deliveryID string
	payload    redirects.WebhookPayload
	v1         int // signatures that verified
}

func newReceiver(t *testing.T, script ...int) *receiver {
	r := &receiver{t: t, script: script}
	r.Server = httptest.NewServer(http.HandlerFunc(r.serve))
	t.Cleanup(r.Close)
	return r
}

// verify checks a Redirects-Signature header as the docs do: HMAC-SHA256
// keyed with the secret over "t.BODY", and returns how many of its v1
// values one of secrets made.
func verify(header string, body []byte, secrets []string) (int, error) {
	var ts string
	var v1 []string
	for _, part := range strings.Split(header, ",") {
		k, v, _ := strings.Cut(part, "=")
		switch k {
		case "t":
			ts = v
		case "v1":
			v1 = append(v1, v)
		}
	}
	if _, err := strconv.ParseInt(ts, 10, 64); err != nil {
		return 0, fmt.Errorf("t=%q: %v", ts, err)
	}
	n := 0
	for _, s := range secrets {
		m := hmac.New(sha256.New, []byte(s))
		m.Write([]byte(ts + "."))
		m.Write(body)
		want := hex.EncodeToString(m.Sum(nil))
		for _, v := range v1 {
			if hmac.Equal([]byte(v), []byte(want)) {
				n++
			}
		}
	}
	return n, nil
}

func (r *receiver) serve(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	r.mu.Lock()
	defer r.mu.Unlock()
	n, err := verify(req.Header.Get("Redirects-Signature"), body, r.secrets)
	if err != nil || n == 0 {
		r.t.Errorf("signature %q of %s does not verify with %v: %v", req.Header.Get("Redirects-Signature"), body, r.secrets, err)
	}
	var p redirects.WebhookPayload
	if err := json.Unmarshal(body, &p); err != nil {
		r.t.Errorf("body %s: %v", body, err)
	}
	if p.DeliveryID != req.Header.Get("Redirects-Delivery") {
		r.t.Errorf("Redirects-Delivery %q, body's deliveryId %q", req.Header.Get("Redirects-Delivery"), p.DeliveryID)
	}
	r.got = append(r.got, received{deliveryID: p.DeliveryID, payload: p, v1: n})
	status := r.script[min(len(r.got), len(r.script))-1]
	w.WriteHeader(status)
	fmt.Fprintf(w, "answer %d", len(r.got))
}

func (r *receiver) received() []received {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]received(nil), r.got...)
}

// TestRetriesUntilDelivered is the test: a receiver on 127.0.0.1
// (allowed by the operator's flag) verifies the signatures; answering 500
// three times and then 200 gives one more delivery after each failure and
// a log of four attempts.
func TestRetriesUntilDelivered(t *testing.T) {
	clock := storetest.NewClock(storetest.Start)
	s := openSQLite(t, clock)
	ctx := context.Background()
	rcv := newReceiver(t, 500, 500, 500, 200)
	o := &redirects.Org{Name: "Acme", Tier: redirects.TierFree}
	if err := s.CreateOrg(ctx, o); err != nil {
		t.Fatal(err)
	}
	ep := redirects.NewWebhookEndpoint(o.ID, rcv.URL+"/hook", []string{"project.*"}, nil)
	if err := s.CreateWebhook(ctx, ep); err != nil {
		t.Fatal(err)
	}
	rcv.secrets = []string{ep.Secret}
	p := &redirects.Project{OrgID: o.ID, Name: "www"}
	if err := s.CreateProject(ctx, p); err != nil {
		t.Fatal(err)
	}
	snd := &webhook.Sender{Store: s, Clock: clock, AllowPrivate: true}
	for i := 1; i <= 4; i++ {
		if n, err := snd.RunOnce(ctx); n != 1 || err != nil {
			t.Fatalf("round %d: sent %d, %v; want 1", i, n, err)
		}
		if got := len(rcv.received()); got != i {
			t.Fatalf("round %d: receiver got %d requests, want %d", i, got, i)
		}
		// Nothing more until the back-off has passed.
		if n, _ := snd.RunOnce(ctx); n != 0 {
			t.Fatalf("round %d: sent again before the back-off", i)
		}
		clock.Add(redirects.WebhookBackoffAfter(i))
	}
	if n, _ := snd.RunOnce(ctx); n != 0 {
		t.Fatalf("sent again after the 200")
	}
	got := rcv.received()
	for _, r := range got {
		if r.deliveryID != got[0].deliveryID || r.payload.Action != redirects.AuditProjectCreate || r.payload.Entry.ObjectID != p.ID {
			t.Errorf("request %+v, want delivery %s of project.create of %s every time", r, got[0].deliveryID, p.ID)
		}
	}
	d, err := s.FindWebhookDelivery(ctx, got[0].deliveryID)
	if err != nil {
		t.Fatal(err)
	}
	var statuses []int
	for _, a := range d.Attempts {
		statuses = append(statuses, a.Status)
		if a.Excerpt != fmt.Sprintf("answer %d", a.N) || a.Latency <= 0 {
			t.Errorf("attempt %d: excerpt %q latency %s, want the answer's body and a latency", a.N, a.Excerpt, a.Latency)
		}
	}
	if d.State != "delivered" || fmt.Sprint(statuses) != "[500 500 500 200]" {
		t.Errorf("delivery %s: state %s, attempts %v; want delivered after [500 500 500 200]", d.ID, d.State, statuses)
	}
}

// TestPrivateRefused: without the operator's flag a target that resolves
// to a loopback address is refused when dialled, and the refusal is
// logged and recorded.
func TestPrivateRefused(t *testing.T) {
	clock := storetest.NewClock(storetest.Start)
	s := openSQLite(t, clock)
	ctx := context.Background()
	rcv := newReceiver(t, 200)
	o := &redirects.Org{Name: "Acme", Tier: redirects.TierFree}
	if err := s.CreateOrg(ctx, o); err != nil {
		t.Fatal(err)
	}
	// "localhost" passes any check of the URL's text; only the address
	// dialled tells, as with a name rebound to 127.0.0.1.
	u := strings.Replace(rcv.URL, "127.0.0.1", "localhost", 1)
	ep := redirects.NewWebhookEndpoint(o.ID, u, nil, nil)
	if err := s.CreateWebhook(ctx, ep); err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	snd := &webhook.Sender{Store: s, Clock: clock, Logger: slog.New(slog.NewTextHandler(&logs, nil))}
	if n, err := snd.RunOnce(ctx); n != 1 || err != nil {
		t.Fatalf("RunOnce: %d, %v", n, err)
	}
	if got := rcv.received(); len(got) != 0 {
		t.Fatalf("the receiver on a loopback address got %d requests without the flag", len(got))
	}
	ds, err := s.FindWebhookDeliveries(ctx, ep.ID, 10)
	if err != nil || len(ds) != 1 || len(ds[0].Attempts) != 1 {
		t.Fatalf("deliveries: %+v, %v", ds, err)
	}
	if a := ds[0].Attempts[0]; a.Status != 0 || !strings.Contains(a.Error, "refused") || !strings.Contains(a.Error, "webhook-allow-private") ||
		!strings.Contains(a.Error, "(loopback, ") {
		t.Errorf("attempt = %+v, want refused naming the flag and the range", a)
	}
	if !strings.Contains(logs.String(), "webhook delivery failed") || !strings.Contains(logs.String(), "refused") {
		t.Errorf("log = %q, want the refusal", logs.String())
	}
}

func TestPublic(t *testing.T) {
	for addr, want := range map[string]bool{
		"127.0.0.1": false, "::1": false, "10.1.2.3": false, "172.16.0.1": false, "192.168.1.1": false,
		"169.254.169.254": false, "fe80::1": false, "fc00::1": false, "0.0.0.0": false, "::": false,
		"100.64.0.1": false, "::ffff:127.0.0.1": false, "::ffff:10.0.0.1": false, "224.0.0.1": false,
		"64:ff9b::a00:1": false, "2002:a00:1::": false,
		"93.184.216.34": true, "2606:2800:220:1:248:1893:25c8:1946": true, "1.1.1.1": true,
	} {
		if got := webhook.Public(netip.MustParseAddr(addr)); got != want {
			t.Errorf("Public(%s) = %v, want %v", addr, got, want)
		}
	}
}

// TestAnswerHandling: a redirect is not followed (and fails), a long body
// is cut to the excerpt's size.
func TestAnswerHandling(t *testing.T) {
	followed := false
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/moved":
			http.Redirect(w, r, "/elsewhere", http.StatusFound)
		case "/elsewhere":
			followed = true
		case "/big":
			w.Write(bytes.Repeat([]byte("x"), 1<<20))
		}
	}))
	defer srv.Close()
	snd := &webhook.Sender{AllowPrivate: true, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
	a := snd.Send(context.Background(), &redirects.WebhookDelivery{ID: "whd_1", URL: srv.URL + "/moved", Body: "{}", Secrets: []string{"s"}})
	if a.Status != http.StatusFound || a.OK() || followed {
		t.Errorf("redirect: attempt %+v, followed %v; want the 302 kept, not followed", a, followed)
	}
	a = snd.Send(context.Background(), &redirects.WebhookDelivery{ID: "whd_2", URL: srv.URL + "/big", Body: "{}", Secrets: []string{"s"}})
	if a.Status != 200 || len(a.Excerpt) != redirects.WebhookExcerpt {
		t.Errorf("big body: status %d, excerpt of %d bytes; want 200 and %d", a.Status, len(a.Excerpt), redirects.WebhookExcerpt)
	}
}

// TestTimeout: an endpoint that does not answer fails after
// webhook.Timeout.
func TestTimeout(t *testing.T) {
	if testing.Short() {
		t.Skip("takes webhook.Timeout")
	}
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-release }))
	defer srv.Close()
	defer close(release)
	snd := &webhook.Sender{AllowPrivate: true, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
	start := time.Now()
	a := snd.Send(context.Background(), &redirects.WebhookDelivery{ID: "whd_1", URL: srv.URL, Body: "{}", Secrets: []string{"s"}})
	if took := time.Since(start); a.Status != 0 || a.Error == "" || took > webhook.Timeout+2*time.Second {
		t.Errorf("attempt %+v after %s, want a timeout near %s", a, took, webhook.Timeout)
	}
}

// TestTwoNodesSendOnce: two senders on two stores of one PostgreSQL
// database (two nodes) send every delivery once.
func TestTwoNodesSendOnce(t *testing.T) {
	url := os.Getenv("REDIRECTS_TEST_POSTGRES")
	if url == "" {
		testreport.Skip(t, testreport.Postgres, "REDIRECTS_TEST_POSTGRES is not set")
	}
	testreport.Ran(t, testreport.Postgres)
	ctx := context.Background()
	db := newPostgresDatabase(t, url)
	var nodes []*postgres.DB
	for range 2 {
		n, err := postgres.Open(ctx, db)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { n.Close() })
		nodes = append(nodes, n)
	}
	rcv := newReceiver(t, 200)
	o := &redirects.Org{Name: "Acme", Tier: redirects.TierFree}
	if err := nodes[0].CreateOrg(ctx, o); err != nil {
		t.Fatal(err)
	}
	ep := redirects.NewWebhookEndpoint(o.ID, rcv.URL, []string{"project.create"}, nil)
	if err := nodes[0].CreateWebhook(ctx, ep); err != nil {
		t.Fatal(err)
	}
	rcv.secrets = []string{ep.Secret}
	const n = 60
	for i := range n {
		if err := nodes[i%2].CreateProject(ctx, &redirects.Project{OrgID: o.ID, Name: fmt.Sprint("p", i)}); err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	sent := make([]int, 2)
	for i, node := range nodes {
		snd := &webhook.Sender{Store: node, AllowPrivate: true, Batch: 4, Owner: fmt.Sprint("node", i)}
		wg.Go(func() {
			for {
				k, err := snd.RunOnce(ctx)
				if err != nil {
					t.Errorf("node %d: %v", i, err)
					return
				}
				if k == 0 {
					return
				}
				sent[i] += k
			}
		})
	}
	wg.Wait()
	seen := map[string]int{}
	for _, r := range rcv.received() {
		seen[r.deliveryID]++
	}
	if len(seen) != n || sent[0]+sent[1] != n {
		t.Errorf("receiver saw %d deliveries, nodes sent %v; want %d", len(seen), sent, n)
	}
	for id, k := range seen {
		if k != 1 {
			t.Errorf("delivery %s arrived %d times", id, k)
		}
	}
	if sent[0] == 0 || sent[1] == 0 {
		t.Logf("one node sent everything (%v): the test still shows no double send", sent)
	}
}

// newPostgresDatabase creates a database of the test's own on the server
// at admin and returns its URL; it is dropped when the test ends.
func newPostgresDatabase(t *testing.T, admin string) string {
	t.Helper()
	ctx := context.Background()
	exec := func(sql string) {
		conn, err := pgx.Connect(ctx, admin)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close(ctx)
		if _, err := conn.Exec(ctx, sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	name := "redirects_webhook_" + strings.ToLower(redirects.NewWebhookDeliveryID()[4:14])
	exec("CREATE DATABASE " + name)
	t.Cleanup(func() { exec("DROP DATABASE " + name + " WITH (FORCE)") })
	u, err := neturl.Parse(admin)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + name
	return u.String()
}
