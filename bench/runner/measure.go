//go:build linux

package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"redirects"
	"redirects/engine"
	"redirects/internal/coding"
)

// scaleResult is one row of the scale series.
type scaleResult struct {
	d            *dataset
	compile      time.Duration
	snapBytes    int64
	bytesPerRule float64
	// engine ns/op and allocs/op by kind: exact, prefix, miss.
	ns     [3]float64
	allocs [3]int64
	srcLen lengths
	ready  time.Duration // serve: start to healthy
	serve  *load
	target target
}

// lengths summarises the source lengths of a rule set.
type lengths struct{ min, p50, p99, max int }

var kindNames = [3]string{"exact hit", "prefix hit", "miss"}

// scaleOne measures one size: import and deploy through the CLI, the
// engine in process, and "redirects serve" under wrk; for the largest size
// also the export download.
func (r *runner) scaleOne(ctx context.Context, n int, largest bool) (*scaleResult, *exportResult, error) {
	r.logf("scale %d: generating, importing and deploying through the CLI", n)
	d, err := r.prepare(ctx, fmt.Sprintf("scale-%d", n), n)
	if err != nil {
		return nil, nil, err
	}
	res := &scaleResult{d: d}
	r.logf("scale %d: import %s, deploy %s; compiling and benchmarking the engine in process", n,
		d.importTime.Round(time.Millisecond), d.deployTime.Round(time.Millisecond))
	sm, err := r.engine(ctx, d, res)
	if err != nil {
		return nil, nil, err
	}
	r.logf("scale %d: snapshot %.0f bytes/rule, lookups %.0f/%.0f/%.0f ns; starting redirects serve", n,
		res.bytesPerRule, res.ns[0], res.ns[1], res.ns[2])
	s, err := r.startRedirects(ctx, d, fmt.Sprintf("redirects serve (scale %d)", n))
	if err != nil {
		return nil, nil, err
	}
	defer r.procs.stop(s.proc)
	res.ready = s.ready
	res.target = sm.exactHit
	if err := s.check(ctx, sm.exactHit); err != nil {
		return nil, nil, err
	}
	r.logf("scale %d: ready after %s; wrk %s on exact hits", n, s.ready.Round(time.Millisecond), r.cfg.scaleDuration)
	if res.serve, err = r.measure(ctx, s.proc.pid(), 0, 0, s.url(sm.exactHit), s.header(), r.cfg.scaleDuration, r.cfg.warmup); err != nil {
		return nil, nil, err
	}
	var exp *exportResult
	if largest {
		r.logf("scale %d: downloading the nginx export through the edge API", n)
		if exp, err = r.exportDownload(ctx, s, d); err != nil {
			return nil, nil, err
		}
	}
	return res, exp, nil
}

// engine compiles the deployment's rules in process: heap bytes of the
// snapshot, and ns per lookup for each kind of path.
func (r *runner) engine(ctx context.Context, d *dataset, res *scaleResult) (*samples, error) {
	rules, err := d.deployedRules(ctx)
	if err != nil {
		return nil, err
	}
	if len(rules) != d.n {
		return nil, fmt.Errorf("the deployment holds %d rules, want %d", len(rules), d.n)
	}
	res.srcLen = sourceLengths(rules)
	var m0, m1 runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&m0)
	t0 := time.Now()
	snap := engine.Compile(rules)
	res.compile = time.Since(t0)
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&m1)
	res.snapBytes = int64(m1.HeapAlloc) - int64(m0.HeapAlloc)
	res.bytesPerRule = float64(res.snapBytes) / float64(len(rules))
	sm, err := makeSamples(rules, snap, r.cfg.seed)
	if err != nil {
		return nil, err
	}
	runtime.GC() // rules are dead from here on
	for k, paths := range [3][]string{sm.exact, sm.prefix, sm.miss} {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		// The hits are counted (and checked) so the lookups cannot be
		// optimised away.
		var hits, n int
		b := testing.Benchmark(func(b *testing.B) {
			b.ReportAllocs()
			hits, n = 0, b.N
			for i := 0; i < b.N; i++ {
				if _, ok := snap.Lookup(paths[i%len(paths)]); ok {
					hits++
				}
			}
		})
		if b.N == 0 || n != b.N {
			return nil, fmt.Errorf("the %s benchmark did not run", kindNames[k])
		}
		if want := map[bool]int{true: n, false: 0}[k != 2]; hits != want {
			return nil, fmt.Errorf("engine %s benchmark: %d of %d lookups matched, want %d", kindNames[k], hits, n, want)
		}
		res.ns[k] = float64(b.T.Nanoseconds()) / float64(b.N)
		res.allocs[k] = b.AllocsPerOp()
	}
	runtime.KeepAlive(snap)
	return sm, nil
}

func sourceLengths(rules []redirects.Rule) lengths {
	if len(rules) == 0 {
		return lengths{}
	}
	ls := make([]int, len(rules))
	for i := range rules {
		ls[i] = len(rules[i].Source)
	}
	slices.Sort(ls)
	return lengths{ls[0], ls[len(ls)/2], ls[len(ls)*99/100], ls[len(ls)-1]}
}

// exportResult is the export download through the edge API.
type exportResult struct {
	n        int
	rows     []exportRow
	gzBytes  int64         // the body gzipped in process (level 6)
	gzTime   time.Duration // how long that took
	bodySize int64
}

type exportRow struct {
	accept   string
	status   int
	encoding string
	bytes    int64
	times    []time.Duration // each of 3 downloads
}

func (e exportRow) median() time.Duration {
	t := slices.Clone(e.times)
	slices.Sort(t)
	return t[len(t)/2]
}

// exportDownload GETs the nginx export three times without Accept-Encoding,
// three times with gzip and three times with zstd, timing each download to
// the last byte, and checks that each compressed body decodes to the
// uncompressed one.
func (r *runner) exportDownload(ctx context.Context, s *server, d *dataset) (*exportResult, error) {
	res := &exportResult{n: d.n}
	u := s.base + "/v1/export?project=" + url.QueryEscape(d.project) + "&format=nginx"
	var body []byte
	encoded := map[string][]byte{}
	for _, accept := range []string{"", "gzip", "zstd"} {
		row := exportRow{accept: accept}
		for i := 0; i < 3; i++ {
			req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
			if err != nil {
				return nil, err
			}
			req.Header.Set("X-API-Key", d.key)
			if accept != "" {
				req.Header.Set("Accept-Encoding", accept)
			}
			t0 := time.Now()
			resp, err := client.Do(req)
			if err != nil {
				return nil, err
			}
			var buf bytes.Buffer
			n, err := io.Copy(&buf, resp.Body)
			resp.Body.Close()
			took := time.Since(t0)
			if err != nil {
				return nil, fmt.Errorf("export download: %w", err)
			}
			if resp.StatusCode != http.StatusOK {
				return nil, fmt.Errorf("export download: status %d: %.200s", resp.StatusCode, buf.String())
			}
			row.status, row.encoding, row.bytes = resp.StatusCode, resp.Header.Get("Content-Encoding"), n
			row.times = append(row.times, took)
			if body == nil && row.encoding == "" {
				body = buf.Bytes()
			} else if row.encoding != "" && encoded[row.encoding] == nil {
				encoded[row.encoding] = buf.Bytes()
			}
		}
		res.rows = append(res.rows, row)
	}
	for c, b := range encoded {
		dec, err := coding.Decode(c, b)
		if err != nil || !bytes.Equal(dec, body) {
			return nil, fmt.Errorf("export download: the %s body does not decode to the uncompressed one (%d bytes, %v)", c, len(dec), err)
		}
	}
	if body != nil {
		res.bodySize = int64(len(body))
		var zb bytes.Buffer
		t0 := time.Now()
		zw := gzip.NewWriter(&zb)
		zw.Write(body)
		zw.Close()
		res.gzTime = time.Since(t0)
		res.gzBytes = int64(zb.Len())
	}
	return res, nil
}

// sbsRun is one measured run side by side.
type sbsRun struct {
	srv  *server
	kind int // index into sbsResult.targets
	l    *load
}

type sbsResult struct {
	n               int
	exactN, prefixN int
	srcLen          lengths
	targets         []target
	servers         []*server
	runs            []sbsRun
	notes           []string
}

// sideBySide measures every server on the same rules, one server at a
// time, each pinned to CPU 0 and loaded by wrk on CPU 1.
func (r *runner) sideBySide(ctx context.Context, d *dataset) (*sbsResult, error) {
	rules, err := d.deployedRules(ctx)
	if err != nil {
		return nil, err
	}
	snap := engine.Compile(rules)
	sm, err := makeSamples(rules, snap, r.cfg.seed)
	if err != nil {
		return nil, err
	}
	res := &sbsResult{n: d.n, exactN: snap.ExactLen(), prefixN: snap.PrefixLen(), srcLen: sourceLengths(rules),
		targets: []target{sm.exactHit, sm.missT, sm.prefixHit}}
	runtime.GC() // rules and snap are dead from here on

	type starter struct {
		name  string
		start func() (*server, error)
	}
	starters := []starter{{"nginx (maps)", func() (*server, error) { return r.startNginxMaps(ctx, d, oneCore) }}}
	if d.n <= nginxLocationMax {
		starters = append(starters, starter{"nginx (locations)", func() (*server, error) { return r.startNginxLocations(ctx, d) }})
	} else {
		msg := fmt.Sprintf("nginx (locations) skipped: %d rules is more than %d, and nginx 1.22 sorts a server's locations with an insertion sort, so a large mixed location file takes minutes to hours to load (docs/exports.md)", d.n, nginxLocationMax)
		res.notes = append(res.notes, msg)
		r.logf("side by side: %s", msg)
	}
	starters = append(starters,
		starter{"HAProxy (maps)", func() (*server, error) { return r.startHAProxy(ctx, d) }},
		starter{"redirects serve", func() (*server, error) {
			s, err := r.startRedirects(ctx, d, "redirects serve")
			if s != nil {
				s.config = "`redirects serve` (evhttp engine, limits counted in the process; enterprise organization: no limits)"
			}
			return s, err
		}},
		starter{"redirects serve --engine net/http", func() (*server, error) {
			return r.startRedirects(ctx, d, "redirects serve --engine net/http", "--engine", "net/http")
		}},
		starter{"redirects serve --redis", func() (*server, error) {
			rp, port, err := r.startRedis(ctx)
			if err != nil {
				return nil, err
			}
			s, err := r.startRedirects(ctx, d, "redirects serve --redis", "--redis", "redis://127.0.0.1:"+strconv.Itoa(port)+"/0")
			if err != nil {
				r.procs.stop(rp)
				return nil, err
			}
			s.redis, s.redisPort = rp, port
			s.config = "`redirects serve --redis` (a redis-server of the runner's own, `--save \"\" --appendonly no`, also on CPU 0; enterprise organization: no limits, so no round trip to Redis)"
			return s, nil
		}},
		starter{"redirects serve --redis, limited", func() (*server, error) {
			// The same organization with limits far above what a run
			// spends: the node takes shares of them from Redis.
			if _, e, _, err := command(ctx, time.Minute, d.env(), r.bin, "org", "update", d.org,
				"--rate-limit", "1000000000", "--monthly-quota", "1000000000000"); err != nil {
				return nil, fmt.Errorf("org update: %v: %s", err, e)
			}
			rp, port, err := r.startRedis(ctx)
			if err != nil {
				return nil, err
			}
			s, err := r.startRedirects(ctx, d, "redirects serve --redis, limited", "--redis", "redis://127.0.0.1:"+strconv.Itoa(port)+"/0")
			if err != nil {
				r.procs.stop(rp)
				return nil, err
			}
			s.redis, s.redisPort = rp, port
			s.config = "`redirects serve --redis`, the organization given limits of 1,000,000,000 a minute and 1,000,000,000,000 a month (far from both: the node takes shares of a quarter of a second of its traffic, up to 65,536 requests)"
			return s, nil
		}},
	)
	// The organization's limits go back to its tier's after the run.
	defer command(context.WithoutCancel(ctx), time.Minute, d.env(), r.bin, "org", "update", d.org, "--rate-limit", "default", "--monthly-quota", "default")
	for _, st := range starters {
		if r.cfg.only != nil && !r.cfg.only.MatchString(st.name) {
			continue
		}
		if err := r.oneServer(ctx, res, st.name, st.start); err != nil {
			return nil, err
		}
	}
	return res, nil
}

// oneServer starts one server, checks its answers, measures it on each
// path and stops it.
func (r *runner) oneServer(ctx context.Context, res *sbsResult, name string, start func() (*server, error)) error {
	r.logf("side by side: starting %s", name)
	s, err := start()
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	defer func() {
		r.procs.stop(s.proc)
		r.procs.stop(s.redis)
	}()
	for _, t := range res.targets {
		if err := s.check(ctx, t); err != nil {
			return fmt.Errorf("wrong answer, not measuring: %w", err)
		}
	}
	res.servers = append(res.servers, s)
	redisPid := 0
	if s.redis != nil {
		redisPid = s.redis.pid()
	}
	for k, t := range res.targets {
		r.logf("side by side: %s, %s, wrk %s", name, t.kind, r.cfg.duration)
		l, err := r.measure(ctx, s.proc.pid(), redisPid, s.redisPort, s.url(t), s.header(), r.cfg.duration, r.cfg.warmup)
		if err != nil {
			return fmt.Errorf("%s, %s: %w", name, t.kind, err)
		}
		res.runs = append(res.runs, sbsRun{srv: s, kind: k, l: l})
	}
	return nil
}

// machine describes where the run happened.
type machine struct {
	nproc, cpu, kernel, goVersion, nginx, haproxy, wrk, redis string
	loadStart, loadEnd                                        string
}

func (r *runner) machine(ctx context.Context) machine {
	first := func(argv ...string) string {
		o, e, _, _ := command(ctx, 10*time.Second, nil, argv...)
		s := strings.TrimSpace(o + "\n" + e)
		if i := strings.IndexByte(s, '\n'); i >= 0 {
			s = s[:i]
		}
		return strings.TrimSpace(s)
	}
	m := machine{
		nproc:     first("nproc"),
		goVersion: first("go", "version"),
		nginx:     strings.TrimPrefix(first("nginx", "-v"), "nginx version: "),
		haproxy:   first("haproxy", "-v"),
		wrk:       first("wrk", "-v"),
		redis:     first("redis-server", "--version"),
		loadStart: loadAvg(),
	}
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				m.cpu = strings.TrimSpace(v)
				break
			}
		}
	}
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		m.kernel = strings.TrimSpace(string(b))
	}
	if i := strings.Index(m.wrk, " Copyright"); i > 0 {
		m.wrk = m.wrk[:i]
	}
	return m
}

func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}
