//go:build linux

package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"redirects/export"
)

// server is one HTTP server under test, answering the same rules.
type server struct {
	name string
	proc *proc
	base string // http://127.0.0.1:PORT
	// api: the redirects edge API (/v1/lookup with a key); otherwise the
	// server answers the path itself with a redirect.
	api          bool
	project, key string
	// mapStatus: exact rules are served as 301 whatever their status (the
	// map formats have no status column).
	mapStatus bool
	ready     time.Duration // from start to the first answer
	redis     *proc         // the Redis of a --redis server
	redisPort int           // its port: the runner reads its INFO
	config    string        // for the report: how it was set up
}

var client = &http.Client{
	Timeout: 2 * time.Minute,
	CheckRedirect: func(*http.Request, []*http.Request) error {
		return http.ErrUseLastResponse
	},
	Transport: &http.Transport{Proxy: nil, DisableCompression: true, MaxIdleConnsPerHost: 4},
}

func (s *server) url(t target) string {
	if s.api {
		return s.base + "/v1/lookup?project=" + url.QueryEscape(s.project) + "&path=" + url.QueryEscape(t.path)
	}
	return s.base + t.path
}

func (s *server) header() string {
	if s.api {
		return "X-API-Key: " + s.key
	}
	return ""
}

// check asks once for t and holds the answer against the lookup API's.
func (s *server) check(ctx context.Context, t target) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.url(t), nil)
	if err != nil {
		return err
	}
	if s.api {
		req.Header.Set("X-API-Key", s.key)
	}
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	bad := func(want string) error {
		return fmt.Errorf("%s answered the %s %s with %d (Location %q, body %.200q), want %s",
			s.name, t.kind, t.path, resp.StatusCode, resp.Header.Get("Location"), body, want)
	}
	switch {
	case !t.match:
		if resp.StatusCode != http.StatusNoContent {
			return bad("204")
		}
	case s.api:
		var got struct {
			Destination string `json:"destination"`
			StatusCode  int    `json:"statusCode"`
		}
		if resp.StatusCode != http.StatusOK || json.Unmarshal(body, &got) != nil || got.Destination != t.dest || got.StatusCode != t.status {
			return bad(fmt.Sprintf("200 with destination %q and statusCode %d", t.dest, t.status))
		}
	default:
		want := t.status
		if t.exact && s.mapStatus {
			want = http.StatusMovedPermanently
		}
		if resp.StatusCode != want || resp.Header.Get("Location") != t.dest {
			return bad(fmt.Sprintf("%d to %q", want, t.dest))
		}
	}
	return nil
}

// freePort returns a port on 127.0.0.1 that was free a moment ago.
func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// waitHTTP polls url until ok accepts a status, the process exits or
// timeout passes.
func waitHTTP(ctx context.Context, p *proc, u string, ok func(int) bool, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	c := &http.Client{Timeout: 2 * time.Second, Transport: &http.Transport{Proxy: nil, DisableKeepAlives: true}}
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
		if resp, err := c.Do(req); err == nil {
			resp.Body.Close()
			if ok(resp.StatusCode) {
				return nil
			}
		}
		if p.exited() {
			return fmt.Errorf("%s exited before answering (%v); its log:\n%s", p.name, p.err, p.tail())
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s did not answer %s within %s; its log:\n%s", p.name, u, timeout, p.tail())
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// exportFile writes a deployment's export through the CLI.
func (r *runner) exportFile(ctx context.Context, d *dataset, format, path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	ctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, r.bin, "export", "--project", d.project, "--format", format)
	cmd.Env = append(os.Environ(), d.env()...)
	var stderr strings.Builder
	cmd.Stdout, cmd.Stderr = f, &stderr
	cmd.SysProcAttr = childAttr()
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("redirects export --format %s: %v %s", format, err, stderr.String())
	}
	return nil
}

// startRedirects runs "redirects serve" on the dataset's database, pinned to
// CPU 0.
func (r *runner) startRedirects(ctx context.Context, d *dataset, name string, args ...string) (*server, error) {
	return r.startRedirectsOn(ctx, d, name, oneCore, args...)
}

// placement is where a server under test runs.
type placement int

const (
	// oneCore: pinned to CPU 0 (taskset -c 0), one worker (GOMAXPROCS=1,
	// one nginx worker); wrk runs on CPU 1.
	oneCore placement = iota
	// allCores: not pinned, every default as a user would start it (the
	// edge's loops: GOMAXPROCS, the number of CPUs; nginx: worker_processes
	// auto); wrk runs on the same CPUs, not pinned either.
	allCores
)

// startRedirectsOn runs "redirects serve" on the dataset's database, placed
// as at says.
func (r *runner) startRedirectsOn(ctx context.Context, d *dataset, name string, at placement, args ...string) (*server, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	argv := append([]string{r.bin, "serve", "--addr", "127.0.0.1:" + strconv.Itoa(port), "--admin-addr", "", "--log-level", "warn"}, args...)
	env := d.env()
	if at == oneCore {
		argv = append([]string{"taskset", "-c", "0"}, argv...)
		env = append(env, "GOMAXPROCS=1")
	}
	t0 := time.Now()
	p, err := r.procs.start(name, filepath.Join(r.tmp, logName(name)), env, argv...)
	if err != nil {
		return nil, err
	}
	s := &server{name: name, proc: p, base: "http://127.0.0.1:" + strconv.Itoa(port), api: true, project: d.project, key: d.key,
		config: "`redirects serve " + strings.Join(args, " ") + "`"}
	if err := waitHTTP(ctx, p, s.base+"/healthz", func(c int) bool { return c == 200 }, 5*time.Minute); err != nil {
		r.procs.stop(p)
		return nil, err
	}
	s.ready = time.Since(t0)
	return s, nil
}

// startRedis runs a redis-server of the runner's own, without persistence,
// pinned to CPU 0 with the server that uses it.
func (r *runner) startRedis(ctx context.Context) (*proc, int, error) {
	port, err := freePort()
	if err != nil {
		return nil, 0, err
	}
	dir := filepath.Join(r.tmp, "redis")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, 0, err
	}
	p, err := r.procs.start("redis-server", filepath.Join(r.tmp, "redis.log"), nil,
		"taskset", "-c", "0", "redis-server", "--port", strconv.Itoa(port), "--bind", "127.0.0.1",
		"--save", "", "--appendonly", "no", "--daemonize", "no", "--dir", dir)
	if err != nil {
		return nil, 0, err
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		if pingRedis(port) {
			return p, port, nil
		}
		if p.exited() || time.Now().After(deadline) || ctx.Err() != nil {
			r.procs.stop(p)
			return nil, 0, fmt.Errorf("redis-server did not answer PING within 30 s; its log:\n%s", p.tail())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func pingRedis(port int) bool {
	c, err := net.DialTimeout("tcp", "127.0.0.1:"+strconv.Itoa(port), time.Second)
	if err != nil {
		return false
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(time.Second))
	if _, err := c.Write([]byte("PING\r\n")); err != nil {
		return false
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	return err == nil && strings.HasPrefix(line, "+PONG")
}

// redisCalls sums the calls of every command in the INFO commandstats of
// the Redis on port, less the INFO commands themselves. INFO counts the
// commands a script runs as well as the EVALSHA that runs it, so the figure
// is an upper bound on the round trips the servers made.
func redisCalls(port int) (int64, error) {
	c, err := net.DialTimeout("tcp", "127.0.0.1:"+strconv.Itoa(port), time.Second)
	if err != nil {
		return 0, err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := c.Write([]byte("INFO commandstats\r\n")); err != nil {
		return 0, err
	}
	br := bufio.NewReader(c)
	head, err := br.ReadString('\n')
	if err != nil || !strings.HasPrefix(head, "$") {
		return 0, fmt.Errorf("redis INFO: unexpected reply %q (%v)", head, err)
	}
	n, err := strconv.Atoi(strings.TrimSpace(head[1:]))
	if err != nil || n < 0 || n > 1<<20 {
		return 0, fmt.Errorf("redis INFO: unexpected length %q", head)
	}
	body := make([]byte, n+2)
	if _, err := io.ReadFull(br, body); err != nil {
		return 0, err
	}
	var total int64
	for _, line := range strings.Split(string(body), "\n") {
		name, rest, ok := strings.Cut(strings.TrimSpace(line), ":")
		if !ok || !strings.HasPrefix(name, "cmdstat_") || name == "cmdstat_info" {
			continue
		}
		calls, _, _ := strings.Cut(strings.TrimPrefix(rest, "calls="), ",")
		v, err := strconv.ParseInt(calls, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("redis INFO: unreadable line %q", line)
		}
		total += v
	}
	return total, nil
}

var (
	reBucket  = regexp.MustCompile(`map_hash_bucket_size (\d+);`)
	reMaxSize = regexp.MustCompile(`map_hash_max_size (\d+);`)
)

// mapSizes reads the two sizes the nginx-map-exact file asks for in its
// leading comment, or the documented values for a million rules.
func mapSizes(path string) (bucket, maxSize string) {
	bucket, maxSize = "1024", "2097152"
	f, err := os.Open(path)
	if err != nil {
		return
	}
	defer f.Close()
	var head strings.Builder
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for i := 0; i < 40 && sc.Scan() && strings.HasPrefix(sc.Text(), "#"); i++ {
		head.WriteString(sc.Text() + "\n")
	}
	if m := reBucket.FindStringSubmatch(head.String()); m != nil {
		bucket = m[1]
	}
	if m := reMaxSize.FindStringSubmatch(head.String()); m != nil {
		maxSize = m[1]
	}
	return
}

// nginxTempPaths sets every temporary directory nginx was built with into
// dir, so nothing outside it is touched.
func nginxTempPaths(dir string) string {
	out, _ := exec.Command("nginx", "-V").CombinedOutput()
	var b strings.Builder
	fmt.Fprintf(&b, "    client_body_temp_path %s/body;\n", dir)
	for _, m := range []string{"proxy", "fastcgi", "uwsgi", "scgi"} {
		if !strings.Contains(string(out), "--without-http_"+m+"_module") {
			fmt.Fprintf(&b, "    %s_temp_path %s/%s;\n", m, dir, m)
		}
	}
	return b.String()
}

// startNginx writes an nginx configuration around http (in the http block)
// and srv (in the server block, after listen) and runs nginx in the
// foreground: at oneCore one process (`master_process off; worker_processes
// 1;`) pinned to CPU 0, at allCores a master and `worker_processes auto`, not
// pinned. The configuration and pid files are named after the placement, so
// that one of each can share dir.
func (r *runner) startNginx(ctx context.Context, name, dir, httpPart, srvPart string, at placement) (*server, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	procs, tag, pin := "master_process off;\nworker_processes 1;", "", []string{"taskset", "-c", "0"}
	if at == allCores {
		procs, tag, pin = "master_process on;\nworker_processes auto;", "-all", nil
	}
	conf := fmt.Sprintf(`daemon off;
%[6]s
pid %[1]s/nginx%[7]s.pid;
error_log %[1]s/error.log warn;
events { worker_connections 4096; }
http {
    access_log off;
%[2]s%[3]s
    server {
        listen 127.0.0.1:%[4]d;
%[5]s
    }
}
`, dir, nginxTempPaths(dir), indent(httpPart, "    "), port, indent(srvPart, "        "), procs, tag)
	confPath := filepath.Join(dir, "nginx"+tag+".conf")
	if err := os.WriteFile(confPath, []byte(conf), 0o644); err != nil {
		return nil, err
	}
	t0 := time.Now()
	p, err := r.procs.start(name, filepath.Join(dir, "stderr"+tag+".log"), nil,
		append(pin, "nginx", "-p", dir+"/", "-e", dir+"/error.log", "-c", confPath)...)
	if err != nil {
		return nil, err
	}
	s := &server{name: name, proc: p, base: "http://127.0.0.1:" + strconv.Itoa(port)}
	if err := waitHTTP(ctx, p, s.base+"/", func(int) bool { return true }, 5*time.Minute); err != nil {
		r.procs.stop(p)
		if b, _ := os.ReadFile(filepath.Join(dir, "error.log")); len(b) > 0 {
			err = fmt.Errorf("%w\nerror.log:\n%s", err, lastLines(string(b), 10))
		}
		return nil, err
	}
	s.ready = time.Since(t0)
	return s, nil
}

// startNginxMaps serves nginx-map-exact + nginx-map-prefix with the
// snippets of export/snippets.go (the exports are written once per dataset).
func (r *runner) startNginxMaps(ctx context.Context, d *dataset, at placement) (*server, error) {
	dir := filepath.Join(r.tmp, "nginx-maps-"+filepath.Base(d.dir))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	for f, format := range map[string]string{"redirects-exact.map": "nginx-map-exact", "redirects-prefix.map": "nginx-map-prefix"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
			continue
		}
		if err := r.exportFile(ctx, d, format, filepath.Join(dir, f)); err != nil {
			return nil, err
		}
	}
	bucket, maxSize := mapSizes(filepath.Join(dir, "redirects-exact.map"))
	etc := func(s string) string { return strings.ReplaceAll(s, "/etc/nginx/", dir+"/") }
	httpPart := "map_hash_bucket_size " + bucket + ";\nmap_hash_max_size " + maxSize + ";\n" +
		etc(export.NginxMapExactHTTPSnippet) + "\n" + etc(export.NginxMapPrefixHTTPSnippet)
	srvPart := export.NginxAbsoluteRedirectSnippet + "\n" + export.NginxMapExactSnippet + "\n" + export.NginxMapPrefixSnippet + "\nreturn 204;"
	s, err := r.startNginx(ctx, "nginx (maps)", dir, httpPart, srvPart, at)
	if err != nil {
		return nil, err
	}
	s.mapStatus = true
	s.config = fmt.Sprintf("nginx-map-exact + nginx-map-prefix, `map_hash_bucket_size %s; map_hash_max_size %s;` (from the export's comment), `return 204;` otherwise", bucket, maxSize)
	return s, nil
}

// startNginxLocations serves the nginx (location) export.
func (r *runner) startNginxLocations(ctx context.Context, d *dataset) (*server, error) {
	dir := filepath.Join(r.tmp, "nginx-locations")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	if err := r.exportFile(ctx, d, "nginx", filepath.Join(dir, "redirects.conf")); err != nil {
		return nil, err
	}
	// A server-level return would run before location matching, so the
	// 204 for everything else is a location of its own.
	srvPart := export.NginxAbsoluteRedirectSnippet + "\n" + strings.ReplaceAll(export.NginxServerSnippet, "/etc/nginx/", dir+"/") +
		"\nlocation / { return 204; }"
	s, err := r.startNginx(ctx, "nginx (locations)", dir, "", srvPart, oneCore)
	if err != nil {
		return nil, err
	}
	s.config = "nginx export (locations), `location / { return 204; }` otherwise"
	return s, nil
}

// startHAProxy serves haproxy-map-exact + haproxy-map-prefix with the
// snippets of export/snippets.go, one thread, pinned to CPU 0.
func (r *runner) startHAProxy(ctx context.Context, d *dataset) (*server, error) {
	dir := filepath.Join(r.tmp, "haproxy")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	for f, format := range map[string]string{"redirects-exact.map": "haproxy-map-exact", "redirects-prefix.map": "haproxy-map-prefix"} {
		if err := r.exportFile(ctx, d, format, filepath.Join(dir, f)); err != nil {
			return nil, err
		}
	}
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	etc := func(s string) string { return strings.ReplaceAll(s, "/etc/haproxy/", dir+"/") }
	conf := fmt.Sprintf(`global
    nbthread 1
    maxconn 4096

defaults
    mode http
    timeout connect 5s
    timeout client 60s
    timeout server 60s
    timeout http-keep-alive 120s

frontend www
    bind 127.0.0.1:%d
    mode http
%s
%s
    http-request return status 204
`, port, indent(etc(export.HAProxyMapExactSnippet), "    "), indent(etc(export.HAProxyMapPrefixSnippet), "    "))
	confPath := filepath.Join(dir, "haproxy.cfg")
	if err := os.WriteFile(confPath, []byte(conf), 0o644); err != nil {
		return nil, err
	}
	t0 := time.Now()
	p, err := r.procs.start("haproxy (maps)", filepath.Join(dir, "haproxy.log"), nil,
		"taskset", "-c", "0", "haproxy", "-db", "-f", confPath)
	if err != nil {
		return nil, err
	}
	s := &server{name: "HAProxy (maps)", proc: p, base: "http://127.0.0.1:" + strconv.Itoa(port), mapStatus: true,
		config: "haproxy-map-exact + haproxy-map-prefix, `nbthread 1`, `http-request return status 204` otherwise"}
	if err := waitHTTP(ctx, p, s.base+"/", func(int) bool { return true }, 5*time.Minute); err != nil {
		r.procs.stop(p)
		return nil, err
	}
	s.ready = time.Since(t0)
	return s, nil
}

func indent(s, prefix string) string {
	if s == "" {
		return ""
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = prefix + l
	}
	return strings.Join(lines, "\n")
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

func logName(name string) string {
	return strings.NewReplacer(" ", "-", "(", "", ")", "", "/", "", ",", "").Replace(name) + ".log"
}
