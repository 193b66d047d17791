// Package edgekit is the edge kit for Go applications that ask the
// lookup API on each request: a Client that caches answers as their
// Cache-Control allows, gives up after a short timeout (fail-open: the
// request goes on as if no rule matched) and stops asking for a while after
// failures in a row (a circuit breaker), and net/http middleware that
// redirects or passes the request on.
//
// It uses the standard library only, so an application can copy it as it
// is. docs/delivery.md ("Put it in front of your site") shows it in use.
package edgekit

import (
	"container/list"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Redirect is a rule's answer: where to send the request, and how.
type Redirect struct {
	Destination string `json:"destination"`
	StatusCode  int    `json:"statusCode"`
	MatchType   string `json:"matchType"`
}

// ErrCircuitOpen is returned, without a request, while the breaker is open.
var ErrCircuitOpen = errors.New("edgekit: the lookup API failed repeatedly; not asking it for a while")

// Client asks the lookup API of one project. Its zero value is not usable:
// set Edge, Key and Project. A Client is safe for concurrent use.
type Client struct {
	// Edge is the edge API's base URL, e.g. https://edge.example.com.
	Edge    string
	Key     string
	Project string
	// Timeout bounds one lookup, cache misses included: past it the
	// lookup fails and the request goes on (fail-open). 500 ms unless set.
	Timeout time.Duration
	// CacheEntries bounds the cache (least recently used first out):
	// 10,000 unless set; negative for no cache.
	CacheEntries int
	// MaxAge caps how long an answer is cached, whatever its Cache-Control
	// allows; 0 for no cap.
	MaxAge time.Duration
	// FailureThreshold failures in a row open the breaker for OpenFor:
	// lookups then fail at once with ErrCircuitOpen; after OpenFor one
	// lookup is let through, and its success closes the breaker. 5 and
	// 10 s unless set.
	FailureThreshold int
	OpenFor          time.Duration
	// HTTPClient makes the requests; nil for one of the client's own.
	HTTPClient *http.Client
	// Now is the clock; nil for time.Now.
	Now func() time.Time

	once  sync.Once
	mu    sync.Mutex
	cache map[string]*list.Element
	lru   *list.List
	// breaker state: failures in a row, and until when it is open.
	failures  int
	openUntil time.Time
	probing   bool
}

type entry struct {
	path    string
	r       *Redirect // nil: no rule (204)
	expires time.Time
}

func (c *Client) init() {
	c.once.Do(func() {
		if c.Timeout <= 0 {
			c.Timeout = 500 * time.Millisecond
		}
		if c.CacheEntries == 0 {
			c.CacheEntries = 10000
		}
		if c.FailureThreshold <= 0 {
			c.FailureThreshold = 5
		}
		if c.OpenFor <= 0 {
			c.OpenFor = 10 * time.Second
		}
		if c.HTTPClient == nil {
			c.HTTPClient = &http.Client{
				CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
				Transport:     &http.Transport{MaxIdleConnsPerHost: 64, IdleConnTimeout: 90 * time.Second},
			}
		}
		if c.Now == nil {
			c.Now = time.Now
		}
		c.cache = map[string]*list.Element{}
		c.lru = list.New()
	})
}

// Lookup returns the redirect for a request path (as the client sent it,
// escaped, with its query string if it has one), or nil when no rule
// matches, for a request without a host: only rules without a host answer.
// On failure (timeout, the API unreachable or answering an error, the
// breaker open) it returns nil and the error: the caller goes on as if no
// rule matched.
func (c *Client) Lookup(ctx context.Context, path string) (*Redirect, error) {
	return c.LookupHost(ctx, "", path)
}

// LookupHost is Lookup for a request to host (its Host header): rules
// scoped to that host answer too (the lookup API's host parameter,
// docs/contract.md#hosts). Answers are cached per host and path.
func (c *Client) LookupHost(ctx context.Context, host, path string) (*Redirect, error) {
	c.init()
	now := c.Now()
	key := path
	if host != "" {
		// A host holds no space: the key cannot be another host's path.
		key = host + " " + path
	}
	if r, ok := c.cached(key, now); ok {
		return r, nil
	}
	if err := c.allow(now); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, c.Timeout)
	defer cancel()
	r, maxAge, err := c.ask(ctx, host, path)
	c.record(err)
	if err != nil {
		return nil, err
	}
	if c.MaxAge > 0 && maxAge > c.MaxAge {
		maxAge = c.MaxAge
	}
	if maxAge > 0 {
		c.store(key, r, now.Add(maxAge))
	}
	return r, nil
}

// ask makes one request of the lookup API.
func (c *Client) ask(ctx context.Context, host, path string) (*Redirect, time.Duration, error) {
	u := strings.TrimSuffix(c.Edge, "/") + "/v1/lookup?project=" + url.QueryEscape(c.Project) + "&path=" + url.QueryEscape(path)
	if host != "" {
		u += "&host=" + url.QueryEscape(host)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, 0, err
	}
	req.Header.Set("X-API-Key", c.Key)
	resp, err := c.HTTPClient.Do(req)
	if err != nil {
		return nil, 0, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 16<<10))
	if err != nil {
		return nil, 0, err
	}
	maxAge := cacheMaxAge(resp.Header.Get("Cache-Control"))
	switch resp.StatusCode {
	case http.StatusNoContent:
		return nil, maxAge, nil
	case http.StatusOK:
		var r Redirect
		if err := json.Unmarshal(body, &r); err != nil || r.Destination == "" || (r.StatusCode != 301 && r.StatusCode != 302) {
			return nil, 0, fmt.Errorf("edgekit: the lookup API answered 200 with %.200q", body)
		}
		return &r, maxAge, nil
	}
	var e struct{ Error, Code string }
	json.Unmarshal(body, &e)
	err = fmt.Errorf("edgekit: the lookup API answered %d %s %s", resp.StatusCode, e.Code, e.Error)
	if resp.StatusCode == http.StatusTooManyRequests {
		if s, perr := strconv.Atoi(resp.Header.Get("Retry-After")); perr == nil && s > 0 {
			return nil, 0, &retryAfter{err: err, d: time.Duration(s) * time.Second}
		}
	}
	return nil, 0, err
}

// retryAfter is a 429: the breaker opens for what the API asked.
type retryAfter struct {
	err error
	d   time.Duration
}

func (e *retryAfter) Error() string { return e.err.Error() }
func (e *retryAfter) Unwrap() error { return e.err }

// cacheMaxAge reads how long an answer may be kept: max-age, unless
// no-store or no-cache forbid it (then 0).
func cacheMaxAge(cc string) time.Duration {
	var age time.Duration
	for _, d := range strings.Split(cc, ",") {
		d = strings.ToLower(strings.TrimSpace(d))
		switch {
		case d == "no-store" || d == "no-cache" || d == "private":
			return 0
		case strings.HasPrefix(d, "max-age="):
			if s, err := strconv.Atoi(strings.TrimPrefix(d, "max-age=")); err == nil && s > 0 {
				age = time.Duration(s) * time.Second
			}
		}
	}
	return age
}

func (c *Client) cached(path string, now time.Time) (*Redirect, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.cache[path]
	if !ok {
		return nil, false
	}
	e := el.Value.(*entry)
	if !now.Before(e.expires) {
		c.lru.Remove(el)
		delete(c.cache, path)
		return nil, false
	}
	c.lru.MoveToFront(el)
	return e.r, true
}

func (c *Client) store(path string, r *Redirect, expires time.Time) {
	if c.CacheEntries < 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.cache[path]; ok {
		el.Value = &entry{path: path, r: r, expires: expires}
		c.lru.MoveToFront(el)
		return
	}
	c.cache[path] = c.lru.PushFront(&entry{path: path, r: r, expires: expires})
	for c.lru.Len() > c.CacheEntries {
		old := c.lru.Back()
		c.lru.Remove(old)
		delete(c.cache, old.Value.(*entry).path)
	}
}

// allow says whether a request may be made: not while the breaker is open,
// and once it has been open for its time, one probe at a time.
func (c *Client) allow(now time.Time) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.failures < c.FailureThreshold && !now.Before(c.openUntil) {
		return nil
	}
	if now.Before(c.openUntil) || c.probing {
		return ErrCircuitOpen
	}
	c.probing = true
	return nil
}

// record counts a request's outcome for the breaker.
func (c *Client) record(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.probing = false
	if err == nil {
		c.failures, c.openUntil = 0, time.Time{}
		return
	}
	var ra *retryAfter
	if errors.As(err, &ra) {
		c.openUntil = c.Now().Add(ra.d)
		return
	}
	c.failures++
	if c.failures >= c.FailureThreshold {
		c.openUntil = c.Now().Add(c.OpenFor)
	}
}

// Middleware redirects GET and HEAD requests that a rule answers, and
// passes every other request to next: no rule, another method, or a
// lookup that failed (fail-open; onError, if not nil, hears of it). It
// asks for the request's path with its query (rules with query conditions
// read it) on the request's host (rules scoped to a host answer only it).
func (c *Client) Middleware(next http.Handler, onError func(*http.Request, error)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			next.ServeHTTP(w, r)
			return
		}
		path := r.URL.EscapedPath()
		if r.URL.RawQuery != "" {
			path += "?" + r.URL.RawQuery
		}
		red, err := c.LookupHost(r.Context(), hostName(r.Host), path)
		if err != nil && onError != nil {
			onError(r, err)
		}
		if red == nil {
			next.ServeHTTP(w, r)
			return
		}
		w.Header().Set("Location", red.Destination)
		w.WriteHeader(red.StatusCode)
	})
}
