package suggest

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/xml"
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
	"redirects/webhook"
)

// The limits of a sitemap (docs/suggest.md#sitemaps), a sitemap index's
// sitemaps included: bytes counted decompressed, so a gzip bomb stops at
// MaxSitemapBytes.
const (
	MaxSitemapBytes = 50 << 20
	MaxSitemapURLs  = 50_000
	// maxIndexDepth: a sitemap index lists sitemaps; one that lists
	// indexes again is refused.
	maxIndexDepth = 1
)

// Opener opens the sitemap a sitemap index names; nil refuses indexes.
type Opener func(ctx context.Context, loc string) (io.ReadCloser, error)

// budget counts what every file of one sitemap read so far.
type budget struct {
	bytes int64
	urls  []string
}

// countingReader fails once the budget's bytes are spent.
type countingReader struct {
	r io.Reader
	b *budget
}

var errTooLarge = fmt.Errorf("the sitemap is larger than %d MB (decompressed, every file of an index together)", MaxSitemapBytes>>20)

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.b.bytes += int64(n)
	if c.b.bytes > MaxSitemapBytes {
		return n, errTooLarge
	}
	return n, err
}

// ReadSitemap returns the page URLs of a sitemap: a sitemap.xml
// (<urlset>), a sitemap index (<sitemapindex>, whose sitemaps open
// opens), or a plain list of URLs, one a line (blank lines and lines
// starting with # skipped); any of them gzipped or not. At most
// MaxSitemapBytes decompressed and MaxSitemapURLs URLs, an index's
// sitemaps included; beyond, an EINVALID error naming the limit.
func ReadSitemap(ctx context.Context, r io.Reader, open Opener) ([]string, error) {
	b := &budget{}
	if err := b.read(ctx, r, open, 0); err != nil {
		return nil, redirects.Errorf(redirects.EINVALID, "sitemap: %v", err)
	}
	if len(b.urls) == 0 {
		return nil, redirects.Errorf(redirects.EINVALID, "sitemap: no URL in it")
	}
	return b.urls, nil
}

func (b *budget) read(ctx context.Context, r io.Reader, open Opener, depth int) error {
	br := bufio.NewReader(r)
	if head, _ := br.Peek(2); len(head) == 2 && head[0] == 0x1f && head[1] == 0x8b {
		z, err := gzip.NewReader(br)
		if err != nil {
			return fmt.Errorf("bad gzip: %v", err)
		}
		defer z.Close()
		br = bufio.NewReader(&countingReader{r: z, b: b})
	} else {
		br = bufio.NewReader(&countingReader{r: br, b: b})
	}
	head, err := br.Peek(512)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		return err
	}
	if t := bytes.TrimLeft(bytes.TrimPrefix(head, []byte("\xef\xbb\xbf")), " \t\r\n"); len(t) > 0 && t[0] == '<' {
		return b.readXML(ctx, br, open, depth)
	}
	return b.readList(br)
}

func (b *budget) add(u string) error {
	u = strings.TrimSpace(u)
	if u == "" {
		return nil
	}
	if len(b.urls) >= MaxSitemapURLs {
		return fmt.Errorf("more than %d URLs", MaxSitemapURLs)
	}
	p, err := url.Parse(u)
	if err != nil || p.Path == "" && p.Host == "" {
		return fmt.Errorf("%q is not a URL", u)
	}
	b.urls = append(b.urls, u)
	return nil
}

func (b *budget) readList(r *bufio.Reader) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 64<<10)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if err := b.add(line); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return fmt.Errorf("a line longer than 64 KiB")
		}
		return err
	}
	return nil
}

func (b *budget) readXML(ctx context.Context, r io.Reader, open Opener, depth int) error {
	d := xml.NewDecoder(r)
	var index []string
	var root, parent string
	var stack []string
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			if errors.Is(err, errTooLarge) {
				return err
			}
			return fmt.Errorf("bad XML: %v", err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if root == "" {
				root = t.Name.Local
				if root != "urlset" && root != "sitemapindex" {
					return fmt.Errorf("<%s> is neither a <urlset> nor a <sitemapindex>", root)
				}
			}
			if t.Name.Local == "loc" && len(stack) > 0 {
				parent = stack[len(stack)-1]
				var loc string
				if err := d.DecodeElement(&loc, &t); err != nil {
					if errors.Is(err, errTooLarge) {
						return err
					}
					return fmt.Errorf("bad <loc>: %v", err)
				}
				switch {
				case root == "urlset" && parent == "url":
					if err := b.add(loc); err != nil {
						return err
					}
				case root == "sitemapindex" && parent == "sitemap":
					if len(index) >= MaxSitemapURLs {
						return fmt.Errorf("an index of more than %d sitemaps", MaxSitemapURLs)
					}
					index = append(index, strings.TrimSpace(loc))
				}
				continue
			}
			stack = append(stack, t.Name.Local)
		case xml.EndElement:
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
		}
	}
	if root == "" {
		return fmt.Errorf("no <urlset> nor <sitemapindex>")
	}
	if root == "sitemapindex" {
		if open == nil {
			return fmt.Errorf("a sitemap index read from a file: give one of its sitemaps, or its URL")
		}
		if depth >= maxIndexDepth {
			return fmt.Errorf("a sitemap index inside a sitemap index")
		}
		for _, loc := range index {
			rc, err := open(ctx, loc)
			if err != nil {
				return fmt.Errorf("%s: %v", loc, err)
			}
			err = b.read(ctx, rc, open, depth+1)
			rc.Close()
			if err != nil {
				return fmt.Errorf("%s: %v", loc, err)
			}
		}
	}
	return nil
}

// The limits of fetching a sitemap: a request (its body of up to
// MaxSitemapBytes included) ends after SitemapTimeout, and follows at
// most SitemapMaxRedirects redirects.
const (
	SitemapTimeout      = 60 * time.Second
	SitemapMaxRedirects = 5
)

// Fetcher fetches sitemaps over HTTP(S) under the webhooks' address rules
// (webhook.PublicOnly: private, loopback and link-local addresses refused
// at dial time, unless AllowPrivate), for every hop of the up to
// SitemapMaxRedirects redirects it follows, each request within
// SitemapTimeout.
type Fetcher struct {
	AllowPrivate bool
	// control replaces webhook.PublicOnly as the dialer's Control when
	// set (tests: a loopback server stands for a public one).
	control func(network, address string, c syscall.RawConn) error
	once    sync.Once // makes client: one Fetcher serves concurrent requests
	client  *http.Client
}

// newClient is f's client: every connection, a redirect's included, is
// dialled under the address rule.
func (f *Fetcher) newClient() *http.Client {
	d := &net.Dialer{Timeout: webhook.Timeout}
	switch {
	case f.control != nil:
		d.Control = f.control
	case !f.AllowPrivate:
		d.Control = webhook.PublicOnly
	}
	return &http.Client{
		Timeout: SitemapTimeout,
		Transport: &http.Transport{
			Proxy:                 nil,
			DialContext:           d.DialContext,
			TLSHandshakeTimeout:   webhook.Timeout,
			ResponseHeaderTimeout: SitemapTimeout / 2,
			MaxIdleConnsPerHost:   2,
			IdleConnTimeout:       30 * time.Second,
		},
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) > SitemapMaxRedirects {
				return fmt.Errorf("more than %d redirects", SitemapMaxRedirects)
			}
			if req.URL.Scheme != "http" && req.URL.Scheme != "https" {
				return fmt.Errorf("a redirect to %s, not an http or https URL", req.URL.Redacted())
			}
			return nil
		},
	}
}

// Open GETs loc and returns its body, for a status 200 only.
func (f *Fetcher) Open(ctx context.Context, loc string) (io.ReadCloser, error) {
	u, err := url.Parse(loc)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("%q is not an http or https URL", loc)
	}
	f.once.Do(func() { f.client = f.newClient() })
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, loc, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("User-Agent", "redirects-suggest (sitemap)")
	res, err := f.client.Do(req)
	if err != nil {
		return nil, err
	}
	if res.StatusCode != http.StatusOK {
		res.Body.Close()
		return nil, fmt.Errorf("answered %s", res.Status)
	}
	return res.Body, nil
}

// Fetch reads the sitemap at loc (an index's sitemaps fetched the same
// way), within ReadSitemap's limits. Errors: EINVALID.
func (f *Fetcher) Fetch(ctx context.Context, loc string) ([]string, error) {
	rc, err := f.Open(ctx, loc)
	if err != nil {
		return nil, redirects.Errorf(redirects.EINVALID, "sitemap %s: %v", loc, err)
	}
	defer rc.Close()
	return ReadSitemap(ctx, rc, f.Open)
}
