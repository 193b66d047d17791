package syncagent

import (
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"redirects"
	"redirects/export"
)

// Agent keeps its targets current. Once makes one pass over them (for cron
// and CI); Run follows the change feed until its context ends.
type Agent struct {
	Targets []Target
	Logger  *slog.Logger
	Metrics *Metrics
	// Client makes the requests to the edge; nil for one with timeouts
	// that fit Wait.
	Client *http.Client
	// Wait is the long-poll's wait: 60 s (the most the edge holds) unless
	// set.
	Wait time.Duration
	// MinBackoff and MaxBackoff bound the pause after a failure, doubled
	// at each failure in a row: 1 s and 60 s unless set.
	MinBackoff, MaxBackoff time.Duration
	// UserAgent names the agent's program on its requests.
	UserAgent string
	// Host names the machine in the Redirects-Agent header of its
	// requests ("HOST TARGET", TARGET the target's name or file), which the
	// edge shows each report under: the host name unless set.
	Host string
	// MaxBytes bounds the export the agent reads, as decompressed
	// (--max-bytes): a larger one is refused and the file in place stays.
	// DefaultMaxBytes unless set.
	MaxBytes int64

	// applyMu makes targets that feed one server (the same check command,
	// or without one the same reload command) write, check and reload one
	// at a time: a check must not see another target's file before that
	// one has passed its own check.
	applyMu  sync.Mutex
	serverMu map[string]*sync.Mutex
}

// serverLock returns the lock of the server a target feeds.
func (a *Agent) serverLock(t *Target) *sync.Mutex {
	key := "check:" + t.Check
	if t.Check == "" {
		key = "reload:" + t.Reload
	}
	a.applyMu.Lock()
	defer a.applyMu.Unlock()
	if a.serverMu == nil {
		a.serverMu = map[string]*sync.Mutex{}
	}
	mu := a.serverMu[key]
	if mu == nil {
		mu = new(sync.Mutex)
		a.serverMu[key] = mu
	}
	return mu
}

// Stage names where a round failed, as the failures metric labels it.
type Stage string

const (
	StageFetch   Stage = "fetch"
	StageWrite   Stage = "write"
	StageCheck   Stage = "check"
	StageReload  Stage = "reload"
	StageHAProxy Stage = "haproxy"
)

// Error is a failed round of one target.
type Error struct {
	Target string
	Stage  Stage
	Err    error
	// RetryAfter is the pause the edge asked for (a 429), or 0.
	RetryAfter time.Duration
}

func (e *Error) Error() string {
	return fmt.Sprintf("target %s: %s: %v", e.Target, e.Stage, e.Err)
}

func (e *Error) Unwrap() error { return e.Err }

// state is what the agent knows of one target.
type state struct {
	t *Target
	// applied is the identity ETag of the file in place, "" for none;
	// version its deployment version, 0 while unknown.
	applied string
	version int
	// poll is the ETag the agent sends: applied, or the tag of a version
	// whose check failed, so that the feed waits for the next deployment
	// rather than sending the refused one again.
	poll string
	// pendingReload is set when a reload failed: it is run again before
	// anything else. pendingSwap holds a map not yet swapped into HAProxy.
	pendingReload bool
	pendingSwap   []byte
	// reported is the version the last request told the edge of
	// (Redirects-Applied-Version), 0 for none.
	reported int
}

func (a *Agent) defaults() {
	if a.Logger == nil {
		a.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if a.Metrics == nil {
		a.Metrics = NewMetrics()
	}
	if a.Wait <= 0 {
		a.Wait = 60 * time.Second
	}
	if a.MinBackoff <= 0 {
		a.MinBackoff = time.Second
	}
	if a.MaxBackoff <= 0 {
		a.MaxBackoff = time.Minute
	}
	if a.Client == nil {
		a.Client = &http.Client{
			Timeout: a.Wait + 30*time.Second,
			// An edge that redirects is misconfigured: say so rather than
			// send the key elsewhere.
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		}
	}
	if a.UserAgent == "" {
		a.UserAgent = "redirects-sync"
	}
	if a.MaxBytes <= 0 {
		a.MaxBytes = DefaultMaxBytes
	}
	if a.Host == "" {
		a.Host, _ = os.Hostname()
	}
}

// newState reads what the target's file holds now: the agent then asks the
// edge only for a file that differs from it. A Runtime API target swaps
// that file in once, in case an earlier run wrote it but stopped before the
// swap.
func (a *Agent) newState(t *Target) *state {
	st := &state{t: t}
	if body, err := os.ReadFile(t.Out); err == nil {
		st.applied = export.ETag(body)
		st.poll = st.applied
		if t.HAProxySocket != "" {
			st.pendingSwap = body
		}
	}
	a.Metrics.target(t.label())
	return st
}

// Current is a target that a pass left current: the version in place (0
// when the edge did not say, as before a first deploy), whether this pass
// applied it, and the file that holds it.
type Current struct {
	Target  string
	Version int
	Applied bool
	Out     string
}

// Once makes one pass over every target: fetch the live file, and apply it
// when it differs from the one in place. It returns the targets left
// current, and the failures of the others, joined (each an *Error); nil
// when every target is current.
func (a *Agent) Once(ctx context.Context) ([]Current, error) {
	a.defaults()
	var errs []error
	var done []Current
	for i := range a.Targets {
		st := a.newState(&a.Targets[i])
		before := st.applied
		if err := a.round(ctx, st, 0); err != nil {
			errs = append(errs, err)
		} else {
			done = append(done, Current{Target: st.t.label(), Version: st.version, Applied: st.applied != before, Out: st.t.Out})
		}
		a.report(ctx, st)
	}
	return done, errors.Join(errs...)
}

// report tells the edge which version the target has applied when the
// pass's request could not: a run of --once starts without knowing the
// version of the file in place, and learns it (or applies a new one) from
// the answer. It sends one more conditional request, which the edge
// answers 304 without a body unless a deployment came meanwhile; its
// answer changes nothing here. The long-running mode needs none: its next
// long-poll carries the version.
func (a *Agent) report(ctx context.Context, st *state) {
	if st.version == 0 || st.version == st.reported || st.applied == "" {
		return
	}
	if _, err := a.fetch(ctx, st, 0); err != nil {
		a.Logger.Info("could not report the applied version to the edge", "target", st.t.label(), "version", st.version, "err", err)
	}
}

// Run follows every target's change feed until ctx ends, pausing after a
// failure (doubling from MinBackoff to MaxBackoff, with jitter, or what
// a 429 asked for). It returns when ctx ends.
func (a *Agent) Run(ctx context.Context) {
	a.defaults()
	done := make(chan struct{}, len(a.Targets))
	for i := range a.Targets {
		st := a.newState(&a.Targets[i])
		go func() {
			defer func() { done <- struct{}{} }()
			a.follow(ctx, st)
		}()
	}
	for range a.Targets {
		<-done
	}
}

func (a *Agent) follow(ctx context.Context, st *state) {
	backoff := time.Duration(0)
	// The first request does not wait: the agent learns at once which
	// version its file is (the 304's Redirects-Version).
	wait := time.Duration(0)
	for ctx.Err() == nil {
		err := a.round(ctx, st, wait)
		if err == nil {
			backoff, wait = 0, a.Wait
			continue
		}
		if ctx.Err() != nil {
			return
		}
		backoff = min(max(2*backoff, a.MinBackoff), a.MaxBackoff)
		pause := backoff/2 + rand.N(backoff/2+1)
		var e *Error
		if errors.As(err, &e) && e.RetryAfter > pause {
			pause = e.RetryAfter
		}
		a.Logger.Info("retrying", "target", st.t.label(), "in", pause.Round(time.Millisecond))
		select {
		case <-ctx.Done():
			return
		case <-time.After(pause):
		}
	}
}

// round brings one target up to date once: a pending reload or swap first,
// then one request of the feed (waiting up to wait), then the new file, if
// any, applied.
func (a *Agent) round(ctx context.Context, st *state, wait time.Duration) error {
	t := st.t
	fail := func(stage Stage, err error) error {
		e := &Error{Target: t.label(), Stage: stage, Err: err}
		if ctx.Err() != nil {
			// The agent is stopping: a request or command it cut short
			// is not a failure of the target; the caller logs the stop.
			return e
		}
		a.Metrics.failure(t.label(), stage)
		a.Logger.Error("sync failed", "target", t.label(), "stage", string(stage), "err", err)
		return e
	}
	if st.pendingReload || st.pendingSwap != nil {
		if stage, err := a.finish(ctx, st); err != nil {
			return fail(stage, err)
		}
	}
	f, err := a.fetch(ctx, st, wait)
	if err != nil {
		e := fail(StageFetch, err)
		if f != nil {
			e.(*Error).RetryAfter = f.retryAfter
		}
		return e
	}
	a.Metrics.live(t.label(), f.version)
	if f.notModified {
		if st.poll == st.applied && f.version > 0 {
			st.version = f.version
			a.Metrics.applied(t.label(), st.version, time.Now())
		}
		return nil
	}
	return a.apply(ctx, st, f, fail)
}

// finish runs a reload or a swap that failed before, under the server's
// lock. It returns the stage that failed, and why.
func (a *Agent) finish(ctx context.Context, st *state) (Stage, error) {
	t := st.t
	mu := a.serverLock(t)
	mu.Lock()
	defer mu.Unlock()
	if st.pendingReload {
		if err := runCommand(ctx, t.Reload); err != nil {
			return StageReload, err
		}
		st.pendingReload = false
		a.Logger.Info("reloaded", "target", t.label(), "version", st.version)
	}
	if st.pendingSwap != nil {
		if err := swapMap(ctx, t.HAProxySocket, t.mapName(), st.pendingSwap); err != nil {
			return StageHAProxy, err
		}
		st.pendingSwap = nil
	}
	return "", nil
}

// fetched is one answer of the feed.
type fetched struct {
	notModified bool
	body        []byte
	etag        string // identity ETag
	version     int
	retryAfter  time.Duration
}

// fetch asks the edge for the target's file unless it is the one the agent
// holds, waiting up to wait for a new deployment.
func (a *Agent) fetch(ctx context.Context, st *state, wait time.Duration) (*fetched, error) {
	t := st.t
	q := url.Values{"project": {t.Project}, "format": {t.Format}, "wait": {strconv.Itoa(int(wait / time.Second))}}
	u := strings.TrimSuffix(t.Edge, "/") + "/v1/export?" + q.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("X-API-Key", t.Key)
	req.Header.Set("Accept-Encoding", "gzip")
	req.Header.Set("User-Agent", a.UserAgent)
	if st.poll != "" {
		req.Header.Set("If-None-Match", st.poll+", "+redirects.EncodingETag(st.poll, "gzip"))
	}
	st.reported = st.version
	if st.version > 0 {
		req.Header.Set(AppliedVersionHeader, strconv.Itoa(st.version))
		req.Header.Set(redirects.AgentHeader, strings.TrimSpace(a.Host+" "+t.label()))
	}
	resp, err := a.Client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	f := &fetched{}
	f.version, _ = strconv.Atoi(resp.Header.Get("Redirects-Version"))
	switch resp.StatusCode {
	case http.StatusNotModified:
		f.notModified = true
		return f, nil
	case http.StatusOK:
	default:
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		var e struct{ Error, Code string }
		msg := strings.TrimSpace(string(body))
		if json.Unmarshal(body, &e) == nil && e.Code != "" {
			msg = e.Code + ": " + e.Error
		}
		if s, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil && s > 0 {
			f.retryAfter = time.Duration(s) * time.Second
		}
		return f, fmt.Errorf("the edge answered %d (%s)", resp.StatusCode, msg)
	}
	if resp.ContentLength > a.MaxBytes {
		return nil, a.tooLarge(fmt.Sprintf("%d bytes", resp.ContentLength))
	}
	var r io.Reader = resp.Body
	switch resp.Header.Get("Content-Encoding") {
	case "", "identity":
	case "gzip":
		gz, err := gzip.NewReader(resp.Body)
		if err != nil {
			return nil, fmt.Errorf("reading the export: %w", err)
		}
		r = gz
	default:
		return nil, fmt.Errorf("the edge sent the content coding %q, which was not asked for", resp.Header.Get("Content-Encoding"))
	}
	// The bound applies after decompression: a small gzip body may
	// unpack to gigabytes, and the agent holds the whole file.
	if f.body, err = io.ReadAll(io.LimitReader(r, a.MaxBytes+1)); err != nil {
		return nil, fmt.Errorf("reading the export: %w", err)
	}
	if int64(len(f.body)) > a.MaxBytes {
		f.body = nil
		return nil, a.tooLarge("more than that")
	}
	f.etag = export.ETag(f.body)
	if tag := resp.Header.Get("ETag"); tag != f.etag && tag != redirects.EncodingETag(f.etag, "gzip") {
		return nil, fmt.Errorf("the export's ETag %s does not match its body (%s): refusing a damaged file", tag, f.etag)
	}
	return f, nil
}

// DefaultMaxBytes is the largest export the agent reads unless told
// otherwise: 1 GiB, several times a 1,000,000-rule export.
const DefaultMaxBytes int64 = 1 << 30

// tooLarge is the error for an export past MaxBytes; size says how large
// it was, as far as the agent knows.
func (a *Agent) tooLarge(size string) error {
	return fmt.Errorf("the export is larger than --max-bytes %d bytes (%s, decompressed): refusing it; the file in place stays", a.MaxBytes, size)
}

// apply puts a new file in place: written beside the old one and renamed
// over it, checked (the old file put back when the check fails), then
// reloaded or swapped into HAProxy.
func (a *Agent) apply(ctx context.Context, st *state, f *fetched, fail func(Stage, error) error) error {
	t := st.t
	mu := a.serverLock(t)
	mu.Lock()
	defer mu.Unlock()
	start := time.Now()
	restore, keep, err := replaceFile(t.Out, f.body)
	if err != nil {
		return fail(StageWrite, err)
	}
	written := time.Now()
	if t.Check != "" {
		if err := runCommand(ctx, t.Check); err != nil {
			rerr := restore()
			st.poll = f.etag
			a.Metrics.checkFailing(t.label(), true)
			kept := "the previous file"
			if st.version > 0 {
				kept = "version " + strconv.Itoa(st.version)
			}
			err = fmt.Errorf("version %d failed the check; %s stays in place, not reloaded: %w", f.version, kept, err)
			if rerr != nil {
				err = errors.Join(err, fmt.Errorf("putting the previous file back: %w", rerr))
			}
			return fail(StageCheck, err)
		}
	}
	keep()
	checked := time.Now()
	a.Metrics.checkFailing(t.label(), false)
	st.applied, st.poll, st.version = f.etag, f.etag, f.version
	if t.HAProxySocket != "" {
		if err := swapMap(ctx, t.HAProxySocket, t.mapName(), f.body); err != nil {
			st.pendingSwap = f.body
			return fail(StageHAProxy, err)
		}
	} else if t.Reload != "" {
		if err := runCommand(ctx, t.Reload); err != nil {
			st.pendingReload = true
			return fail(StageReload, err)
		}
	}
	a.Metrics.applied(t.label(), st.version, time.Now())
	a.Metrics.apply(t.label())
	// The steps' times say where a slow change spends its time.
	a.Logger.Info("applied", "target", t.label(), "version", f.version, "bytes", len(f.body),
		"write", written.Sub(start).Round(time.Millisecond), "check", checked.Sub(written).Round(time.Millisecond),
		"reload", time.Since(checked).Round(time.Millisecond))
	return nil
}

// AppliedVersionHeader is the header in which the agent tells the edge the
// version it has applied (docs/delivery.md#which-servers-have-which-version).
const AppliedVersionHeader = redirects.AppliedVersionHeader
