package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"redirects"
	"redirects/api"
	"redirects/sqlite"
)

// TestCheckInBackground: through the management API of a served
// program, against real web servers on two loopback addresses (one
// answering at once, one holding its requests), POST
// .../destination-checks answers 202 with the check running while the
// destinations are still being requested, a second POST is a 409, a
// viewer reads the check's progress at its Location and, once the held
// requests are let go, its report; redirects check --api prints what
// --db prints, byte for byte; and a server stopped midway fails its
// check and leaves the results before it.
func TestCheckInBackground(t *testing.T) {
	dir := t.TempDir()
	db := "sqlite:" + filepath.Join(dir, "jobs.db")
	fast := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/gone") {
			http.NotFound(w, r)
		}
	}))
	defer fast.Close()
	var holding atomic.Bool
	holding.Store(true)
	release := make(chan struct{})
	ln, err := net.Listen("tcp", "127.0.0.2:0")
	if err != nil {
		t.Skipf("cannot listen on 127.0.0.2: %v", err)
	}
	held := &httptest.Server{Listener: ln, Config: &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if holding.Load() {
			select {
			case <-release:
			case <-r.Context().Done():
			}
		}
	})}}
	held.Start()
	defer held.Close()

	org, _ := runCLI(t, db, 0, "org", "create", "--name", "Acme", "--tier", "pro")
	org = strings.TrimSpace(org)
	p, _ := runCLI(t, db, 0, "project", "create", "--org", org, "--name", "www")
	p = strings.TrimSpace(p)
	runCLI(t, db, 0, "project", "update", "--project", p, "--host", "www.example.com")
	for i := range 4 {
		dest := fmt.Sprintf("%s/page/%d", fast.URL, i)
		if i == 3 {
			dest = fast.URL + "/gone"
		}
		runCLI(t, db, 0, "rule", "add", "--project", p, "--source", fmt.Sprintf("/f%d", i), "--destination", dest)
	}
	for i := range 2 {
		runCLI(t, db, 0, "rule", "add", "--project", p, "--source", fmt.Sprintf("/h%d", i), "--destination", fmt.Sprintf("%s/held/%d", held.URL, i))
	}
	runCLI(t, db, 0, "deploy", "--project", p)
	editor, _ := runCLI(t, db, 0, "token", "create", "--org", org, "--role", "editor", "--name", "checks")
	editor = strings.TrimSpace(editor)
	viewer, _ := runCLI(t, db, 0, "token", "create", "--org", org, "--role", "viewer", "--name", "reads")
	viewer = strings.TrimSpace(viewer)

	addr := freeAddr(t)
	server := start(t, db, "serve", "--addr", freeAddr(t), "--admin-addr", "", "--engine", "net/http", "--manage-addr", addr, "--check-allow-private")
	apiURL := "http://" + addr
	waitFor(t, "the management API answers", func() bool {
		res, err := http.Get(apiURL + "/manage/v1/orgs")
		if err == nil {
			res.Body.Close()
		}
		return err == nil && res.StatusCode == 401
	})
	call := func(token, method, path string, body any) (int, http.Header, []byte) {
		t.Helper()
		var rd io.Reader
		if body != nil {
			b, _ := json.Marshal(body)
			rd = bytes.NewReader(b)
		}
		req, _ := http.NewRequest(method, apiURL+path, rd)
		req.Header.Set("Authorization", "Bearer "+token)
		if body != nil {
			req.Header.Set("Content-Type", "application/json")
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		data, _ := io.ReadAll(res.Body)
		return res.StatusCode, res.Header, data
	}
	decode := func(data []byte) api.CheckJob {
		t.Helper()
		var j api.CheckJob
		if err := json.Unmarshal(data, &j); err != nil {
			t.Fatalf("%v: %s", err, data)
		}
		return j
	}
	checks := "/manage/v1/projects/" + p + "/destination-checks"

	status, hdr, data := call(editor, "POST", checks, nil)
	if status != http.StatusAccepted {
		t.Fatalf("POST %s: %d %s, want 202 while the held server holds", checks, status, data)
	}
	job := decode(data)
	loc := hdr.Get("Location")
	if job.State != "running" || job.Total != 6 || loc != checks+"/"+job.ID {
		t.Fatalf("POST %s = %+v, Location %q; want running, 6 destinations, at %s/%s", checks, job, loc, checks, job.ID)
	}
	if status, _, data := call(editor, "POST", checks, nil); status != http.StatusConflict || !strings.Contains(string(data), job.ID) {
		t.Errorf("a second POST while the check runs: %d %s, want 409 naming %s", status, data, job.ID)
	}
	if status, _, _ := call(viewer, "POST", checks, nil); status != http.StatusForbidden {
		t.Errorf("a viewer's POST: %d, want 403", status)
	}
	// The fast server's 4 destinations are done while the held ones wait:
	// the check says so within a beat of its lease.
	waitFor(t, "the check's progress shows the fast destinations done", func() bool {
		status, _, data := call(viewer, "GET", loc, nil)
		j := decode(data)
		return status == http.StatusOK && j.State == "running" && j.Checked == 4 && j.Broken == 1
	})
	close(release)
	waitFor(t, "the check is done", func() bool {
		_, _, data := call(viewer, "GET", loc, nil)
		job = decode(data)
		return job.State != "running"
	})
	if job.State != "done" || job.Report == nil || len(job.Report.Checks) != 6 || job.Report.Broken != 1 || job.Checked != 6 || job.FinishedAt == "" {
		t.Fatalf("the check once released = %+v; want done, 6 destinations, 1 broken", job)
	}
	if job.Report.Checks[0].Destination != fast.URL+"/page/0" || job.Report.Checks[5].Destination != held.URL+"/held/1" {
		t.Errorf("the report's order: %s ... %s, want the rules' order", job.Report.Checks[0].Destination, job.Report.Checks[5].Destination)
	}

	// redirects check --api starts a check and reads it until it ends: its
	// output is --db's, byte for byte.
	viaAPI := func(args ...string) (string, string, int) {
		m := &Main{Stdin: strings.NewReader(""), Stdout: &syncBuffer{}, Stderr: &syncBuffer{}, Getenv: func(string) string { return "" }}
		return runMain(t, m, append([]string{"--api", apiURL, "--token", editor}, args...))
	}
	apiOut, apiErr, code := viaAPI("check", "--project", p)
	if code != 0 {
		t.Fatalf("check --api: exit %d: %s", code, apiErr)
	}
	dbOut, dbErr := runCLI(t, db, 0, "check", "--project", p, "--check-allow-private")
	if apiOut != dbOut || apiErr != dbErr {
		t.Fatalf("check --api:\n%s%s\ncheck --db:\n%s%s\nwant the same", apiOut, apiErr, dbOut, dbErr)
	}
	if !strings.Contains(apiOut, "broken\t"+fast.URL+"/gone\t404") || !strings.Contains(apiErr, "6 destinations checked, 1 broken (0 newly)") {
		t.Errorf("check --api:\n%s%s\nwant the broken destination and the summary", apiOut, apiErr)
	}

	// A server stopped while its check runs fails it; the results before
	// it stay.
	before, _ := runCLI(t, db, 0, "check", "--project", p, "--last", "--json")
	holding.Store(true)
	release = make(chan struct{})
	status, _, data = call(editor, "POST", checks, nil)
	if status != http.StatusAccepted {
		t.Fatalf("POST %s: %d %s", checks, status, data)
	}
	job = decode(data)
	server.stop(t)
	after, _ := runCLI(t, db, 0, "check", "--project", p, "--last", "--json")
	if after != before {
		t.Errorf("after a server stopped midway:\n%s\nwant the results before it:\n%s", after, before)
	}
	s, err := sqlite.Open(context.Background(), filepath.Join(dir, "jobs.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	stopped, err := s.FindCheckJob(context.Background(), p, job.ID)
	if err != nil || stopped.State != redirects.CheckFailed || !strings.Contains(stopped.Error, "stopped") {
		t.Errorf("the check of a server stopped = %+v, %v; want failed, saying it stopped", stopped, err)
	}
}
