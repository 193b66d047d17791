package main_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// TestWebhookKilledMidDelivery is the test: the sending node (the
// binary, killed with SIGKILL while the receiver holds its request) still
// delivers after a restart, with the same delivery ID and a signature that
// verifies with the secret "webhook create" printed once.
func TestWebhookKilledMidDelivery(t *testing.T) {
	c := newCLI(t)
	var (
		mu       sync.Mutex
		secret   string
		requests []string // delivery IDs, in arrival order
	)
	first := make(chan struct{})
	release := make(chan struct{})
	rcv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		ts, v1, _ := strings.Cut(r.Header.Get("Redirects-Signature"), ",v1=")
		m := hmac.New(sha256.New, []byte(secret))
		m.Write([]byte(strings.TrimPrefix(ts, "t=") + "."))
		m.Write(body)
		if !hmac.Equal([]byte(v1), []byte(hex.EncodeToString(m.Sum(nil)))) {
			t.Errorf("signature %q does not verify", r.Header.Get("Redirects-Signature"))
		}
		var p struct {
			DeliveryID string `json:"deliveryId"`
			Action     string `json:"action"`
		}
		json.Unmarshal(body, &p)
		requests = append(requests, p.DeliveryID)
		n := len(requests)
		mu.Unlock()
		if n == 1 {
			close(first)
			<-release // hold the first send until its node is dead
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	defer rcv.Close()
	defer close(release)

	org := c.ok("org", "create", "--name", "Acme", "--tier", "pro")
	out := strings.Fields(c.ok("webhook", "create", "--org", org, "--url", rcv.URL+"/hooks", "--action", "project.*"))
	if len(out) != 2 || !strings.HasPrefix(out[0], "whk_") || !strings.HasPrefix(out[1], "whsec_") {
		t.Fatalf("webhook create printed %q, want the ID and then the secret", out)
	}
	id := out[0]
	mu.Lock()
	secret = out[1]
	mu.Unlock()

	s := startServeProcess(t, c, "--webhook-allow-private")
	c.ok("project", "create", "--org", org, "--name", "www")
	select {
	case <-first:
	case <-time.After(10 * time.Second):
		t.Fatalf("no delivery within 10 s; logs:\n%s", s.logs.String())
	}
	s.cmd.Process.Signal(syscall.SIGKILL)
	<-s.done

	s2 := startServeProcess(t, c, "--webhook-allow-private")
	deadline := time.Now().Add(30 * time.Second) // the dead node's lease, then the next poll
	for {
		mu.Lock()
		n := len(requests)
		mu.Unlock()
		if n >= 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("not delivered again within 30 s of the restart; logs:\n%s", s2.logs.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
	mu.Lock()
	if requests[0] != requests[1] {
		t.Errorf("the delivery after the restart is %s, want %s again (one delivery ID)", requests[1], requests[0])
	}
	mu.Unlock()
	// The store says delivered, once the restarted node has recorded it.
	for i := 0; ; i++ {
		table := c.ok("webhook", "deliveries", id)
		if strings.Contains(table, "delivered") && strings.Contains(table, "204") {
			break
		}
		if i == 50 {
			t.Fatalf("webhook deliveries:\n%s\nwant the delivery delivered with 204", table)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestWebhookPrivateRefusedByServe: serve without --webhook-allow-private
// refuses a receiver on 127.0.0.1 and logs it; the delivery's attempt
// says why.
func TestWebhookPrivateRefusedByServe(t *testing.T) {
	c := newCLI(t)
	hit := make(chan struct{}, 1)
	rcv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { hit <- struct{}{} }))
	defer rcv.Close()
	org := c.ok("org", "create", "--name", "Acme", "--tier", "pro")
	id := strings.Fields(c.ok("webhook", "create", "--org", org, "--url", rcv.URL))[0]
	s := startServeProcess(t, c)
	did := c.ok("webhook", "test", id)
	for i := 0; ; i++ {
		if strings.Contains(s.logs.String(), "delivery="+did) {
			break
		}
		if i == 100 {
			t.Fatalf("no refusal logged within 10 s; logs:\n%s", s.logs.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
	logs := s.logs.String()
	if !strings.Contains(logs, did) || !strings.Contains(logs, "webhook-allow-private") {
		t.Errorf("log lacks the delivery %s and the flag:\n%s", did, logs)
	}
	select {
	case <-hit:
		t.Error("the receiver on 127.0.0.1 was reached without --webhook-allow-private")
	default:
	}
	table := c.ok("webhook", "deliveries", id)
	if line := lineWith(table, did); !strings.Contains(line, "refused") || !strings.Contains(line, "pending") {
		t.Errorf("webhook deliveries:\n%s\nwant the test event pending after a refused attempt", table)
	}
}

// lineWith returns the line of text that holds s, or "".
func lineWith(text, s string) string {
	for _, l := range strings.Split(text, "\n") {
		if strings.Contains(l, s) {
			return l
		}
	}
	return ""
}
