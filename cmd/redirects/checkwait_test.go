package main

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	neturl "net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"redirects"
	"redirects/api"
	"redirects/internal/testproxy"
	"redirects/internal/testreport"
)

// TestWaitForDatabase: the scheduled checks of a node whose database
// cannot be opened as serve starts (here a real SQLite file in a folder
// that does not exist yet) keep trying, with a warning each time, and go
// on once it opens; a node stopped meanwhile stops waiting.
func TestWaitForDatabase(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "later")
	url := "sqlite:" + filepath.Join(dir, "redirects.db")
	var log syncBuffer
	logger := slog.New(slog.NewTextHandler(&log, nil))
	var tries int
	open := func(ctx context.Context) (Database, error) {
		tries++
		if tries == 3 {
			if err := os.Mkdir(dir, 0o700); err != nil {
				t.Error(err)
			}
		}
		s, _, err := openDatabase(ctx, url, redirects.SystemClock{}, false)
		return s, err
	}
	s, err := waitForDatabase(context.Background(), logger, "scheduled destination checks", open, time.Millisecond, 4*time.Millisecond)
	if err != nil {
		t.Fatalf("waitForDatabase: %v; want the database once its folder exists", err)
	}
	defer s.Close()
	if tries != 3 {
		t.Errorf("%d tries, want 3 (two failures, then the database)", tries)
	}
	if n := strings.Count(log.String(), "scheduled destination checks wait for the database"); n != 2 {
		t.Errorf("%d warnings, want 2:\n%s", n, log.String())
	}
	ctx, cancel := context.WithCancel(context.Background())
	never := func(context.Context) (Database, error) {
		cancel()
		return nil, redirects.Errorf(redirects.EUNAVAILABLE, "the database is down")
	}
	if _, err := waitForDatabase(ctx, logger, "scheduled destination checks", never, time.Hour, time.Hour); err != context.Canceled {
		t.Errorf("stopped while waiting: %v, want context.Canceled", err)
	}
}

// TestCheckScheduleWaitsForTheDatabase: serve started with
// --check-destinations-every while its PostgreSQL cannot be reached (the
// address it is given has nothing listening yet) logs that the scheduled
// checks wait, and checks the project once the database answers there (a
// proxy to the real server started on that address).
func TestCheckScheduleWaitsForTheDatabase(t *testing.T) {
	storeIndependent(t, "it makes a PostgreSQL database of its own")
	admin := os.Getenv("REDIRECTS_TEST_POSTGRES")
	if admin == "" {
		testreport.Skip(t, testreport.Postgres, "REDIRECTS_TEST_POSTGRES is not set: no PostgreSQL server to test on")
	}
	testreport.Ran(t, testreport.Postgres)
	var requests atomic.Int64
	web := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { requests.Add(1) }))
	defer web.Close()
	name := "redirects_checkwait_" + strconv.FormatInt(time.Now().UnixNano(), 36)
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
	au, err := neturl.Parse(admin)
	if err != nil {
		t.Fatal(err)
	}
	au.Path = "/" + name
	db := au.String()
	org, _ := runCLI(t, db, 0, "org", "create", "--name", "Acme", "--tier", "pro")
	p, _ := runCLI(t, db, 0, "project", "create", "--org", strings.TrimSpace(org), "--name", "www")
	p = strings.TrimSpace(p)
	runCLI(t, db, 0, "project", "update", "--project", p, "--host", "www.example.com")
	runCLI(t, db, 0, "rule", "add", "--project", p, "--source", "/a", "--destination", web.URL+"/live")
	runCLI(t, db, 0, "deploy", "--project", p)

	u, err := neturl.Parse(db)
	if err != nil {
		t.Fatal(err)
	}
	target := u.Host
	down := freeAddr(t) // nothing listens there until the proxy does
	u.Host = down
	q := u.Query()
	q.Set("connect_timeout", "1")
	u.RawQuery = q.Encode()
	srv := start(t, u.String(), "serve", "--addr", freeAddr(t), "--admin-addr", "", "--engine", "net/http",
		"--check-destinations-every", "1h", "--check-allow-private")
	waitFor(t, "serve logs that the scheduled checks wait for the database", func() bool {
		return strings.Contains(srv.errb.String(), "scheduled destination checks wait for the database")
	})
	if requests.Load() != 0 {
		t.Fatalf("%d requests before the database answered", requests.Load())
	}
	testproxy.Start(t, down, target)
	var last api.DestinationChecks
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		out, _, _ := inProcess(t, db, "", "check", "--project", p, "--last", "--json")
		if json.Unmarshal([]byte(out), &last) == nil && len(last.Checks) == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no scheduled check within 30 s of the database answering; serve logged:\n%s", srv.errb.String())
		}
	}
	if last.Checks[0].Outcome != "ok" || requests.Load() != 1 {
		t.Errorf("the scheduled check: %+v, %d requests; want ok, one request", last.Checks, requests.Load())
	}
}
