package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"redirects"
	"redirects/internal/version"
	"redirects/syncagent"
)

// syncCommands is "sync": the agent that keeps a server's redirect file
// current. It opens no database.
var syncCommands = []command{
	{
		name: "sync",
		synopsis: []string{
			"--edge URL --key KEY --project P --format F --out FILE [--check CMD] [--reload CMD] [--once] [--haproxy-socket SOCKET [--haproxy-map NAME]] [--metrics-addr HOST:PORT] [--log-format text|json] [--max-bytes N] [--allow-insecure-edge]",
			"--config FILE [--once] [--metrics-addr HOST:PORT] [--log-format text|json] [--max-bytes N] [--allow-insecure-edge]",
		},
		summary: "keep a server's redirect file current: fetch each deploy, write, check, reload",
		about: `The agent follows the live deployment of a project through the edge API's change feed (a
long-poll of /v1/export: a new deploy arrives within a second, an idle agent makes one request a
minute) and needs only the edge's address and the project's API key, no database. Each new file is
written beside --out and renamed over it, then --check runs (nginx -t, haproxy -c -f ...); when the
check fails the previous file is put back, nothing is reloaded, and the agent says so in its log, its
metrics and (with --once) its exit status. Then --reload runs. Commands run with sh -c.

With --haproxy-socket the target is an HAProxy map (haproxy-map-exact or haproxy-map-prefix) swapped
through the Runtime API (prepare map, add map @VER, commit map): atomic, no reload. --haproxy-map
names the map as HAProxy's configuration does (default: --out, which is written too, for restarts).

--once makes one pass (cron, CI, a first run): it prints a line per current target (the version and
the file) and exits 0 when every target is current; else, by the first step that failed, 3 (fetch
or write: the file in place stays), 4 (check: the previous file is put back) or 5 (reload: the
checked file is in place, as on a first run before the server is started). Without it the agent runs
until stopped (SIGTERM, SIGINT: logged as a stop), retrying failures with back-off (1 s doubling to
60 s). --config FILE reads several
targets (docs/delivery.md). --metrics-addr serves Prometheus metrics at /metrics.

An export larger than --max-bytes (default 1 GiB, decompressed size) is refused and the file in place
stays. A plain http:// edge that is not on this machine (loopback) is refused at start unless
--allow-insecure-edge is given: the agent writes what the edge sends into the server's configuration.
A check or reload runs in its own process group, killed whole after 5 minutes.`,
		example: "redirects sync --edge https://edge.example.com --key \"$KEY\" --project \"$PROJECT\" --format nginx --out /etc/nginx/redirects/www.conf --check 'nginx -t -q' --reload 'nginx -s reload'\nredirects sync --config /etc/redirects/sync.conf --metrics-addr 127.0.0.1:9465",
		run:     (*cmd).sync,
	},
}

// sync runs the sync agent (syncagent), from flags or a config file.
func (c *cmd) sync(ctx context.Context, args []string) error {
	fs := c.newFlagSet("sync")
	var t syncagent.Target
	fs.StringVar(&t.Edge, "edge", "", "base `URL` of the edge API")
	fs.StringVar(&t.Key, "key", "", "the project's API `KEY`")
	fs.StringVar(&t.Project, "project", "", "project ID")
	fs.StringVar(&t.Format, "format", "", "export `FORMAT`")
	fs.StringVar(&t.Out, "out", "", "the `FILE` the server reads")
	fs.StringVar(&t.Check, "check", "", "`CMD` that checks the server's configuration with the new file")
	fs.StringVar(&t.Reload, "reload", "", "`CMD` that reloads the server after a passed check")
	fs.StringVar(&t.HAProxySocket, "haproxy-socket", "", "HAProxy Runtime API `SOCKET` (a path, or HOST:PORT): swap the map without a reload")
	fs.StringVar(&t.HAProxyMap, "haproxy-map", "", "the map's `NAME` in HAProxy's configuration (default: --out)")
	once := fs.Bool("once", false, "one pass, then exit: 0 when every target is current")
	config := fs.String("config", "", "read the targets from `FILE` instead of the flags")
	metricsAddr := fs.String("metrics-addr", "", "serve Prometheus metrics at http://`HOST:PORT`/metrics")
	logFormat := fs.String("log-format", "text", "log lines as text or json")
	maxBytes := fs.Int64("max-bytes", syncagent.DefaultMaxBytes, "refuse an export larger than `N` bytes, decompressed")
	allowInsecure := fs.Bool("allow-insecure-edge", false, "accept a plain http:// edge on another machine")
	if _, err := parse(fs, args); err != nil {
		return err
	}
	if err := checkLogFormat(*logFormat); err != nil {
		return err
	}
	var targets []syncagent.Target
	if *config != "" {
		for _, name := range []string{"edge", "key", "project", "format", "out", "check", "reload", "haproxy-socket", "haproxy-map"} {
			if fs.Lookup(name).Value.String() != "" {
				return usagef("sync: --%s and --config: the config file holds the targets", name)
			}
		}
		f, err := os.Open(*config)
		if err != nil {
			return redirects.Errorf(redirects.EINVALID, "config: %v", err)
		}
		cfg, err := syncagent.ReadConfig(f, filepath.Dir(*config))
		f.Close()
		if err != nil {
			return redirects.Errorf(redirects.EINVALID, "%s: %v", *config, err)
		}
		targets = cfg.Targets
		if *metricsAddr == "" {
			*metricsAddr = cfg.MetricsAddr
		}
	} else {
		if err := required(fs, "edge", "key", "project", "format", "out"); err != nil {
			return err
		}
		t.Name = t.Out
		if err := t.Validate(); err != nil {
			return redirects.Errorf(redirects.EINVALID, "%v", err)
		}
		targets = []syncagent.Target{t}
	}
	if *maxBytes <= 0 {
		return redirects.Errorf(redirects.EINVALID, "sync: --max-bytes %d: want a positive number of bytes", *maxBytes)
	}
	for i := range targets {
		if err := targets[i].CheckEdgeTransport(*allowInsecure); err != nil {
			return redirects.Errorf(redirects.EINVALID, "%v", err)
		}
	}
	// --once says what it did in its own lines, one per target: the log
	// lines would say it twice.
	level := slog.LevelInfo
	if *once {
		level = slog.LevelError + 4
	}
	logger, _ := newLogger(c.m.Stderr, level, *logFormat)
	agent := &syncagent.Agent{Targets: targets, Logger: logger, Metrics: syncagent.NewMetrics(),
		UserAgent: "redirects-sync/" + version.Get().Version, MaxBytes: *maxBytes}
	if *metricsAddr != "" {
		ln, err := net.Listen("tcp", *metricsAddr)
		if err != nil {
			return redirects.Errorf(redirects.EINVALID, "metrics listener: %v", err)
		}
		mux := http.NewServeMux()
		mux.Handle("GET /metrics", agent.Metrics.Handler())
		srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
		go srv.Serve(ln)
		defer srv.Close()
		logger.Info("metrics listener", "addr", ln.Addr().String())
		if c.m.Ready != nil {
			c.m.Ready("", ln.Addr().String())
		}
	}
	if *once {
		return c.syncOnce(ctx, agent, len(targets))
	}
	logger.Info("following the live deployment", "targets", len(targets))
	agent.Run(ctx)
	// A stop signal (SIGTERM, SIGINT) is how the agent ends: not an error.
	logger.Info("stopped", "reason", context.Cause(ctx).Error())
	return nil
}

// The exit statuses of sync --once when a target is not current, by the
// first step that failed (docs/delivery.md#the-first-run): a fetch (or the
// write of the file) leaves the file in place as it was; a check puts the
// previous file back; a reload (or an HAProxy swap) leaves the new file in
// place, checked, and the server answering what it had loaded, as at a
// first run before the server is started.
const (
	syncExitFetch  = 3
	syncExitCheck  = 4
	syncExitReload = 5
)

// syncExit returns the exit status of a failed stage.
func syncExit(s syncagent.Stage) int {
	switch s {
	case syncagent.StageCheck:
		return syncExitCheck
	case syncagent.StageReload, syncagent.StageHAProxy:
		return syncExitReload
	}
	return syncExitFetch
}

// syncOnce makes one pass: a line on stdout for each target left current
// (the version and the file), a line on stderr for each one that is not,
// and the exit status of the earliest step that failed.
func (c *cmd) syncOnce(ctx context.Context, agent *syncagent.Agent, targets int) error {
	done, err := agent.Once(ctx)
	for _, d := range done {
		what := "applied to"
		if !d.Applied {
			what = "already in"
		}
		line := fmt.Sprintf("version %d %s %s", d.Version, what, d.Out)
		if d.Version == 0 {
			line = fmt.Sprintf("the live export %s %s", what, d.Out)
		}
		if d.Target != d.Out {
			line = d.Target + ": " + line
		}
		c.println(line)
	}
	if err == nil {
		return nil
	}
	code := 0
	failed := unjoin(err)
	for _, one := range failed {
		var e *syncagent.Error
		if !errors.As(one, &e) {
			code = syncExitFetch
			fmt.Fprintf(c.m.Stderr, "redirects: sync: %v\n", one)
			continue
		}
		fmt.Fprintf(c.m.Stderr, "redirects: sync: %v\n", e)
		if x := syncExit(e.Stage); code == 0 || x < code {
			code = x
		}
	}
	hint := ""
	if code == syncExitReload {
		hint = " (a reload failed: the checked file is in place; start or reload the server)"
	}
	fmt.Fprintf(c.m.Stderr, "redirects: sync: %d of %d targets are not current%s\n", len(failed), targets, hint)
	return &exitStatus{code: code}
}

// unjoin returns the errors errors.Join joined, or err alone.
func unjoin(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}
