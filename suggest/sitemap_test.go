package suggest

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"syscall"
	"testing"

	"redirects"
	"redirects/webhook"
)

func urlset(urls ...string) string {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n" + `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`)
	for _, u := range urls {
		fmt.Fprintf(&b, "<url><loc>%s</loc><lastmod>2026-01-01</lastmod></url>", u)
	}
	b.WriteString("</urlset>\n")
	return b.String()
}

func gz(s string) []byte {
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	w.Write([]byte(s))
	w.Close()
	return b.Bytes()
}

func wantInvalid(t *testing.T, what string, err error, words string) {
	t.Helper()
	if redirects.ErrorCode(err) != redirects.EINVALID || !strings.Contains(err.Error(), words) {
		t.Errorf("%s: %v; want EINVALID naming %q", what, err, words)
	}
}

// TestReadSitemapShapes: a urlset, the same gzipped, a plain list (with a
// comment and blank lines) give the same URLs, in order.
func TestReadSitemapShapes(t *testing.T) {
	want := []string{"https://a.example/x", "https://a.example/y/z?q=1"}
	for name, in := range map[string][]byte{
		"xml":    []byte(urlset(want...)),
		"xml.gz": gz(urlset(want...)),
		"list":   []byte("# pages\n\n" + strings.Join(want, "\n") + "\n"),
		"gzlist": gz(strings.Join(want, "\r\n")),
	} {
		got, err := ReadSitemap(context.Background(), bytes.NewReader(in), nil)
		if err != nil || strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("%s: %v, %v; want %v", name, got, err, want)
		}
	}
	_, err := ReadSitemap(context.Background(), strings.NewReader(`<rss><loc>x</loc></rss>`), nil)
	wantInvalid(t, "an rss feed", err, "neither a <urlset> nor a <sitemapindex>")
	_, err = ReadSitemap(context.Background(), strings.NewReader(""), nil)
	wantInvalid(t, "an empty file", err, "no URL")
	_, err = ReadSitemap(context.Background(), strings.NewReader(`<sitemapindex><sitemap><loc>https://a.example/s.xml</loc></sitemap></sitemapindex>`), nil)
	wantInvalid(t, "an index without an opener", err, "sitemap index read from a file")
}

// TestReadSitemapLimits: 50,000 URLs pass and 50,001 do not; a file over
// 50 MB is refused, and so is a gzip bomb (a small file that inflates
// past 50 MB), without reading it whole.
func TestReadSitemapLimits(t *testing.T) {
	var b strings.Builder
	for i := 0; i < MaxSitemapURLs; i++ {
		fmt.Fprintf(&b, "https://a.example/p%d\n", i)
	}
	got, err := ReadSitemap(context.Background(), strings.NewReader(b.String()), nil)
	if err != nil || len(got) != MaxSitemapURLs {
		t.Fatalf("%d URLs: %d read, %v", MaxSitemapURLs, len(got), err)
	}
	b.WriteString("https://a.example/one-more\n")
	_, err = ReadSitemap(context.Background(), strings.NewReader(b.String()), nil)
	wantInvalid(t, "one URL too many", err, "more than 50000 URLs")

	// Over 50 MB plain: a comment line repeated (no URL counts against the
	// other limit).
	big := strings.Repeat("# "+strings.Repeat("x", 1000)+"\n", MaxSitemapBytes/1000+10)
	_, err = ReadSitemap(context.Background(), strings.NewReader(big), nil)
	wantInvalid(t, "a 50 MB list", err, "larger than 50 MB")

	// A gzip bomb: 64 MiB of one letter inside a urlset compresses to about 64 KB.
	var bomb bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&bomb, gzip.BestCompression)
	zw.Write([]byte(`<urlset><url><loc>https://a.example/`))
	zeros := make([]byte, 1<<20)
	for i := range zeros {
		zeros[i] = 'a'
	}
	for i := 0; i < 64; i++ {
		zw.Write(zeros)
	}
	zw.Write([]byte(`</loc></url></urlset>`))
	zw.Close()
	if bomb.Len() > 8<<20 {
		t.Fatalf("the bomb is %d bytes compressed", bomb.Len())
	}
	cr := &countReader{r: bytes.NewReader(bomb.Bytes())}
	_, err = ReadSitemap(context.Background(), cr, nil)
	wantInvalid(t, "a gzip bomb", err, "larger than 50 MB")
	if cr.n >= int64(bomb.Len()) {
		t.Errorf("the bomb was read whole (%d of %d bytes): the limit must stop it early", cr.n, bomb.Len())
	}
}

type countReader struct {
	r io.Reader
	n int64
}

func (c *countReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// TestFetchSitemap: a sitemap index on a local server whose sitemaps are
// fetched (one gzipped), when private addresses are allowed; the
// webhooks' rule refuses the same server by default, with its error; a
// status other than 200 is an error naming it.
func TestFetchSitemap(t *testing.T) {
	var base string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/sitemap.xml":
			fmt.Fprintf(w, `<sitemapindex><sitemap><loc>%s/a.xml</loc></sitemap><sitemap><loc>%s/b.xml.gz</loc></sitemap></sitemapindex>`, base, base)
		case "/a.xml":
			io.WriteString(w, urlset("https://a.example/1", "https://a.example/2"))
		case "/b.xml.gz":
			w.Write(gz(urlset("https://a.example/3")))
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	base = srv.URL
	got, err := (&Fetcher{AllowPrivate: true}).Fetch(context.Background(), srv.URL+"/sitemap.xml")
	if err != nil || strings.Join(got, " ") != "https://a.example/1 https://a.example/2 https://a.example/3" {
		t.Fatalf("index: %v, %v", got, err)
	}
	_, err = (&Fetcher{}).Fetch(context.Background(), srv.URL+"/sitemap.xml")
	wantInvalid(t, "a loopback sitemap", err, "not a public address")
	if !errors.Is(errors.Unwrap(err), webhook.ErrPrivateAddress) && !strings.Contains(err.Error(), webhook.ErrPrivateAddress.Error()) {
		t.Errorf("want the webhooks' error: %v", err)
	}
	_, err = (&Fetcher{AllowPrivate: true}).Fetch(context.Background(), srv.URL+"/missing.xml")
	wantInvalid(t, "a 404", err, "404")
	_, err = (&Fetcher{}).Fetch(context.Background(), "ftp://a.example/s.xml")
	wantInvalid(t, "an ftp URL", err, "not an http or https URL")
}

// TestFetchSitemapRedirects: a sitemap that moved is followed through up
// to 5 redirects (a 6th is an error naming the limit); every hop is
// dialled under the address rule, so a redirect from a server standing
// for a public one (127.0.0.1) to a private address (127.0.0.2) is
// refused with the webhooks' error.
func TestFetchSitemapRedirects(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.2:0")
	if err != nil {
		t.Skipf("cannot listen on 127.0.0.2: %v", err)
	}
	private := &httptest.Server{Listener: ln, Config: &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, urlset("https://a.example/secret"))
	})}}
	private.Start()
	defer private.Close()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var n int
		switch {
		case r.URL.Path == "/sitemap.xml":
			io.WriteString(w, urlset("https://a.example/1"))
		case r.URL.Path == "/to-private":
			http.Redirect(w, r, private.URL+"/sitemap.xml", http.StatusFound)
		case strings.HasPrefix(r.URL.Path, "/hop/"):
			fmt.Sscanf(strings.TrimPrefix(r.URL.Path, "/hop/"), "%d", &n)
			if n == 0 {
				http.Redirect(w, r, "/sitemap.xml", http.StatusMovedPermanently)
				return
			}
			http.Redirect(w, r, fmt.Sprintf("/hop/%d", n-1), http.StatusFound)
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	f := &Fetcher{control: func(network, address string, c syscall.RawConn) error {
		if strings.HasPrefix(address, "127.0.0.1:") {
			return nil
		}
		return webhook.PublicOnly(network, address, c)
	}}
	// /hop/4 is 5 redirects away from the sitemap: 4, 3, 2, 1, 0, sitemap.
	got, err := f.Fetch(context.Background(), srv.URL+"/hop/4")
	if err != nil || strings.Join(got, " ") != "https://a.example/1" {
		t.Fatalf("5 redirects: %v, %v; want the sitemap's URL", got, err)
	}
	_, err = f.Fetch(context.Background(), srv.URL+"/hop/5")
	wantInvalid(t, "6 redirects", err, "more than 5 redirects")
	_, err = f.Fetch(context.Background(), srv.URL+"/to-private")
	wantInvalid(t, "a redirect to a private address", err, "not a public address")
	got, err = (&Fetcher{AllowPrivate: true}).Fetch(context.Background(), srv.URL+"/to-private")
	if err != nil || strings.Join(got, " ") != "https://a.example/secret" {
		t.Fatalf("a redirect to a private address, allowed: %v, %v", got, err)
	}
}
