package syncagent

import (
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"redirects"
	"redirects/export"
)

// fakeFeed is an edge's export route reduced to the change feed's logic:
// one file at one version, 304 when If-None-Match holds its ETag. It
// records what each request reported.
type fakeFeed struct {
	mu      sync.Mutex
	version int
	body    []byte
	reports []string // "applied agent" of each request, "-" when none
}

func (f *fakeFeed) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	rep := "-"
	if v := r.Header.Get(redirects.AppliedVersionHeader); v != "" {
		rep = v + " " + r.Header.Get(redirects.AgentHeader)
	}
	f.reports = append(f.reports, rep)
	body, version := f.body, f.version
	f.mu.Unlock()
	etag := export.ETag(body)
	w.Header().Set("Redirects-Version", strconv.Itoa(version))
	w.Header().Set("ETag", etag)
	if strings.Contains(r.Header.Get("If-None-Match"), etag) {
		if r.URL.Query().Get("wait") != "0" {
			time.Sleep(20 * time.Millisecond) // a short long-poll
		}
		w.WriteHeader(http.StatusNotModified)
		return
	}
	w.Write(body)
}

func (f *fakeFeed) seen() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.reports...)
}

// TestAgentReportsAppliedVersion: the agent names itself (host and
// target) and the version it applied on its requests once it knows it;
// --once, which learns it from its pass's answer, reports it in one more
// request; the long-running agent on its next long-poll.
func TestAgentReportsAppliedVersion(t *testing.T) {
	feed := &fakeFeed{version: 4, body: []byte("/a /b;\n")}
	srv := httptest.NewServer(feed)
	defer srv.Close()
	out := filepath.Join(t.TempDir(), "exact.map")
	target := Target{Name: "exact", Edge: srv.URL, Key: "redir_live_x", Project: "prj", Format: "nginx-map-exact", Out: out}
	a := &Agent{Targets: []Target{target}, Host: "web-1"}

	// A first --once applies version 4, then reports it.
	done, err := a.Once(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if want := []Current{{Target: "exact", Version: 4, Applied: true, Out: out}}; !slices.Equal(done, want) {
		t.Errorf("first --once: current %+v, want %+v", done, want)
	}
	if got, want := strings.Join(feed.seen(), " | "), "- | 4 web-1 exact"; got != want {
		t.Errorf("first --once: requests reported %q, want %q", got, want)
	}
	// A second one learns that the file in place is version 4 (304), then
	// reports it.
	feed.reports = nil
	done, err = a.Once(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if want := []Current{{Target: "exact", Version: 4, Applied: false, Out: out}}; !slices.Equal(done, want) {
		t.Errorf("second --once: current %+v, want %+v", done, want)
	}
	if got, want := strings.Join(feed.seen(), " | "), "- | 4 web-1 exact"; got != want {
		t.Errorf("second --once: requests reported %q, want %q", got, want)
	}

	// The long-running agent: a new version applied, then reported on the
	// following long-polls, with no extra request.
	feed.mu.Lock()
	feed.reports, feed.version, feed.body = nil, 5, []byte("/a /b;\n/c /d;\n")
	feed.mu.Unlock()
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan struct{})
	go func() { a.Run(ctx); close(stopped) }()
	deadline := time.Now().Add(10 * time.Second)
	for len(feed.seen()) < 4 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	<-stopped
	got := feed.seen()
	if len(got) < 4 || got[0] != "-" || got[1] != "5 web-1 exact" || got[2] != "5 web-1 exact" {
		t.Errorf("long-running agent: requests reported %q, want none, then version 5 on each long-poll", got)
	}
}
