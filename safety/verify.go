package safety

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"redirects"
	"redirects/engine/pattern"
)

// VerifyOptions says how Verify asks the server.
type VerifyOptions struct {
	// Concurrency is the number of requests in flight; 0 means 8.
	Concurrency int
	// Timeout bounds each request; 0 means 10 seconds.
	Timeout time.Duration
	// Transport sends the requests; nil means a transport of Verify's own.
	// It must not follow redirects (an http.RoundTripper does not).
	Transport http.RoundTripper
	// Settings are the matching settings of the rules (the version's): the
	// API's answers are computed with them, and the paths requested include
	// each exact source's other spellings under them (VerifyPathsFor).
	Settings redirects.Settings
	// Host, when set, is the host the requests are for: sent as each
	// request's Host header, and the API's answers are the lookup's for it
	// (docs/contract.md#hosts). Empty: the base URL's host is sent and the
	// answers are a lookup's without a host.
	Host string
}

// Mismatch is a path the server answers otherwise than the API.
type Mismatch struct {
	Path string `json:"path"`
	// Want is the API's answer; GotStatus and GotLocation the server's.
	Want        Answer `json:"want"`
	GotStatus   int    `json:"gotStatus"`
	GotLocation string `json:"gotLocation,omitempty"`
	// Problem is one of "status" (also a 410 the server does not answer),
	// "location", "missing redirect" (the server does not redirect where
	// the API does) and "unexpected redirect".
	Problem string `json:"problem"`
}

// String reads "/old: status 302, want 301 /new".
func (m Mismatch) String() string {
	got := fmt.Sprintf("%d", m.GotStatus)
	if m.GotLocation != "" {
		got += " " + m.GotLocation
	}
	return fmt.Sprintf("%s: %s: the server answers %s, the API %s", m.Path, m.Problem, got, m.Want)
}

// VerifyPaths returns the paths Verify requests for rules under the default
// settings: VerifyPathsFor(rules, redirects.Settings{}).
func VerifyPaths(rules []redirects.Rule) []string {
	return VerifyPathsFor(rules, redirects.Settings{})
}

// VerifyPathsFor returns the paths Verify requests for rules under settings
// s: every exact source and SamplePath of every starts_with source, each
// also with the query "?q=1" for a preserveQuery rule (and with
// mergeProbe's for a mergeQuery rule), and each exact
// source's other spellings under s (its other trailing-slash form, its
// letters' case swapped); each once, in byte order.
func VerifyPathsFor(rules []redirects.Rule, s redirects.Settings) []string {
	paths := make([]string, 0, len(rules))
	for i := range rules {
		r := &rules[i]
		var ps []string
		if r.Extended() {
			// A sample request the rule's source matches, its query
			// included (docs/contract.md#pattern-rules).
			info, err := pattern.Inspect(r.PatternRule(), s.PatternSettings())
			if err != nil || info.SamplePath == "" {
				continue
			}
			p := info.SamplePath
			if r.MatchType == redirects.StartsWith {
				p = SamplePath(p)
			}
			if info.SampleQuery != "" {
				p += "?" + info.SampleQuery
			}
			paths = append(paths, p)
			continue
		}
		if r.MatchType == redirects.StartsWith {
			ps = []string{SamplePath(r.Source)}
		} else {
			ps = spellings(s, r.Source)
		}
		for _, p := range ps {
			paths = append(paths, p)
			if r.PreserveQuery {
				paths = append(paths, p+probeQuery)
			}
			if r.MergeQuery {
				paths = append(paths, p+mergeProbe(r.Destination))
			}
		}
	}
	slices.Sort(paths)
	return slices.Compact(paths)
}

// isRedirect reports whether status is an HTTP redirect.
func isRedirect(status int) bool {
	switch status {
	case 301, 302, 303, 307, 308:
		return true
	}
	return false
}

// Verify requests VerifyPaths(rules) from the web server at baseURL
// (http://host:port) without following redirects, and returns every path
// whose answer differs from the lookup API's for rules under opts.Settings
// (the computed destination; a 410 for a gone rule), in path order.
// A Location that is absolute on the base URL's own host counts as the
// relative path it names (nginx writes such a Location unless
// absolute_redirect is off). It fails on a bad base URL, on a request that
// gets no answer, or when ctx ends.
func Verify(ctx context.Context, baseURL string, rules []redirects.Rule, opts VerifyOptions) ([]Mismatch, error) {
	base, err := url.Parse(baseURL)
	if err != nil || (base.Scheme != "http" && base.Scheme != "https") || base.Host == "" || strings.Trim(base.Path, "/") != "" || base.RawQuery != "" {
		return nil, redirects.Errorf(redirects.EINVALID, "base URL %q must be http:// or https:// and a host, with no path or query", baseURL)
	}
	if opts.Concurrency <= 0 {
		opts.Concurrency = 8
	}
	if opts.Timeout <= 0 {
		opts.Timeout = 10 * time.Second
	}
	rt := opts.Transport
	if rt == nil {
		// A bare transport, not an http.Client: a client parses the
		// Location, and would refuse some that validation allows.
		t := &http.Transport{MaxIdleConnsPerHost: opts.Concurrency, DisableCompression: true, ResponseHeaderTimeout: opts.Timeout}
		defer t.CloseIdleConnections()
		rt = t
	}
	x := newIndex(rules, opts.Settings)
	paths := VerifyPathsFor(rules, opts.Settings)
	mismatches := make([]*Mismatch, len(paths))

	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var wg sync.WaitGroup
	next := make(chan int)
	for range opts.Concurrency {
		wg.Go(func() {
			for i := range next {
				status, loc, err := ask(ctx, rt, base, opts.Host, paths[i], opts.Timeout)
				if err != nil {
					cancel(fmt.Errorf("GET %s%s: %w", strings.TrimSuffix(baseURL, "/"), paths[i], err))
					continue
				}
				mismatches[i] = compareAnswer(base, paths[i], x.answer(opts.Host, requestOf(paths[i])), status, loc)
			}
		})
	}
feed:
	for i := range paths {
		select {
		case next <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	if err := context.Cause(ctx); err != nil {
		return nil, redirects.Errorf(redirects.EINVALID, "verify: %v", err)
	}
	var out []Mismatch
	for _, m := range mismatches {
		if m != nil {
			out = append(out, *m)
		}
	}
	return out, nil
}

// requestOf returns a path Verify requests as browsers send it: the decoded
// path before its first '?' as redirects.RequestPath writes it, the query
// after it as it is.
func requestOf(path string) string {
	p, q, hasQ := strings.Cut(path, "?")
	if !hasQ {
		return wireOf(p)
	}
	return wireOf(p) + "?" + q
}

// ask sends GET path, percent-encoded as browsers send it (requestOf), as
// the raw request target, with host (when set) as its Host header, and
// returns the status and Location.
func ask(ctx context.Context, rt http.RoundTripper, base *url.URL, host, path string, timeout time.Duration) (int, string, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, "GET", base.Scheme+"://"+base.Host+"/", nil)
	if err != nil {
		return 0, "", err
	}
	// The path as browsers send it: a raw non-ASCII byte is not allowed on
	// a request line (HAProxy answers 400), and the haproxy export's ACLs
	// compare the path as sent.
	req.URL.Opaque = requestOf(path)
	if host != "" {
		req.Host = host
	}
	resp, err := rt.RoundTrip(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	return resp.StatusCode, resp.Header.Get("Location"), nil
}

// compareAnswer returns the mismatch between the API's answer want and the
// server's, or nil.
func compareAnswer(base *url.URL, path string, want Answer, status int, loc string) *Mismatch {
	m := &Mismatch{Path: path, Want: want, GotStatus: status, GotLocation: loc}
	switch {
	case want.StatusCode == redirects.StatusGone:
		if status == redirects.StatusGone {
			return nil
		}
		m.Problem = "status"
	case want.StatusCode == 0 && isRedirect(status):
		m.Problem = "unexpected redirect"
	case want.StatusCode == 0:
		return nil
	case !isRedirect(status):
		m.Problem = "missing redirect"
	case status != want.StatusCode:
		m.Problem = "status"
	case !sameLocation(base, want.Destination, loc):
		m.Problem = "location"
	default:
		return nil
	}
	return m
}

// sameLocation reports whether the server's Location got is the
// destination want, taking an absolute URL on the base URL's host for the
// path it names when want is a path.
func sameLocation(base *url.URL, want, got string) bool {
	if want == got {
		return true
	}
	if !strings.HasPrefix(want, "/") {
		return false
	}
	rest, ok := cutSchemeFold(got)
	if !ok || len(rest) < len(base.Host) || !strings.EqualFold(rest[:len(base.Host)], base.Host) {
		return false
	}
	return rest[len(base.Host):] == want
}
