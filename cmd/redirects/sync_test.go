package main_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"redirects/export"
	"redirects/internal/servertest"
)

// syncRules is the size of the rule set the sync tests deploy:
// REDIRECTS_SYNC_RULES, or 2,000. BENCHMARKS.md runs them with 100,000.
func syncRules(t *testing.T) int {
	if s := os.Getenv("REDIRECTS_SYNC_RULES"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 10 {
			t.Fatalf("REDIRECTS_SYNC_RULES=%q: want a number of at least 10", s)
		}
		return n
	}
	return 2000
}

// importRules imports n rules into the project: exact /r/I -> /d/I, and
// every prefixEvery-th a starts_with /p/I/ -> /dp/I.
func importRules(t *testing.T, c *cli, project string, n, prefixEvery int) {
	t.Helper()
	var b strings.Builder
	b.WriteString("source,destination,statusCode,matchType\n")
	for i := range n {
		if i%prefixEvery == prefixEvery-1 {
			fmt.Fprintf(&b, "/p/%d/,/dp/%d,302,starts_with\n", i, i)
		} else {
			fmt.Fprintf(&b, "/r/%d,/d/%d,301,exact\n", i, i)
		}
	}
	file := filepath.Join(t.TempDir(), "rules.csv")
	servertest.WriteFile(t, file, []byte(b.String()))
	c.ok("rule", "import", "--project", project, file)
}

// agent is a `redirects sync` running in process until the test ends.
type agent struct {
	t       *testing.T
	logs    syncBuffer
	metrics string // base URL of its metrics listener
	cancel  context.CancelFunc
	exited  chan int
}

func startAgent(t *testing.T, c *cli, args ...string) *agent {
	t.Helper()
	a := &agent{t: t, exited: make(chan int, 1)}
	m := c.newMain(nil)
	m.Stdout, m.Stderr = &a.logs, &a.logs
	ready := make(chan string, 1)
	m.Ready = func(_, admin string) { ready <- admin }
	ctx, cancel := context.WithCancel(context.Background())
	a.cancel = cancel
	go func() { a.exited <- m.Run(ctx, append([]string{"sync", "--metrics-addr", "127.0.0.1:0"}, args...)) }()
	t.Cleanup(func() {
		cancel()
		select {
		case code := <-a.exited:
			if code != 0 {
				t.Errorf("sync exited %d when stopped; logs:\n%s", code, a.logs.String())
			}
		case <-time.After(15 * time.Second):
			t.Errorf("sync did not stop within 15 s; logs:\n%s", a.logs.String())
		}
	})
	select {
	case addr := <-ready:
		a.metrics = "http://" + addr
	case code := <-a.exited:
		t.Fatalf("sync exited %d at start; logs:\n%s", code, a.logs.String())
	case <-time.After(15 * time.Second):
		t.Fatal("sync did not start its metrics listener in 15 s")
	}
	return a
}

// metric returns the value of the series name{target="target"...} from the
// agent's metrics listener, or -1 when it is missing.
func (a *agent) metric(name, labels string) float64 {
	a.t.Helper()
	resp, err := http.Get(a.metrics + "/metrics")
	if err != nil {
		a.t.Fatalf("scraping the agent's metrics: %v", err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	prefix := name + "{" + labels + "} "
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), prefix); ok {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				a.t.Fatalf("metric %s: %v", prefix, err)
			}
			return f
		}
	}
	return -1
}

// noFollow is a client that shows a redirect rather than following it, on
// a new connection each time: a reloaded nginx answers a kept-alive
// connection from an old worker until it closes it.
var noFollow = &http.Client{
	Timeout:       5 * time.Second,
	Transport:     &http.Transport{DisableKeepAlives: true},
	CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
}

// answer returns a server's status and Location for path.
func answer(t *testing.T, port int, path string) (int, string) {
	t.Helper()
	resp, err := noFollow.Get("http://127.0.0.1:" + strconv.Itoa(port) + path)
	if err != nil {
		return 0, err.Error()
	}
	resp.Body.Close()
	return resp.StatusCode, resp.Header.Get("Location")
}

// untilAnswers waits until the server answers path with status and
// location, and returns how long that took from since.
func untilAnswers(t *testing.T, port int, path string, status int, location string, since time.Time) time.Duration {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for {
		s, l := answer(t, port, path)
		if s == status && l == location {
			return time.Since(since)
		}
		if time.Now().After(deadline) {
			t.Fatalf("port %d: %s answers %d %q, want %d %q", port, path, s, l, status, location)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// startNginx writes an nginx configuration in dir with one server on port
// (httpLines in its http block, server in its server block), starts it and
// returns the command line that runs nginx on it. "/etc/nginx/" in the
// lines is dir.
func startNginx(t *testing.T, bin, dir string, port int, httpLines, server string) (nginx string) {
	t.Helper()
	text := servertest.NginxConf(dir, httpLines, []string{server}, []int{port})
	// A master process, so that nginx -s reload starts new workers.
	text = strings.Replace(text, "master_process off;", "master_process on;", 1)
	conf := filepath.Join(dir, "nginx.conf")
	servertest.WriteFile(t, conf, []byte(text))
	servertest.Check(t, bin, "-t", "-p", dir, "-e", "stderr", "-c", conf)
	servertest.Start(t, []int{port}, bin, "-p", dir, "-e", "stderr", "-c", conf)
	t.Cleanup(func() { exec.Command(bin, "-p", dir, "-e", "stderr", "-c", conf, "-s", "quit").Run() })
	return bin + " -p " + dir + " -e stderr -c " + conf
}

// TestSyncNginx runs the agent against a real edge and a real nginx with
// two targets from a config file (nginx-map-exact and nginx locations): a
// deploy reaches both servers through check and reload; a deploy that
// fails nginx -t leaves the old file and the old answers, and the metrics
// and --once's exit status say so; the next good deploy is applied.
func TestSyncNginx(t *testing.T) {
	bin := servertest.LookPath(t, "nginx")
	c := newCLI(t)
	_, project := c.setup()
	n := syncRules(t)
	// Few prefix rules: nginx versions before 1.25 (Debian 12 has 1.22)
	// load a location file slowly when many prefix locations follow many
	// exact ones (the deploy warns of it).
	importRules(t, c, project, n, 1000)
	c.ok("deploy", "--project", project)
	key := c.ok("key", "create", "--project", project)
	e := startEdge(t, c)

	dir := t.TempDir()
	mapDir, locDir := filepath.Join(dir, "map"), filepath.Join(dir, "locations")
	os.Mkdir(mapDir, 0o755)
	os.Mkdir(locDir, 0o755)
	exactMap, locations := filepath.Join(mapDir, "exact.map"), filepath.Join(locDir, "locations.conf")

	// The first files, with --once and flags; nginx is not running yet,
	// so nothing to reload.
	for _, target := range [][2]string{{"nginx-map-exact", exactMap}, {"nginx", locations}} {
		r := c.exec("", "sync", "--edge", e.base, "--key", key, "--project", project, "--format", target[0], "--out", target[1], "--once")
		if r.code != 0 {
			t.Fatalf("sync --once of %s: exit %d\n%s", target[0], r.code, r.stderr)
		}
	}
	// Two servers, one per format, as a site would use one. The map's
	// bucket size is fixed, as a hand-written configuration has it: a
	// source too long for it fails nginx -t.
	mapPort, locPort := servertest.FreePort(t), servertest.FreePort(t)
	mapNginx := startNginx(t, bin, mapDir, mapPort, "map_hash_max_size 262144;\nmap_hash_bucket_size 256;\ninclude /etc/nginx/exact.map;",
		export.NginxAbsoluteRedirectSnippet+"\n"+export.NginxMapExactSnippet+"\nreturn 204;")
	locNginx := startNginx(t, bin, locDir, locPort, "", export.NginxAbsoluteRedirectSnippet+"\ninclude /etc/nginx/locations.conf;")
	untilAnswers(t, mapPort, "/r/0", 301, "/d/0", time.Now())
	untilAnswers(t, locPort, "/p/999/x", 302, "/dp/999", time.Now())
	check := mapNginx + " -t -q"

	cfg := filepath.Join(dir, "sync.conf")
	servertest.WriteFile(t, filepath.Join(dir, "key"), []byte(key+"\n"))
	// The reload is a signal to nginx's master: "nginx -s reload" would
	// parse the whole configuration once more just to find the pid file.
	servertest.WriteFile(t, cfg, []byte(fmt.Sprintf(`# one nginx per format
edge = %s
key-file = key
project = %s

[exact]
format = nginx-map-exact
out = %s
check = %s
reload = kill -HUP $(cat %s/nginx.pid)

[locations]
format = nginx
out = %s
check = %s -t -q
reload = kill -HUP $(cat %s/nginx.pid)
`, e.base, project, exactMap, check, mapDir, locations, locNginx, locDir)))
	a := startAgent(t, c, "--config", cfg)
	// Both files are current: nothing applied, the versions known.
	waitMinute(t, "the agent to learn the applied versions", func() bool {
		return a.metric("redirects_sync_applied_version", `target="exact"`) == 1 && a.metric("redirects_sync_applied_version", `target="locations"`) == 1
	})
	if n := a.metric("redirects_sync_applies_total", `target="exact"`); n != 0 {
		t.Errorf("the agent applied %v versions over a current file, want 0", n)
	}

	// A deploy reaches both servers.
	c.ok("rule", "add", "--project", project, "--source", "/new", "--destination", "/to-new")
	c.ok("rule", "add", "--project", project, "--source", "/newp/", "--destination", "/to-newp", "--match", "starts_with")
	c.ok("deploy", "--project", project)
	committed := time.Now()
	tMap := untilAnswers(t, mapPort, "/new", 301, "/to-new", committed)
	tLoc := untilAnswers(t, locPort, "/newp/x", 301, "/to-newp", committed)
	t.Logf("%d rules: deploy commit to the first new answer: nginx map %v, nginx locations %v", n+2, tMap, tLoc)
	t.Logf("the agent's log:\n%s", a.logs.String())
	waitMinute(t, "applied version 2", func() bool { return a.metric("redirects_sync_applied_version", `target="exact"`) == 2 })

	// A deploy that fails nginx -t: a source longer than the map's bucket.
	long := "/" + strings.Repeat("x", 300)
	c.ok("rule", "add", "--project", project, "--source", long, "--destination", "/to-long")
	c.ok("rule", "add", "--project", project, "--source", "/after-bad", "--destination", "/to-after-bad")
	c.ok("deploy", "--project", project)
	waitMinute(t, "the failed check in the metrics", func() bool {
		return a.metric("redirects_sync_check_failing", `target="exact"`) == 1
	})
	if v := a.metric("redirects_sync_failures_total", `stage="check",target="exact"`); v < 1 {
		t.Errorf("failures_total{stage=check} = %v, want at least 1", v)
	}
	if v := a.metric("redirects_sync_applied_version", `target="exact"`); v != 2 {
		t.Errorf("applied version after a failed check: %v, want 2 (kept)", v)
	}
	if v := a.metric("redirects_sync_live_version", `target="exact"`); v != 3 {
		t.Errorf("live version: %v, want 3", v)
	}
	body, err := os.ReadFile(exactMap)
	if err != nil || strings.Contains(string(body), long) || !strings.Contains(string(body), "/new /to-new;") {
		t.Fatalf("exact.map after the failed check (err %v) is not version 2:\n%.300s", err, body)
	}
	if s, l := answer(t, mapPort, "/new"); s != 301 || l != "/to-new" {
		t.Errorf("nginx after the failed check: /new answers %d %q, want the old 301 /to-new", s, l)
	}
	if s, _ := answer(t, mapPort, "/after-bad"); s != 204 {
		t.Errorf("nginx after the failed check: /after-bad answers %d, want 204 (version 3 is not applied)", s)
	}
	if !strings.Contains(a.logs.String(), "version 3 failed the check; version 2 stays in place, not reloaded") {
		t.Errorf("the agent's log does not say the check failed:\n%s", a.logs.String())
	}
	// --once says so with its exit status (4: the check), and leaves the
	// file as it was.
	r := c.exec("", "sync", "--edge", e.base, "--key", key, "--project", project, "--format", "nginx-map-exact", "--out", exactMap, "--check", check, "--once")
	if r.code != 4 || !strings.Contains(r.stderr, "failed the check") {
		t.Errorf("sync --once over a failing check: exit %d, stderr %q; want 4 and the failed check", r.code, r.stderr)
	}
	if again, _ := os.ReadFile(exactMap); string(again) != string(body) {
		t.Error("sync --once with a failing check changed the file")
	}
	if leftovers, _ := filepath.Glob(filepath.Join(mapDir, ".exact.map.*")); len(leftovers) != 0 {
		t.Errorf("temporary files left beside the map: %v", leftovers)
	}

	// The next good deploy is applied, and the failure cleared.
	c.ok("rule", "delete", "--project", project, "--all-matching", "--search", long, "--yes")
	c.ok("deploy", "--project", project)
	untilAnswers(t, mapPort, "/after-bad", 301, "/to-after-bad", time.Now())
	waitMinute(t, "the failure cleared", func() bool {
		return a.metric("redirects_sync_check_failing", `target="exact"`) == 0 && a.metric("redirects_sync_applied_version", `target="exact"`) == 4
	})
}

// TestSyncHAProxyRuntime runs the agent against a real edge and a real
// HAProxy whose map it swaps through the Runtime API: the new rules are
// answered by the same HAProxy process, and wrk sees no failed request
// while the map is switched.
func TestSyncHAProxyRuntime(t *testing.T) {
	bin := servertest.LookPath(t, "haproxy")
	wrk, err := exec.LookPath("wrk")
	if err != nil {
		t.Skip("wrk is not on PATH: skipping (apt-get install wrk)")
	}
	c := newCLI(t)
	_, project := c.setup()
	n := syncRules(t)
	importRules(t, c, project, n, 10)
	c.ok("deploy", "--project", project)
	key := c.ok("key", "create", "--project", project)
	e := startEdge(t, c)

	dir := t.TempDir()
	mapFile := filepath.Join(dir, "redirects-exact.map")
	socket := filepath.Join(dir, "admin.sock")
	if r := c.exec("", "sync", "--edge", e.base, "--key", key, "--project", project, "--format", "haproxy-map-exact", "--out", mapFile, "--once"); r.code != 0 {
		t.Fatalf("sync --once: exit %d\n%s", r.code, r.stderr)
	}
	port := servertest.FreePort(t)
	conf := filepath.Join(dir, "haproxy.cfg")
	head := strings.Replace(servertest.HAProxyHead, "global\n", "global\n    stats socket "+socket+" mode 600 level admin\n", 1)
	servertest.WriteFile(t, conf, []byte(head+servertest.HAProxyFrontend("www", port, dir, export.HAProxyMapExactSnippet)))
	servertest.Check(t, bin, "-c", "-f", conf)
	pid := servertest.Start(t, []int{port}, bin, "-db", "-f", conf)
	untilAnswers(t, port, "/r/0", 301, "/d/0", time.Now())

	a := startAgent(t, c, "--edge", e.base, "--key", key, "--project", project, "--format", "haproxy-map-exact",
		"--out", mapFile, "--haproxy-socket", socket, "--check", bin+" -c -q -f "+conf)
	target := `target="` + mapFile + `"`
	waitMinute(t, "the agent to follow version 1", func() bool { return a.metric("redirects_sync_applied_version", target) == 1 })

	// wrk against HAProxy while a deploy's map is swapped in.
	wrkDone := make(chan string, 1)
	go func() {
		out, err := exec.Command(wrk, "-t1", "-c16", "-d4s", "http://127.0.0.1:"+strconv.Itoa(port)+"/r/1").CombinedOutput()
		if err != nil {
			out = append(out, []byte("\nwrk: "+err.Error())...)
		}
		wrkDone <- string(out)
	}()
	time.Sleep(500 * time.Millisecond) // wrk is under way before the switch
	c.ok("rule", "add", "--project", project, "--source", "/new", "--destination", "/to-new")
	c.ok("deploy", "--project", project)
	committed := time.Now()
	took := untilAnswers(t, port, "/new", 301, "/to-new", committed)
	t.Logf("%d rules: deploy commit to the first new answer: haproxy (Runtime API) %v", n+1, took)
	out := <-wrkDone
	requests := regexp.MustCompile(`(\d+) requests in`).FindStringSubmatch(out)
	if requests == nil || requests[1] == "0" || strings.Contains(out, "Socket errors") || strings.Contains(out, "Non-2xx or 3xx") || strings.Contains(out, "wrk: ") {
		t.Errorf("wrk during the switch saw failures (or made no request):\n%s", out)
	}
	t.Logf("wrk during the switch:\n%s", out)
	if s, l := answer(t, port, "/r/1"); s != 301 || l != "/d/1" {
		t.Errorf("an old rule after the switch: %d %q", s, l)
	}
	if got := haproxyPid(t, socket); got != pid {
		t.Errorf("HAProxy's pid is %d after the switch, want %d (no reload, no restart)", got, pid)
	}
	// The new map is read from its commit on; the command returns once
	// HAProxy has freed the old entries, a while later under load.
	waitMinute(t, "applied version 2", func() bool { return a.metric("redirects_sync_applied_version", target) == 2 })
	body, _ := os.ReadFile(mapFile)
	if !strings.Contains(string(body), "\n/new /to-new\n") {
		t.Error("the map file was not written too (for HAProxy's next start)")
	}
}

// haproxyPid asks HAProxy's Runtime API for its process id.
func haproxyPid(t *testing.T, socket string) int {
	t.Helper()
	conn, err := net.Dial("unix", socket)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprint(conn, "show info\n")
	sc := bufio.NewScanner(conn)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "Pid: "); ok {
			pid, _ := strconv.Atoi(v)
			return pid
		}
	}
	t.Fatal("show info gave no Pid")
	return 0
}

// waitMinute polls cond until it holds, or fails the test after a minute
// (a large rule set takes a while to reach a server).
func waitMinute(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestSyncRefuses holds sync's errors on bad input: each says what is
// wrong, and nothing is written.
func TestSyncRefuses(t *testing.T) {
	c := newCLI(t)
	out := filepath.Join(t.TempDir(), "x.map")
	key := "redir_live_0123456789abcdefABCDEF0123456789"
	c.fail(2, "sync needs --out", "sync", "--edge", "http://127.0.0.1:1", "--key", key, "--project", "p", "--format", "csv")
	c.fail(1, `format "gif" is not one of`, "sync", "--edge", "http://127.0.0.1:1", "--key", key, "--project", "p", "--format", "gif", "--out", out)
	c.fail(1, "key is not an API key", "sync", "--edge", "http://127.0.0.1:1", "--key", "secret", "--project", "p", "--format", "csv", "--out", out)
	c.fail(2, "--edge and --config", "sync", "--config", "x.conf", "--edge", "http://127.0.0.1:1")
	c.fail(1, "config:", "sync", "--config", filepath.Join(t.TempDir(), "missing.conf"))
	// A plain-http edge on another machine is refused at start, before
	// any request (192.0.2.1 is a documentation address).
	c.fail(1, "--allow-insecure-edge", "sync", "--edge", "http://192.0.2.1:9", "--key", key, "--project", "p", "--format", "csv", "--out", out, "--once")
	c.fail(1, "--max-bytes 0: want a positive number", "sync", "--edge", "http://127.0.0.1:1", "--key", key, "--project", "p", "--format", "csv", "--out", out, "--max-bytes", "0")
	// The edge cannot be reached: --once says so and exits 3 (fetch).
	c.fail(3, "1 of 1 targets are not current", "sync", "--edge", "http://127.0.0.1:1", "--key", key, "--project", "p", "--format", "csv", "--out", out, "--once")
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a failed sync wrote %s (stat: %v)", out, err)
	}
}

// TestSyncReloadFails holds a failed reload: the checked file stays in
// place, and --once exits 5 naming the reload and its output.
func TestSyncReloadFails(t *testing.T) {
	c := newCLI(t)
	_, project := c.setup()
	c.ok("rule", "add", "--project", project, "--source", "/a", "--destination", "/b")
	c.ok("deploy", "--project", project)
	key := c.ok("key", "create", "--project", project)
	e := startEdge(t, c)
	dir := t.TempDir()
	out := filepath.Join(dir, "a.map")
	r := c.exec("", "sync", "--edge", e.base, "--key", key, "--project", project, "--format", "haproxy-map-exact", "--out", out,
		"--check", "grep -q '^/a /b$' "+out, "--reload", "echo reload refused >&2; exit 3", "--once")
	if r.code != 5 || !strings.Contains(r.stderr, "reload: ") || !strings.Contains(r.stderr, "reload refused") {
		t.Errorf("sync --once with a failing reload: exit %d, stderr %q; want 5 naming the reload and its output", r.code, r.stderr)
	}
	if b, err := os.ReadFile(out); err != nil || !strings.Contains(string(b), "\n/a /b\n") {
		t.Errorf("the checked file is not in place after the failed reload (err %v): %q", err, b)
	}
}

// TestSyncFirstRun holds the agent's first run as docs/delivery.md orders
// it: before the server runs, the first --once writes and checks the file,
// and its reload (a signal to a server that is not running) fails with
// exit status 5, the file in place; once the server runs, --once prints
// one line, the version and the file. The long-running agent logs a stop
// signal as a stop, not as a failure.
func TestSyncFirstRun(t *testing.T) {
	c := newCLI(t)
	_, project := c.setup()
	c.ok("rule", "add", "--project", project, "--source", "/a", "--destination", "/b")
	c.ok("deploy", "--project", project)
	key := c.ok("key", "create", "--project", project)
	e := startEdge(t, c)
	dir := t.TempDir()
	out := filepath.Join(dir, "a.map")
	reload := "kill -HUP $(cat " + filepath.Join(dir, "nginx.pid") + ")"
	args := []string{"sync", "--edge", e.base, "--key", key, "--project", project, "--format", "haproxy-map-exact", "--out", out,
		"--check", "grep -q '^/a /b$' " + out, "--reload", reload, "--once"}
	r := c.exec("", args...)
	if r.code != 5 || !strings.Contains(r.stderr, "reload: ") || !strings.Contains(r.stderr, "the checked file is in place") {
		t.Errorf("first sync --once, the server not running: exit %d, stderr %q; want 5, the reload named", r.code, r.stderr)
	}
	if b, err := os.ReadFile(out); err != nil || string(b) == "" || !strings.Contains(string(b), "\n/a /b\n") {
		t.Fatalf("the first sync --once did not write the file (err %v): %q", err, b)
	}
	// The server runs now (its reload works): the file is current, and
	// one line says so.
	args[len(args)-2] = "true" // the reload
	r = c.exec("", args...)
	if want := "version 1 already in " + out + "\n"; r.code != 0 || r.stdout != want {
		t.Errorf("sync --once over a current file: exit %d, stdout %q; want 0 and %q", r.code, r.stdout, want)
	}
	fresh := filepath.Join(dir, "b.map")
	r = c.exec("", "sync", "--edge", e.base, "--key", key, "--project", project, "--format", "haproxy-map-exact", "--out", fresh, "--once")
	if want := "version 1 applied to " + fresh + "\n"; r.code != 0 || r.stdout != want {
		t.Errorf("sync --once of a new file: exit %d, stdout %q; want 0 and %q", r.code, r.stdout, want)
	}

	// A stop signal ends the agent with a log line that says so.
	m := c.newMain(nil)
	var logs syncBuffer
	m.Stdout, m.Stderr = &logs, &logs
	ctx, stop := context.WithCancelCause(context.Background())
	exited := make(chan int, 1)
	go func() {
		exited <- m.Run(ctx, []string{"sync", "--edge", e.base, "--key", key, "--project", project, "--format", "haproxy-map-exact", "--out", fresh})
	}()
	waitMinute(t, "the agent to start following", func() bool { return strings.Contains(logs.String(), "following the live deployment") })
	time.Sleep(200 * time.Millisecond) // into its long-poll
	stop(errors.New("terminated signal received"))
	select {
	case code := <-exited:
		if code != 0 {
			t.Errorf("sync stopped by a signal exited %d, want 0", code)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("sync did not stop within 15 s of the signal")
	}
	if got := logs.String(); strings.Contains(got, "level=ERROR") || !strings.Contains(got, `msg=stopped reason="terminated signal received"`) {
		t.Errorf("the agent's log at a stop signal:\n%s\nwant msg=stopped with the signal, and no error", got)
	}
}
