package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"redirects"
	"redirects/api"
)

// TestCheckCLI is redirects check end to end, with --db and through the
// management API of a served binary, against a real web server on
// loopback: outcomes per destination, the private-address rule and its
// flag, a destination that breaks (audited as destination.broken), the
// last results read both ways, and a check killed midway that leaves
// the last results as they were.
func TestCheckCLI(t *testing.T) {
	dir := t.TempDir()
	db := "sqlite:" + filepath.Join(dir, "check.db")
	var okBroken, hold atomic.Bool
	arrived := make(chan struct{}, 100)
	mux := http.NewServeMux()
	mux.HandleFunc("/ok", func(w http.ResponseWriter, r *http.Request) {
		if hold.Load() {
			arrived <- struct{}{}
			<-r.Context().Done()
			return
		}
		if okBroken.Load() {
			w.WriteHeader(http.StatusInternalServerError)
		}
	})
	mux.HandleFunc("/gone", http.NotFound)
	mux.HandleFunc("/hop", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/ok", http.StatusMovedPermanently) })
	web := httptest.NewServer(mux)
	defer web.Close()

	org, _ := runCLI(t, db, 0, "org", "create", "--name", "Acme", "--tier", "pro")
	org = strings.TrimSpace(org)
	p, _ := runCLI(t, db, 0, "project", "create", "--org", org, "--name", "www")
	p = strings.TrimSpace(p)
	runCLI(t, db, 0, "rule", "add", "--project", p, "--source", "/a", "--destination", "/ok")
	runCLI(t, db, 0, "rule", "add", "--project", p, "--source", "/a2", "--destination", "/ok")
	runCLI(t, db, 0, "rule", "add", "--project", p, "--source", "/b", "--destination", "/gone")
	runCLI(t, db, 0, "rule", "add", "--project", p, "--source", "/c", "--destination", web.URL+"/hop")
	runCLI(t, db, 0, "rule", "add", "--project", p, "--source", "/d/:x", "--destination", "/e/:x", "--match", "pattern")
	// No host declared and no --base-url: a clear error, nothing checked.
	if _, errs, code := inProcess(t, db, "", "check", "--project", p); code == 0 || !strings.Contains(errs, "--base-url") {
		t.Fatalf("check without a host or --base-url: exit %d, %q; want an error naming --base-url", code, errs)
	}
	runCLI(t, db, 0, "deploy", "--project", p)

	report := func(out string) api.CheckReport {
		t.Helper()
		var rep api.CheckReport
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatalf("check --json: %v\n%s", err, out)
		}
		return rep
	}
	show := func(cs []api.DestinationCheck) string {
		var b strings.Builder
		for _, d := range cs {
			b.WriteString(strings.Join([]string{d.Destination, d.Outcome, http.StatusText(d.Status), strings.TrimPrefix(d.FinalURL, web.URL), string(rune('0' + d.Hops))}, " ") + "\n")
		}
		return b.String()
	}

	// Without --check-allow-private, loopback is refused and named.
	out, _ := runCLI(t, db, 0, "check", "--project", p, "--base-url", web.URL)
	if strings.Count(out, "refused\t") != 3 || !strings.Contains(out, "(loopback, 127.0.0.0/8)") {
		t.Fatalf("check without --check-allow-private:\n%s\nwant 3 destinations refused as loopback", out)
	}

	out, _ = runCLI(t, db, 0, "check", "--project", p, "--base-url", web.URL, "--check-allow-private", "--json")
	rep := report(out)
	want := "/ok ok OK /ok 0\n/gone broken Not Found /gone 0\n" + web.URL + "/hop ok OK /ok 1\n"
	if got := show(rep.Checks); got != want || rep.Skipped != 1 || rep.Broken != 1 || len(rep.NewlyBroken) != 0 {
		t.Fatalf("check --db:\n%sskipped %d, broken %d, newly %v\nwant\n%sskipped 1, broken 1, newly []", got, rep.Skipped, rep.Broken, rep.NewlyBroken, want)
	}

	// Through the API of a server started with --check-allow-private.
	token, _ := runCLI(t, db, 0, "token", "create", "--org", org, "--role", "editor", "--name", "checks")
	token = strings.TrimSpace(token)
	addr := freeAddr(t)
	start(t, db, "serve", "--addr", freeAddr(t), "--admin-addr", "", "--engine", "net/http", "--manage-addr", addr, "--check-allow-private")
	apiURL := "http://" + addr
	waitFor(t, "the management API answers", func() bool {
		res, err := http.Get(apiURL + "/manage/v1/orgs")
		if err == nil {
			res.Body.Close()
		}
		return err == nil && res.StatusCode == 401
	})
	viaAPI := func(args ...string) (string, string, int) {
		m := &Main{Stdin: strings.NewReader(""), Stdout: &syncBuffer{}, Stderr: &syncBuffer{}, Getenv: func(string) string { return "" }}
		return runMain(t, m, append([]string{"--api", apiURL, "--token", token}, args...))
	}
	okBroken.Store(true)
	out, errs, code := viaAPI("check", "--project", p, "--base-url", web.URL, "--json")
	if code != 0 {
		t.Fatalf("check --api: exit %d: %s", code, errs)
	}
	rep = report(out)
	want = "/ok broken Internal Server Error /ok 0\n/gone broken Not Found /gone 0\n" + web.URL + "/hop broken Internal Server Error /ok 1\n"
	if got := show(rep.Checks); got != want || strings.Join(rep.NewlyBroken, ",") != "/ok,"+web.URL+"/hop" {
		t.Fatalf("check --api after /ok broke:\n%snewly %v\nwant\n%snewly [/ok %s/hop]", got, rep.NewlyBroken, want, web.URL)
	}
	if _, _, code := viaAPI("check", "--project", p, "--base-url", web.URL, "--check-allow-private"); code != 2 {
		t.Errorf("check --check-allow-private through --api: exit %d, want a usage error (the server decides)", code)
	}
	audit, _ := runCLI(t, db, 0, "audit", "--org", org, "--project", p, "--action", "destination.broken", "--json")
	var entries []redirects.AuditEntry
	if err := json.Unmarshal([]byte(audit), &entries); err != nil || len(entries) != 2 {
		t.Fatalf("destination.broken audit entries: %v\n%s\nwant 2", err, audit)
	}

	// Lint warns of every rule whose destination broke, with --db and
	// through the API alike, and a deploy is not blocked by it.
	lint, _ := runCLI(t, db, 0, "lint", "--project", p)
	lintAPI, _, _ := viaAPI("lint", "--project", p)
	if strings.Count(lint, "broken-destination") != 4 || lint != lintAPI {
		t.Fatalf("lint after the check: --db\n%s\n--api\n%s\nwant 4 broken-destination warnings, the same both ways", lint, lintAPI)
	}
	lastDB, _ := runCLI(t, db, 0, "check", "--project", p, "--last", "--json")
	lastAPI, errs, code := viaAPI("check", "--project", p, "--last", "--json")
	if code != 0 || lastAPI != lastDB {
		t.Fatalf("check --last: --db\n%s\n--api (exit %d, %s)\n%s", lastDB, code, errs, lastAPI)
	}
	var last api.DestinationChecks
	json.Unmarshal([]byte(lastDB), &last)
	if last.Broken != 3 || len(last.Checks) != 3 {
		t.Fatalf("check --last: %+v, want the 3 broken destinations", last)
	}

	// A check killed midway: the results before it stay.
	okBroken.Store(false)
	hold.Store(true)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	go func() {
		m := &Main{Stdin: strings.NewReader(""), Stdout: &syncBuffer{}, Stderr: &syncBuffer{}, Clock: redirects.SystemClock{},
			Getenv: func(k string) string {
				if k == "REDIRECTS_DB" {
					return db
				}
				return ""
			}}
		done <- m.Run(ctx, []string{"check", "--project", p, "--base-url", web.URL, "--check-allow-private"})
	}()
	select {
	case <-arrived:
	case <-time.After(10 * time.Second):
		t.Fatal("the check never reached the web server")
	}
	cancel()
	if code := <-done; code == 0 {
		t.Errorf("a check killed midway exited 0")
	}
	hold.Store(false)
	after, _ := runCLI(t, db, 0, "check", "--project", p, "--last", "--json")
	if after != lastDB {
		t.Errorf("after a check killed midway:\n%s\nwant the results before it:\n%s", after, lastDB)
	}
}

// TestCheckSchedule: two nodes serve one database with
// --check-destinations-every; the project's destinations are checked at
// once when they start, by one node only (each destination requested
// once), recorded, and the check is audited once.
func TestCheckSchedule(t *testing.T) {
	dir := t.TempDir()
	db := "sqlite:" + filepath.Join(dir, "schedule.db")
	var mu sync.Mutex
	requests := map[string]int{}
	web := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		requests[r.URL.Path]++
		mu.Unlock()
		if r.URL.Path == "/dead" {
			http.NotFound(w, r)
		}
	}))
	defer web.Close()
	org, _ := runCLI(t, db, 0, "org", "create", "--name", "Acme", "--tier", "pro")
	org = strings.TrimSpace(org)
	p, _ := runCLI(t, db, 0, "project", "create", "--org", org, "--name", "www")
	p = strings.TrimSpace(p)
	runCLI(t, db, 0, "project", "update", "--project", p, "--host", "www.example.com")
	runCLI(t, db, 0, "rule", "add", "--project", p, "--source", "/a", "--destination", web.URL+"/live")
	runCLI(t, db, 0, "rule", "add", "--project", p, "--source", "/b", "--destination", web.URL+"/dead")
	runCLI(t, db, 0, "deploy", "--project", p)
	for range 2 {
		start(t, db, "serve", "--addr", freeAddr(t), "--admin-addr", "", "--engine", "net/http",
			"--check-destinations-every", "1h", "--check-allow-private")
	}
	var last api.DestinationChecks
	waitFor(t, "a scheduled check is recorded", func() bool {
		out, _, _ := inProcess(t, db, "", "check", "--project", p, "--last", "--json")
		return json.Unmarshal([]byte(out), &last) == nil && len(last.Checks) == 2
	})
	time.Sleep(500 * time.Millisecond) // the other node had its chance
	mu.Lock()
	got := fmt.Sprint(requests)
	mu.Unlock()
	if got != "map[/dead:1 /live:1]" || last.Broken != 1 || last.Checks[0].Destination != web.URL+"/dead" {
		t.Fatalf("requests %s, results %+v; want each destination requested once, /dead broken and listed first", got, last)
	}
	audit, _ := runCLI(t, db, 0, "audit", "--org", org, "--action", "destination.check", "--json")
	var entries []redirects.AuditEntry
	if err := json.Unmarshal([]byte(audit), &entries); err != nil || len(entries) != 1 || entries[0].Actor.Kind != redirects.ActorSystem {
		t.Fatalf("destination.check entries: %v\n%s\nwant one, by the system", err, audit)
	}
}

// TestCheckScheduleLogsFailures: serve's scheduled checks log a failure
// of the store once per pass and cause, naming how many projects it
// struck, not once per project: here the table of the schedule's leases
// is dropped from the real SQLite file before serve starts, so that
// claiming each of two projects' leases fails.
func TestCheckScheduleLogsFailures(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "schedule.db")
	db := "sqlite:" + path
	web := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer web.Close()
	org, _ := runCLI(t, db, 0, "org", "create", "--name", "Acme", "--tier", "pro")
	org = strings.TrimSpace(org)
	for _, name := range []string{"www", "shop"} {
		p, _ := runCLI(t, db, 0, "project", "create", "--org", org, "--name", name)
		p = strings.TrimSpace(p)
		runCLI(t, db, 0, "project", "update", "--project", p, "--host", name+".example.com")
		runCLI(t, db, 0, "rule", "add", "--project", p, "--source", "/a", "--destination", web.URL+"/live")
		runCLI(t, db, 0, "deploy", "--project", p)
	}
	conn, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec("DROP TABLE destination_check_runs"); err != nil {
		t.Fatal(err)
	}
	conn.Close()
	srv := start(t, db, "serve", "--addr", freeAddr(t), "--admin-addr", "", "--engine", "net/http",
		"--check-destinations-every", "1h", "--check-allow-private")
	const line = "scheduled destination checks could not claim a project's lease"
	waitFor(t, "serve logs that the leases could not be claimed", func() bool {
		return strings.Contains(srv.errb.String(), line)
	})
	time.Sleep(500 * time.Millisecond) // a line per project would have come by now
	log := srv.errb.String()
	if n := strings.Count(log, line); n != 1 || !strings.Contains(log, "projects=2") || !strings.Contains(log, "destination_check_runs") {
		t.Fatalf("%d lines %q; want one, naming 2 projects and the store's error:\n%s", n, line, log)
	}
}
