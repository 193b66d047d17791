// Package destcheck requests the destinations of a project's rules, as
// redirects check does (docs/contract.md#destination-checks): HEAD, GET
// for a server that refuses HEAD, redirects followed up to a limit, at
// most a few requests at a time per host and overall, and the webhooks'
// address rule (webhook.PublicOnly) unless the process allows private
// targets.
package destcheck

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"syscall"
	"time"

	"redirects"
	"redirects/internal/version"
	"redirects/webhook"
)

// Checker implements redirects.DestinationChecker over HTTP. The zero
// value checks with the limits of redirects (CheckPerHost and CheckTotal
// for the whole process, CheckTimeout, CheckMaxHops) and refuses private
// targets.
type Checker struct {
	// AllowPrivate lets checks reach loopback, private and link-local
	// addresses (--check-allow-private).
	AllowPrivate bool
	// Timeout and MaxHops replace the defaults when not zero (for
	// tests).
	Timeout time.Duration
	MaxHops int
	// Limits bounds the requests in flight; nil is the process's one
	// Limits (Shared), so that checks that overlap (two projects, a
	// scheduled check beside one asked for) share CheckPerHost per host
	// and CheckTotal in all instead of each getting its own.
	Limits *Limits

	// control replaces webhook.PublicOnly as the dialer's Control when
	// set (tests: a loopback server stands for a public one).
	control func(network, address string, c syscall.RawConn) error

	once   sync.Once
	client *http.Client
}

var _ redirects.DestinationChecker = (*Checker)(nil)

// New returns a checker with the default limits.
func New(allowPrivate bool) *Checker { return &Checker{AllowPrivate: allowPrivate} }

func (c *Checker) init() {
	if c.Timeout <= 0 {
		c.Timeout = redirects.CheckTimeout
	}
	if c.Limits == nil {
		c.Limits = Shared
	}
	if c.MaxHops <= 0 {
		c.MaxHops = redirects.CheckMaxHops
	}
	d := &net.Dialer{Timeout: c.Timeout}
	switch {
	case c.control != nil:
		d.Control = c.control
	case !c.AllowPrivate:
		d.Control = webhook.PublicOnly
	}
	c.client = &http.Client{
		Transport: &http.Transport{
			Proxy:                 nil,
			DialContext:           d.DialContext,
			TLSHandshakeTimeout:   c.Timeout,
			ResponseHeaderTimeout: c.Timeout,
			MaxIdleConnsPerHost:   c.Limits.perHost,
			IdleConnTimeout:       30 * time.Second,
		},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// UserAgent is the User-Agent of a check for the project at projectURL
// ("" for none).
func UserAgent(projectURL string) string {
	ua := redirects.CheckUserAgent + "/" + version.Get().Version
	if projectURL != "" {
		ua += " (+" + projectURL + ")"
	}
	return ua
}

// Check implements redirects.DestinationChecker.
func (c *Checker) Check(ctx context.Context, targets []redirects.CheckTarget, projectURL string, progress func(*redirects.DestinationCheck)) ([]redirects.DestinationCheck, error) {
	c.once.Do(c.init)
	ua := UserAgent(projectURL)
	out := make([]redirects.DestinationCheck, len(targets))
	lim := c.Limits
	jobs := make(chan int)
	var wg sync.WaitGroup
	for range min(cap(lim.total), len(targets)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				out[i] = c.one(ctx, lim, targets[i], ua)
				if progress != nil && ctx.Err() == nil {
					progress(&out[i])
				}
			}
		}()
	}
feed:
	for _, i := range interleave(targets) {
		select {
		case jobs <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(jobs)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// interleave returns the targets' indexes taking one host after another,
// so that workers waiting for one busy host do not hold up the others.
func interleave(targets []redirects.CheckTarget) []int {
	var hosts []string
	byHost := map[string][]int{}
	for i, t := range targets {
		h := hostOf(t.URL)
		if _, ok := byHost[h]; !ok {
			hosts = append(hosts, h)
		}
		byHost[h] = append(byHost[h], i)
	}
	out := make([]int, 0, len(targets))
	for len(out) < len(targets) {
		for _, h := range hosts {
			if q := byHost[h]; len(q) > 0 {
				out = append(out, q[0])
				byHost[h] = q[1:]
			}
		}
	}
	return out
}

func hostOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	return strings.ToLower(u.Hostname())
}

// Limits bounds the requests in flight of every check that uses it:
// perHost per host name, and cap(total) in all.
type Limits struct {
	total   chan struct{}
	perHost int
	mu      sync.Mutex
	hosts   map[string]*hostSlots
}

// hostSlots are one host's slots and how many requests hold or wait for
// one (the host is forgotten when none does).
type hostSlots struct {
	slots chan struct{}
	users int
}

// NewLimits returns limits of perHost requests at a time per host and
// total in all (at least 1 each).
func NewLimits(perHost, total int) *Limits {
	return &Limits{total: make(chan struct{}, max(total, 1)), perHost: max(perHost, 1), hosts: map[string]*hostSlots{}}
}

// Shared is the process's limits of destination checks:
// redirects.CheckPerHost per host and redirects.CheckTotal in all,
// whichever checks run at once.
var Shared = NewLimits(redirects.CheckPerHost, redirects.CheckTotal)

// acquire waits for a slot of host and one of the total, and returns the
// function that gives both back.
func (l *Limits) acquire(ctx context.Context, host string) (func(), error) {
	l.mu.Lock()
	h, ok := l.hosts[host]
	if !ok {
		h = &hostSlots{slots: make(chan struct{}, l.perHost)}
		l.hosts[host] = h
	}
	h.users++
	l.mu.Unlock()
	leave := func() {
		l.mu.Lock()
		if h.users--; h.users == 0 {
			delete(l.hosts, host)
		}
		l.mu.Unlock()
	}
	select {
	case h.slots <- struct{}{}:
	case <-ctx.Done():
		leave()
		return nil, ctx.Err()
	}
	select {
	case l.total <- struct{}{}:
	case <-ctx.Done():
		<-h.slots
		leave()
		return nil, ctx.Err()
	}
	return func() { <-l.total; <-h.slots; leave() }, nil
}

// one checks one target: each hop requested, redirects followed.
func (c *Checker) one(ctx context.Context, lim *Limits, t redirects.CheckTarget, ua string) redirects.DestinationCheck {
	start := time.Now()
	d := redirects.DestinationCheck{Destination: t.Destination, URL: t.URL, CheckedAt: start.UTC()}
	cur, err := url.Parse(t.URL)
	if err != nil || (cur.Scheme != "http" && cur.Scheme != "https") || cur.Host == "" {
		d.Outcome, d.Error = redirects.CheckError, "not an http:// or https:// URL with a host"
		d.Duration = time.Since(start)
		return d
	}
	first := strings.ToLower(cur.Hostname())
	seen := map[string]bool{cur.String(): true}
	for hops := 0; ; hops++ {
		d.FinalURL, d.Hops = cur.String(), hops
		status, loc, err := c.request(ctx, lim, cur, ua)
		if err != nil {
			d.Outcome, d.Error = c.failure(ctx, err)
			break
		}
		d.Status = status
		if isRedirect(status) && loc != "" {
			next, err := cur.Parse(loc)
			if err != nil || (next.Scheme != "http" && next.Scheme != "https") || next.Host == "" {
				d.Outcome, d.Error = redirects.CheckError, fmt.Sprintf("a redirect to %q, not an http:// or https:// URL", loc)
				break
			}
			next.Fragment = ""
			if seen[next.String()] {
				d.Outcome, d.Error = redirects.CheckLoop, "a redirect loop back to "+next.String()
				d.FinalURL, d.Hops = next.String(), hops+1
				break
			}
			if hops == c.MaxHops {
				d.Outcome, d.Error = redirects.CheckLoop, fmt.Sprintf("more than %d redirects", c.MaxHops)
				break
			}
			seen[next.String()] = true
			cur = next
			continue
		}
		switch {
		case status >= 400:
			d.Outcome = redirects.CheckBroken
		case strings.ToLower(cur.Hostname()) != first:
			d.Outcome = redirects.CheckOffsite
		default:
			d.Outcome = redirects.CheckOK
		}
		break
	}
	d.Duration = time.Since(start)
	return d
}

func isRedirect(status int) bool {
	switch status {
	case http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther, http.StatusTemporaryRedirect, http.StatusPermanentRedirect:
		return true
	}
	return false
}

// request makes one hop's request within the limits: HEAD, then GET when
// the server answers HEAD with 405 or 501. A body is read up to
// redirects.CheckMaxBody, so the connection may be reused, and no further.
func (c *Checker) request(ctx context.Context, lim *Limits, u *url.URL, ua string) (status int, location string, err error) {
	release, err := lim.acquire(ctx, strings.ToLower(u.Hostname()))
	if err != nil {
		return 0, "", err
	}
	defer release()
	rctx, cancel := context.WithTimeout(ctx, c.Timeout)
	defer cancel()
	for _, method := range []string{http.MethodHead, http.MethodGet} {
		req, err := http.NewRequestWithContext(rctx, method, u.String(), nil)
		if err != nil {
			return 0, "", err
		}
		req.Header.Set("User-Agent", ua)
		resp, err := c.client.Do(req)
		if err != nil {
			return 0, "", err
		}
		_, err = io.Copy(io.Discard, io.LimitReader(resp.Body, redirects.CheckMaxBody))
		resp.Body.Close()
		if err != nil && method == http.MethodGet && rctx.Err() != nil {
			return 0, "", err
		}
		if method == http.MethodHead && (resp.StatusCode == http.StatusMethodNotAllowed || resp.StatusCode == http.StatusNotImplemented) {
			continue
		}
		return resp.StatusCode, resp.Header.Get("Location"), nil
	}
	panic("unreachable")
}

// failure classifies a request's error.
func (c *Checker) failure(ctx context.Context, err error) (redirects.CheckOutcome, string) {
	var ne net.Error
	switch {
	case errors.Is(err, webhook.ErrPrivateAddress):
		msg := err.Error()
		if i := strings.Index(msg, webhook.ErrPrivateAddress.Error()+": "); i >= 0 {
			msg = msg[i+len(webhook.ErrPrivateAddress.Error())+2:]
		}
		return redirects.CheckRefused, "refused: not a public address: " + msg + " (--check-allow-private allows it)"
	case ctx.Err() == nil && (errors.Is(err, context.DeadlineExceeded) || errors.As(err, &ne) && ne.Timeout()):
		return redirects.CheckTimedOut, fmt.Sprintf("no answer within %s", c.Timeout)
	}
	return redirects.CheckError, err.Error()
}
