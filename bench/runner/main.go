//go:build linux

// Command runner is bench/run: one command that measures the redirects
// service against nginx and HAProxy on 127.0.0.1 and writes a Markdown
// report (docs in bench/run).
//
//  1. Builds the redirects binary once.
//  2. Scale series: for each -scale size, generated rules are imported and
//     deployed through the real CLI on a fresh SQLite file (both timed);
//     the deployment's rules are compiled in process (snapshot bytes per
//     rule, engine ns per lookup with testing.Benchmark); "redirects serve"
//     on that database is loaded with wrk (exact hits).
//  3. Side by side at -rules: redirects serve (evhttp, net/http, --redis),
//     nginx from its map exports and from its location export (up to
//     100,000 rules) and HAProxy from its map exports, each pinned to CPU 0 with
//     wrk on CPU 1, for an exact hit, a miss and a prefix hit.
//  4. The edge against nginx (maps) on exact hits in two placements, one
//     core each and all cores with every default, measured in turn for
//     -rounds rounds.
//  5. The largest scale's nginx export downloaded through the edge API,
//     without Accept-Encoding and with gzip and with zstd.
//  6. The report, with the project's performance goals marked met or not.
//
// Every server is stopped and every temporary file removed at the end, also
// on an error or Ctrl-C; every wait on something external is bounded.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

type config struct {
	scale         []int
	rules         int
	prefixShare   float64
	extraDepth    int
	seed          uint64
	duration      time.Duration // side-by-side runs
	scaleDuration time.Duration // scale series serve runs
	warmup        bool
	benchtime     time.Duration
	rounds        int // edge vs nginx: measured rounds in each placement
	out           string
	smoke         bool
	only          *regexp.Regexp // side by side: the servers to run (nil: all)
	args          []string
}

// nginxLocationMax is the largest rule set loaded into nginx with the
// location export: nginx 1.22 sorts locations with an insertion sort, so
// mixed sets load quadratically slowly (about a minute at 100,000 rules,
// hours at a million; docs/exports.md).
const nginxLocationMax = 100000

type runner struct {
	cfg    config
	root   string
	tmp    string
	bin    string
	procs  procs
	clkTck float64
	start  time.Time
}

func main() {
	os.Exit(run())
}

func run() int {
	cfg, err := parseFlags(os.Args[1:])
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		fmt.Fprintln(os.Stderr, "bench/run:", err)
		return 2
	}
	// "go run" does not pass its own SIGTERM on: ask the kernel for one
	// when it dies, so the servers are still stopped.
	_, _, _ = syscall.RawSyscall(syscall.SYS_PRCTL, syscall.PR_SET_PDEATHSIG, uintptr(syscall.SIGTERM), 0)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	r := &runner{cfg: cfg, start: time.Now(), clkTck: 100}
	defer r.cleanup()
	if err := r.main(ctx); err != nil {
		if ctx.Err() != nil {
			fmt.Fprintln(os.Stderr, "bench/run: interrupted; servers stopped, temporary files removed")
			return 130
		}
		fmt.Fprintln(os.Stderr, "bench/run: aborted:", err)
		return 1
	}
	return 0
}

func parseFlags(args []string) (config, error) {
	fs := flag.NewFlagSet("bench/run", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), `usage: bench/run [flags]

Measures the redirects service (import, deploy, engine, edge API) at several
sizes and side by side with nginx and HAProxy serving the project's own
exports, on 127.0.0.1, and writes a Markdown report. Flags:`)
		fs.PrintDefaults()
	}
	scale := fs.String("scale", "1000,100000,1000000", "rule counts of the scale series, comma-separated")
	rules := fs.Int("rules", 100000, "rule count of the side-by-side comparison")
	share := fs.Float64("prefix-share", 0.5, "share of starts_with rules in the generated rule sets, 0..1")
	seed := fs.Uint64("seed", 1, "seed of rulegen.Rules")
	depth := fs.Int("extra-depth", 0, "path length: add 0..N slug segments to every generated path")
	dur := fs.Duration("duration", 10*time.Second, "length of each measured wrk run side by side (scale series: 5s unless this flag is given)")
	out := fs.String("out", "bench/out/latest.md", "where to write the report (relative to the module root)")
	only := fs.String("only", "", "side by side: run only the servers whose names match this regular expression (for example '^redirects serve( --redis.*)?$')")
	rounds := fs.Int("rounds", 3, "edge vs nginx on exact hits, one core each and all cores: rounds of measurement in each (median reported)")
	smoke := fs.Bool("smoke", false, "quick check that everything works: -rules 1000 -scale 1000 -duration 1s, no warm-up (other flags still apply)")
	if err := fs.Parse(args); err != nil {
		return config{}, err
	}
	if fs.NArg() > 0 {
		return config{}, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	c := config{rules: *rules, prefixShare: *share, seed: *seed, extraDepth: *depth, duration: *dur, scaleDuration: 5 * time.Second,
		warmup: true, benchtime: time.Second, rounds: *rounds, out: *out, smoke: *smoke, args: args}
	if set["duration"] {
		c.scaleDuration = *dur
	}
	if *only != "" {
		re, err := regexp.Compile(*only)
		if err != nil {
			return config{}, fmt.Errorf("-only: %v", err)
		}
		c.only = re
	}
	if *smoke {
		if !set["rules"] {
			c.rules = 1000
		}
		if !set["scale"] {
			*scale = "1000"
		}
		if !set["duration"] {
			c.duration, c.scaleDuration = time.Second, time.Second
		}
		c.warmup = false
		c.benchtime = 200 * time.Millisecond
		if !set["rounds"] {
			c.rounds = 1
		}
	}
	for _, f := range strings.Split(*scale, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 10 {
			return config{}, fmt.Errorf("-scale: %q is not a rule count of at least 10", f)
		}
		c.scale = append(c.scale, n)
	}
	if c.rules < 10 {
		return config{}, fmt.Errorf("-rules: %d is below 10", c.rules)
	}
	if c.prefixShare <= 0 || c.prefixShare >= 1 {
		return config{}, fmt.Errorf("-prefix-share: %v is not strictly between 0 and 1 (the runner needs exact and prefix rules)", c.prefixShare)
	}
	if c.rounds < 1 {
		return config{}, fmt.Errorf("-rounds: %d is below 1", c.rounds)
	}
	if c.duration < time.Second || c.scaleDuration < time.Second {
		return config{}, fmt.Errorf("-duration: at least 1s")
	}
	return c, nil
}

func (r *runner) logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "[%6.1fs] %s\n", time.Since(r.start).Seconds(), fmt.Sprintf(format, args...))
}

// cleanup stops every server still running and removes the temporary
// directory.
func (r *runner) cleanup() {
	r.procs.stopAll()
	if r.tmp != "" {
		os.RemoveAll(r.tmp)
	}
}

func (r *runner) main(ctx context.Context) error {
	var err error
	if r.root, err = moduleRoot(); err != nil {
		return err
	}
	if err := os.Chdir(r.root); err != nil {
		return err
	}
	for _, tool := range []string{"wrk", "nginx", "haproxy", "redis-server", "taskset", "go"} {
		if _, err := lookPath(tool); err != nil {
			return fmt.Errorf("%s is not installed (bench/run installs wrk, nginx-light, haproxy and redis-server with apt-get)", tool)
		}
	}
	if runtime.NumCPU() < 2 {
		return fmt.Errorf("needs 2 CPUs (server on CPU 0, wrk on CPU 1); this process may use %d", runtime.NumCPU())
	}
	if o, _, _, err := command(ctx, 10*time.Second, nil, "getconf", "CLK_TCK"); err == nil {
		if v, err := strconv.ParseFloat(strings.TrimSpace(o), 64); err == nil && v > 0 {
			r.clkTck = v
		}
	}
	testing.Init()
	if err := flag.CommandLine.Set("test.benchtime", r.cfg.benchtime.String()); err != nil {
		return err
	}
	if r.tmp, err = os.MkdirTemp("", "bench-run-"); err != nil {
		return err
	}
	rep := &report{cfg: r.cfg, machine: r.machine(ctx)}

	r.logf("building the redirects binary")
	r.bin = filepath.Join(r.tmp, "redirects")
	if _, _, took, err := command(ctx, 10*time.Minute, nil, "go", "build", "-o", r.bin, "./cmd/redirects"); err != nil {
		return err
	} else {
		rep.build = took
	}

	var shared *dataset
	largest := 0
	for _, n := range r.cfg.scale {
		largest = max(largest, n)
	}
	for i, n := range r.cfg.scale {
		isLargest := n == largest && !containsAfter(r.cfg.scale, i, largest)
		res, exp, err := r.scaleOne(ctx, n, isLargest)
		if err != nil {
			return fmt.Errorf("scale %d: %w", n, err)
		}
		rep.scale = append(rep.scale, res)
		if exp != nil {
			rep.export = exp
		}
		if n == r.cfg.rules && shared == nil {
			shared = res.d
		} else {
			res.d.remove()
		}
	}

	if shared == nil {
		r.logf("side by side: generating, importing and deploying %d rules", r.cfg.rules)
		if shared, err = r.prepare(ctx, "side-by-side", r.cfg.rules); err != nil {
			return err
		}
	}
	if rep.sbs, err = r.sideBySide(ctx, shared); err != nil {
		return err
	}
	if rep.pairs, err = r.edgeVsNginx(ctx, shared, rep.sbs.targets[0]); err != nil {
		return err
	}
	rep.machine.loadEnd = loadAvg()
	rep.elapsed = time.Since(r.start)

	md := rep.markdown()
	fmt.Print(md)
	if err := os.MkdirAll(filepath.Dir(r.cfg.out), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(r.cfg.out, []byte(md), 0o644); err != nil {
		return err
	}
	r.logf("report written to %s; elapsed %s", r.cfg.out, rep.elapsed.Round(time.Second))
	return nil
}

func containsAfter(s []int, i, v int) bool {
	for _, x := range s[i+1:] {
		if x == v {
			return true
		}
	}
	return false
}

// moduleRoot finds the directory of the redirects module's go.mod, from the
// working directory up.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if b, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil && strings.HasPrefix(string(b), "module redirects\n") {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("run bench/run inside the redirects module")
		}
		dir = parent
	}
}

// lookPath finds a tool on PATH or in the sbin directories, where Debian
// puts nginx and haproxy.
func lookPath(tool string) (string, error) {
	for _, d := range append(filepath.SplitList(os.Getenv("PATH")), "/usr/sbin", "/sbin", "/usr/local/sbin") {
		p := filepath.Join(d, tool)
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s not found", tool)
}

func init() {
	// nginx and haproxy live in /usr/sbin on Debian, often not on a
	// user's PATH.
	os.Setenv("PATH", os.Getenv("PATH")+":/usr/sbin:/sbin")
}
