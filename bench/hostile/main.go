//go:build linux

// Command hostile measures a node of `redirects serve` under the hostile
// loads of issue #24 (BENCHMARKS.md, "Resilience against hostile
// clients"), on 127.0.0.1 only, each part bounded in time:
//
//   - connections: N hostile connections at once (a third silent, a third
//     slowloris, a third export clients with a valid key that never read)
//     while wrk measures lookups: their p99 and errors, the node's RSS;
//   - signins: N concurrent sign-ins with unknown emails from as many
//     loopback addresses while wrk measures lookups: the answers, whether
//     the node stays up, its RSS growth, the lookups' p99;
//   - readers: N slow readers (`curl --limit-rate 10K`) of a large
//     project's export files, on a node of its own: its peak RSS;
//   - imports: every hostile import file of issue #31 (internal/hostileimport:
//     one line, many lines, lines of a megabyte, deep nesting, a structure
//     left open, a huge header; -import-mb each) through the management
//     API's import route, for every format it reads, on a node of its own:
//     the node's RSS growth, the answer's size, the CPU it uses in the
//     second after the answer or the client leaving (imports.go).
//
// It builds the binary, generates the rule sets (internal/rulegen), imports
// and deploys them with the CLI into SQLite files of a temporary directory,
// and stops every process it started. Run it through bench/resilience,
// which raises the open-file limit first:
//
//	bench/resilience          # the full form: 5,000 connections on 200,000 rules, 1,000 sign-ins, 12 readers of 1,000,000 rules
//	bench/resilience -short   # small and short, for CI: well under two minutes
//	bench/resilience -only imports   # the hostile imports alone, 100 MB each
package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"flag"
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
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"redirects"
	"redirects/export"
	"redirects/internal/rulegen"
)

type config struct {
	bin                   string
	engine                string
	connRules, readRules  int
	conns, signins, reads int
	duration, readFor     time.Duration
	only                  map[string]bool
	short                 bool
	keep                  bool
	// importMB is the size of each hostile import file; importShapes, when
	// set, keeps the shapes whose name holds one of its words.
	importMB     int
	importShapes string
	// latency: the p99 goals are checked (not in -short: a shared CI
	// runner's own noise is past 50 ms; the figures are printed anyway).
	latency bool
	// goals, checked at the end: the exit status is 1 when one is missed.
	p99Goal     time.Duration
	growthGoal  int64
	readersGoal int64
}

func main() {
	var c config
	var only string
	flag.StringVar(&c.bin, "bin", "", "the redirects binary (default: go build ./cmd/redirects into the temporary directory)")
	flag.StringVar(&c.engine, "engine", "", "serve --engine (default: the binary's default)")
	flag.IntVar(&c.connRules, "conn-rules", 200_000, "rules of the project of the connections and sign-ins parts")
	flag.IntVar(&c.readRules, "read-rules", 1_000_000, "rules of the project of the readers part")
	flag.IntVar(&c.conns, "conns", 5000, "hostile connections at once (a third of each kind)")
	flag.IntVar(&c.signins, "signins", 1000, "concurrent sign-ins")
	flag.IntVar(&c.reads, "readers", 12, "slow readers of the large project's exports")
	flag.DurationVar(&c.duration, "duration", 20*time.Second, "how long wrk measures lookups in each part")
	flag.DurationVar(&c.readFor, "read-for", 30*time.Second, "how long the slow readers read")
	flag.StringVar(&only, "only", "connections,signins,readers,imports", "the parts to run")
	flag.IntVar(&c.importMB, "import-mb", 100, "the size of each hostile import file, in MiB")
	flag.StringVar(&c.importShapes, "import-shapes", "", "the hostile import shapes to send: names holding one of these comma-separated words (default: all)")
	flag.BoolVar(&c.short, "short", false, "the CI form: 20,000 and 50,000 rules, 300 connections, 100 sign-ins, 4 readers, 3-5 s each; the p99 goals are printed, not checked")
	flag.BoolVar(&c.keep, "keep", false, "keep the temporary directory")
	flag.Parse()
	if c.short {
		c.connRules, c.readRules, c.conns, c.signins, c.reads = 20_000, 50_000, 300, 100, 4
		c.duration, c.readFor = 3*time.Second, 5*time.Second
		c.importMB = 8
	}
	c.p99Goal, c.growthGoal, c.readersGoal = 50*time.Millisecond, 512<<20, 1<<30
	c.latency = !c.short
	c.only = map[string]bool{}
	for _, p := range strings.Split(only, ",") {
		c.only[strings.TrimSpace(p)] = true
	}
	// Everything is bounded: the whole run, whatever happens.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	missed, err := run(ctx, &c)
	if err != nil {
		fmt.Fprintln(os.Stderr, "hostile:", err)
		os.Exit(2)
	}
	if missed > 0 {
		fmt.Printf("\n%d goal(s) missed\n", missed)
		os.Exit(1)
	}
}

// bench is one run: its directory, binary and the processes it started.
type bench struct {
	cfg  *config
	dir  string
	bin  string
	mu   sync.Mutex
	kids []*exec.Cmd
}

func run(ctx context.Context, c *config) (missed int, err error) {
	dir, err := os.MkdirTemp("", "redirects-hostile-")
	if err != nil {
		return 0, err
	}
	b := &bench{cfg: c, dir: dir, bin: c.bin}
	defer func() {
		b.stopAll()
		if !c.keep {
			os.RemoveAll(dir)
		}
	}()
	var lim syscall.Rlimit
	syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim)
	fmt.Printf("open-file limit: %d (hard %d); load average at start: %s\n", lim.Cur, lim.Max, loadavg())
	if need := uint64(c.conns + 1000); lim.Cur < need {
		return 0, fmt.Errorf("the open-file limit is %d, under the %d this run needs: raise it (ulimit -n) or run bench/resilience", lim.Cur, need)
	}
	if b.bin == "" {
		b.bin = filepath.Join(dir, "redirects")
		if out, err := exec.CommandContext(ctx, "go", "build", "-o", b.bin, "./cmd/redirects").CombinedOutput(); err != nil {
			return 0, fmt.Errorf("go build: %v\n%s", err, out)
		}
	}
	if _, err := exec.LookPath("wrk"); err != nil && (c.only["connections"] || c.only["signins"]) {
		return 0, errors.New("wrk is not installed (apt-get install wrk)")
	}
	if c.only["connections"] || c.only["signins"] {
		ds, err := b.dataset(ctx, "conns", c.connRules, 1)
		if err != nil {
			return 0, err
		}
		n, err := b.serve(ctx, ds)
		if err != nil {
			return 0, err
		}
		if c.only["connections"] {
			m, err := b.connections(ctx, ds, n)
			if err != nil {
				return 0, err
			}
			missed += m
		}
		if c.only["signins"] {
			m, err := b.signinsPart(ctx, ds, n)
			if err != nil {
				return 0, err
			}
			missed += m
		}
		n.stop()
	}
	if c.only["readers"] {
		ds, err := b.dataset(ctx, "readers", c.readRules, 2)
		if err != nil {
			return 0, err
		}
		n, err := b.serve(ctx, ds)
		if err != nil {
			return 0, err
		}
		m, err := b.readers(ctx, ds, n)
		if err != nil {
			return 0, err
		}
		missed += m
		n.stop()
	}
	if c.only["imports"] {
		m, err := b.imports(ctx)
		if err != nil {
			return 0, err
		}
		missed += m
	}
	return missed, nil
}

// dataset is a SQLite file with one deployed project of generated rules.
type dataset struct {
	db, org, project string
	keys             []string
	hit              string // a path the project answers 200
}

func (b *bench) cli(ctx context.Context, ds *dataset, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, b.bin, args...)
	cmd.Env = append(os.Environ(), "REDIRECTS_DB=sqlite:"+ds.db)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("redirects %s: %v: %s", strings.Join(args, " "), err, lastLines(stderr.String(), 3))
	}
	return strings.TrimSpace(string(out)), nil
}

func (b *bench) dataset(ctx context.Context, name string, n, keys int) (*dataset, error) {
	start := time.Now()
	ds := &dataset{db: filepath.Join(b.dir, name+".db")}
	rules := rulegen.Rules(n, 0.5, 1)
	for _, r := range rules {
		if r.MatchType == redirects.Exact {
			ds.hit = r.Source
			break
		}
	}
	csv := filepath.Join(b.dir, name+".csv")
	f, err := os.Create(csv)
	if err != nil {
		return nil, err
	}
	if err := export.WriteCSV(f, rules); err != nil {
		f.Close()
		return nil, err
	}
	f.Close()
	if ds.org, err = b.cli(ctx, ds, "org", "create", "--name", "bench", "--tier", "enterprise"); err != nil {
		return nil, err
	}
	if ds.project, err = b.cli(ctx, ds, "project", "create", "--org", ds.org, "--name", "bench"); err != nil {
		return nil, err
	}
	if _, err := b.cli(ctx, ds, "rule", "import", "--project", ds.project, csv); err != nil {
		return nil, err
	}
	os.Remove(csv)
	if _, err := b.cli(ctx, ds, "deploy", "--project", ds.project); err != nil {
		return nil, err
	}
	for range keys {
		k, err := b.cli(ctx, ds, "key", "create", "--project", ds.project)
		if err != nil {
			return nil, err
		}
		ds.keys = append(ds.keys, k)
	}
	fmt.Printf("dataset %s: %d rules imported and deployed in %.1f s\n", name, n, time.Since(start).Seconds())
	return ds, nil
}

// node is a running `redirects serve`.
type node struct {
	cmd          *exec.Cmd
	edge, manage string
	pid          int
	exited       chan struct{}
	stop         func()
}

var (
	servingRe = regexp.MustCompile(`msg=serving addr=(\S+)`)
	manageRe  = regexp.MustCompile(`msg="management API serving" addr=(\S+)`)
)

func (b *bench) serve(ctx context.Context, ds *dataset) (*node, error) {
	args := []string{"serve", "--addr", "127.0.0.1:0", "--admin-addr", "", "--manage-addr", "127.0.0.1:0"}
	if b.cfg.engine != "" {
		args = append(args, "--engine", b.cfg.engine)
	}
	cmd := exec.Command(b.bin, args...)
	cmd.Env = append(os.Environ(), "REDIRECTS_DB=sqlite:"+ds.db)
	// Its own process group, and killed by the kernel should this
	// program die without stopping it.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	logf, err := os.Create(filepath.Join(b.dir, "serve.log"))
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	b.mu.Lock()
	b.kids = append(b.kids, cmd)
	b.mu.Unlock()
	n := &node{cmd: cmd, pid: cmd.Process.Pid, exited: make(chan struct{})}
	edge, manage := make(chan string, 1), make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			line := sc.Text()
			fmt.Fprintln(logf, line)
			if m := servingRe.FindStringSubmatch(line); m != nil {
				edge <- m[1]
			}
			if m := manageRe.FindStringSubmatch(line); m != nil {
				manage <- m[1]
			}
		}
		io.Copy(io.Discard, stderr)
	}()
	go func() { cmd.Wait(); logf.Close(); close(n.exited) }()
	n.stop = func() {
		cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-n.exited:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-n.exited
		}
	}
	deadline := time.After(5 * time.Minute)
	for n.edge == "" || n.manage == "" {
		select {
		case a := <-edge:
			n.edge = a
		case a := <-manage:
			n.manage = a
		case <-n.exited:
			return nil, fmt.Errorf("serve exited at start; see %s", filepath.Join(b.dir, "serve.log"))
		case <-deadline:
			n.stop()
			return nil, errors.New("serve did not listen within 5 minutes")
		case <-ctx.Done():
			n.stop()
			return nil, ctx.Err()
		}
	}
	// Ready once a lookup of the project answers.
	for start := time.Now(); ; time.Sleep(100 * time.Millisecond) {
		if st, _ := get("http://"+n.edge+lookupPath(ds, ds.hit), ds.keys[0]); st == 200 {
			break
		}
		if time.Since(start) > 5*time.Minute {
			n.stop()
			return nil, errors.New("the project's lookups did not answer 200 within 5 minutes")
		}
	}
	fmt.Printf("serve (pid %d) on %s, management API on %s; RSS %d MiB\n", n.pid, n.edge, n.manage, procKiB(n.pid, "VmRSS")>>10)
	return n, nil
}

func (b *bench) stopAll() {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, c := range b.kids {
		if c.ProcessState == nil {
			c.Process.Signal(syscall.SIGTERM)
		}
	}
	time.Sleep(200 * time.Millisecond)
	for _, c := range b.kids {
		if c.ProcessState == nil {
			c.Process.Kill()
		}
	}
}

func lookupPath(ds *dataset, path string) string {
	return "/v1/lookup?project=" + url.QueryEscape(ds.project) + "&path=" + url.QueryEscape(path)
}

func get(u, key string) (int, error) {
	req, _ := http.NewRequest("GET", u, nil)
	req.Header.Set("X-API-Key", key)
	cl := &http.Client{Timeout: 10 * time.Second}
	res, err := cl.Do(req)
	if err != nil {
		return 0, err
	}
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
	return res.StatusCode, nil
}

// procKiB reads a field of /proc/PID/status in KiB.
func procKiB(pid int, field string) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, field+":") {
			f := strings.Fields(line)
			if len(f) >= 2 {
				v, _ := strconv.ParseInt(f[1], 10, 64)
				return v
			}
		}
	}
	return 0
}

// resetPeak starts a new measure of the process's peak RSS (VmHWM); it
// reports whether the kernel took the reset.
func resetPeak(pid int) bool {
	return os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", pid), []byte("5"), 0) == nil
}

// wrkResult is what wrk printed.
type wrkResult struct {
	reqs       float64
	p50, p99   time.Duration
	errs       int64
	errsDetail string
}

// wrk measures lookups of the project's hit path for d.
func wrk(ctx context.Context, n *node, ds *dataset, d time.Duration) (*wrkResult, error) {
	ctx, cancel := context.WithTimeout(ctx, d+30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "wrk", "-t1", "-c32", "-d"+strconv.Itoa(int(d.Seconds()))+"s", "--timeout", "5s", "--latency",
		"-H", "X-API-Key: "+ds.keys[0], "http://"+n.edge+lookupPath(ds, ds.hit)).CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("wrk: %v\n%s", err, out)
	}
	return parseWrk(string(out))
}

var (
	wrkReqs   = regexp.MustCompile(`Requests/sec:\s+([\d.]+)`)
	wrkPct    = regexp.MustCompile(`(?m)^\s+(50|99)%\s+([\d.]+)(us|ms|s)\s*$`)
	wrkNon2xx = regexp.MustCompile(`Non-2xx or 3xx responses: (\d+)`)
	wrkSock   = regexp.MustCompile(`Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)`)
)

func parseWrk(out string) (*wrkResult, error) {
	r := &wrkResult{}
	m := wrkReqs.FindStringSubmatch(out)
	if m == nil {
		return nil, fmt.Errorf("wrk printed no Requests/sec:\n%s", out)
	}
	r.reqs, _ = strconv.ParseFloat(m[1], 64)
	for _, m := range wrkPct.FindAllStringSubmatch(out, -1) {
		v, _ := strconv.ParseFloat(m[2], 64)
		unit := map[string]time.Duration{"us": time.Microsecond, "ms": time.Millisecond, "s": time.Second}[m[3]]
		d := time.Duration(v * float64(unit))
		if m[1] == "50" {
			r.p50 = d
		} else {
			r.p99 = d
		}
	}
	var parts []string
	if m := wrkNon2xx.FindStringSubmatch(out); m != nil {
		v, _ := strconv.ParseInt(m[1], 10, 64)
		r.errs += v
		parts = append(parts, m[1]+" non-2xx")
	}
	if m := wrkSock.FindStringSubmatch(out); m != nil {
		for _, s := range m[1:] {
			v, _ := strconv.ParseInt(s, 10, 64)
			r.errs += v
		}
		parts = append(parts, "socket errors "+strings.Join(m[1:], "/")+" (connect/read/write/timeout)")
	}
	r.errsDetail = strings.Join(parts, ", ")
	return r, nil
}

// loopback returns the i-th client address of a part (127.p.x.y), so the
// clients look like many addresses, as the red team's did.
func loopback(part, i int) net.IP {
	return net.IPv4(127, byte(part), byte(i/250), byte(1+i%250))
}

// connections is the part with silent, slowloris and non-reading export
// connections while wrk measures lookups.
func (b *bench) connections(ctx context.Context, ds *dataset, n *node) (missed int, err error) {
	c := b.cfg
	fmt.Printf("\n## %d hostile connections (a third silent, a third slowloris, a third non-reading export clients), %d rules\n\n", c.conns, c.connRules)
	base, err := wrk(ctx, n, ds, c.duration)
	if err != nil {
		return 0, err
	}
	fmt.Printf("lookups alone: %.0f req/s, p50 %v, p99 %v, errors %d\n", base.reqs, base.p50, base.p99, base.errs)
	rssBefore := procKiB(n.pid, "VmRSS")
	resetPeak(n.pid)

	hctx, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	var open, closedByServer [3]atomic.Int64
	kinds := []string{"silent", "slowloris", "export"}
	exportReq := fmt.Sprintf("GET /v1/export?project=%s&format=haproxy HTTP/1.1\r\nHost: bench\r\nX-API-Key: %s\r\n\r\n", ds.project, ds.keys[0])
	for i := range c.conns {
		kind := i % 3
		wg.Add(1)
		go func() {
			defer wg.Done()
			d := net.Dialer{LocalAddr: &net.TCPAddr{IP: loopback(10, i)}, Timeout: 5 * time.Second}
			for hctx.Err() == nil {
				conn, err := d.DialContext(hctx, "tcp", n.edge)
				if err != nil {
					select {
					case <-hctx.Done():
					case <-time.After(500 * time.Millisecond):
					}
					continue
				}
				open[kind].Add(1)
				closed := make(chan struct{})
				go func() {
					select {
					case <-hctx.Done():
						conn.Close()
					case <-closed:
					}
				}()
				switch kind {
				case 0: // silent: connect and send nothing
					conn.Read(make([]byte, 1))
				case 1: // slowloris: a header line every second, never the end
					conn.Write([]byte("GET " + lookupPath(ds, ds.hit) + " HTTP/1.1\r\nHost: bench\r\n"))
					for hctx.Err() == nil {
						time.Sleep(time.Second)
						if _, err := conn.Write([]byte("X-Slow: 1\r\n")); err != nil {
							break
						}
					}
				case 2: // an export asked for and never read
					conn.Write([]byte(exportReq))
					<-hctx.Done()
				}
				close(closed)
				conn.Close()
				open[kind].Add(-1)
				if hctx.Err() == nil {
					closedByServer[kind].Add(1)
				}
			}
		}()
		if i%100 == 99 {
			time.Sleep(20 * time.Millisecond) // ramp up over a few seconds
		}
	}
	time.Sleep(2 * time.Second)
	fmt.Printf("open at the start of the measure: silent %d, slowloris %d, export %d\n", open[0].Load(), open[1].Load(), open[2].Load())
	res, err := wrk(ctx, n, ds, c.duration)
	fmt.Printf("open at the end: silent %d, slowloris %d, export %d\n", open[0].Load(), open[1].Load(), open[2].Load())
	stop()
	wg.Wait()
	if err != nil {
		return 0, err
	}
	peak := procKiB(n.pid, "VmHWM")
	for k, name := range kinds {
		fmt.Printf("%s connections closed by the node during the run: %d\n", name, closedByServer[k].Load())
	}
	fmt.Printf("lookups meanwhile: %.0f req/s, p50 %v, p99 %v, errors %d (%s)\n", res.reqs, res.p50, res.p99, res.errs, res.errsDetail)
	fmt.Printf("node RSS: %d MiB before, peak %d MiB\n", rssBefore>>10, peak>>10)
	if st, err := get("http://"+n.edge+"/healthz", ""); err != nil || st != 200 {
		fmt.Printf("MISSED: /healthz after the run: %d %v\n", st, err)
		missed++
	}
	if (c.latency && res.p99 >= c.p99Goal) || res.errs != 0 {
		fmt.Printf("MISSED: lookups' p99 %v (goal < %v), %d errors (goal 0)\n", res.p99, c.p99Goal, res.errs)
		missed++
	} else if !c.latency {
		fmt.Printf("goal met: no errors (p99 %v not checked in -short)\n", res.p99)
	} else {
		fmt.Printf("goal met: p99 %v < %v, no errors\n", res.p99, c.p99Goal)
	}
	return missed, nil
}

// signinsPart fires concurrent sign-ins with unknown emails, each from a
// loopback address of its own, while wrk measures lookups.
func (b *bench) signinsPart(ctx context.Context, ds *dataset, n *node) (missed int, err error) {
	c := b.cfg
	fmt.Printf("\n## %d concurrent sign-ins with unknown emails, from %d addresses\n\n", c.signins, c.signins)
	rssBefore := procKiB(n.pid, "VmRSS")
	resetPeak(n.pid)
	type wr struct {
		r   *wrkResult
		err error
	}
	wch := make(chan wr, 1)
	go func() {
		r, err := wrk(ctx, n, ds, c.duration)
		wch <- wr{r, err}
	}()
	time.Sleep(time.Second)
	var mu sync.Mutex
	statuses := map[string]int{}
	var wg sync.WaitGroup
	start := time.Now()
	for i := range c.signins {
		wg.Add(1)
		go func() {
			defer wg.Done()
			d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: loopback(20, i)}, Timeout: 10 * time.Second}
			cl := &http.Client{Timeout: 60 * time.Second, Transport: &http.Transport{DialContext: d.DialContext, DisableKeepAlives: true}}
			body := fmt.Sprintf(`{"email":"nobody%d@example.com","password":"a wrong password"}`, i)
			res, err := cl.Post("http://"+n.manage+"/manage/v1/session", "application/json", strings.NewReader(body))
			key := "error"
			if err == nil {
				io.Copy(io.Discard, res.Body)
				res.Body.Close()
				key = strconv.Itoa(res.StatusCode)
			}
			mu.Lock()
			statuses[key]++
			mu.Unlock()
		}()
	}
	wg.Wait()
	took := time.Since(start)
	w := <-wch
	if w.err != nil {
		return 0, w.err
	}
	peak := procKiB(n.pid, "VmHWM")
	up := true
	if st, err := get("http://"+n.edge+"/healthz", ""); err != nil || st != 200 {
		up = false
	}
	select {
	case <-n.exited:
		up = false
	default:
	}
	fmt.Printf("answers: %v (all in %.1f s)\n", statuses, took.Seconds())
	fmt.Printf("node up after: %v; RSS %d MiB before, peak %d MiB: growth %d MiB\n", up, rssBefore>>10, peak>>10, (peak-rssBefore)>>10)
	fmt.Printf("lookups meanwhile: %.0f req/s, p50 %v, p99 %v, errors %d (%s)\n", w.r.reqs, w.r.p50, w.r.p99, w.r.errs, w.r.errsDetail)
	if !up {
		fmt.Println("MISSED: the node is not up")
		missed++
	}
	if growth := (peak - rssBefore) << 10; growth >= c.growthGoal {
		fmt.Printf("MISSED: RSS growth %d MiB (goal < %d MiB)\n", growth>>20, c.growthGoal>>20)
		missed++
	}
	if (c.latency && w.r.p99 >= c.p99Goal) || w.r.errs != 0 {
		fmt.Printf("MISSED: lookups' p99 %v (goal < %v), %d errors\n", w.r.p99, c.p99Goal, w.r.errs)
		missed++
	}
	if missed == 0 {
		fmt.Printf("goals met: up, growth < %d MiB, no lookup errors", c.growthGoal>>20)
		if c.latency {
			fmt.Printf(", p99 < %v", c.p99Goal)
		}
		fmt.Println()
	}
	return missed, nil
}

// readers runs slow curl readers of the project's export files, spread
// over four formats and the dataset's keys (the per-key cap is 8), and
// reads the node's peak RSS.
func (b *bench) readers(ctx context.Context, ds *dataset, n *node) (missed int, err error) {
	c := b.cfg
	fmt.Printf("\n## %d slow readers (curl --limit-rate 10K) of the exports of %d rules, %v\n\n", c.reads, c.readRules, c.readFor)
	if _, err := exec.LookPath("curl"); err != nil {
		return 0, errors.New("curl is not installed")
	}
	rssBefore := procKiB(n.pid, "VmRSS")
	resetPeak(n.pid)
	formats := []string{"csv", "nginx", "haproxy", "nginx-map-exact"}
	rctx, cancel := context.WithTimeout(ctx, c.readFor+30*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	var mu sync.Mutex
	codes := map[string]int{}
	var most int64
	stopSample := make(chan struct{})
	go func() {
		for {
			select {
			case <-stopSample:
				return
			case <-time.After(100 * time.Millisecond):
				if v := procKiB(n.pid, "VmRSS"); v > most {
					most = v
				}
			}
		}
	}()
	for i := range c.reads {
		wg.Add(1)
		go func() {
			defer wg.Done()
			u := "http://" + n.edge + "/v1/export?project=" + ds.project + "&format=" + formats[i%len(formats)]
			out, _ := exec.CommandContext(rctx, "curl", "-s", "-o", "/dev/null", "-w", "%{http_code}", "--limit-rate", "10K",
				"--max-time", strconv.Itoa(int(c.readFor.Seconds())), "-H", "X-API-Key: "+ds.keys[i%len(ds.keys)], u).Output()
			mu.Lock()
			codes[string(out)]++
			mu.Unlock()
		}()
	}
	wg.Wait()
	close(stopSample)
	peak := procKiB(n.pid, "VmHWM")
	fmt.Printf("curl statuses (a reader still reading is cut by --max-time, as meant): %v\n", codes)
	fmt.Printf("node RSS: %d MiB before, peak %d MiB (sampled every 100 ms: %d MiB)\n", rssBefore>>10, peak>>10, most>>10)
	if peak<<10 >= c.readersGoal {
		fmt.Printf("MISSED: peak RSS %d MiB (goal < %d MiB)\n", peak>>10, c.readersGoal>>20)
		missed++
	} else {
		fmt.Printf("goal met: peak %d MiB < %d MiB\n", peak>>10, c.readersGoal>>20)
	}
	return missed, nil
}

func loadavg() string {
	b, _ := os.ReadFile("/proc/loadavg")
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
