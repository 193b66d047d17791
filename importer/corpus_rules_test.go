package importer

import (
	"context"
	"strings"
	"testing"

	"redirects"
)

// The constructs the corpus of real files (TestCorpus) led the importers
// to read: each on a small file.

// TestNetlifyLiteralAfterDomainLine: host-less exact lines after a domain
// line become literal patterns ranked after it, so that on its host the
// domain line answers their paths (as on Netlify, by line order), and
// they answer on every other host, with their slash twins as exact rules
// would.
func TestNetlifyLiteralAfterDomainLine(t *testing.T) {
	in := "https://old.example/* https://new.example/:splat 301!\n/a /b 302\n/c.html /d#frag 302\n/e:f /g 302\n"
	set := redirects.Settings{IgnoreTrailingSlash: true}
	res, err := Read(context.Background(), strings.NewReader(in), "netlify", Options{Settings: set})
	if err != nil {
		t.Fatal(err)
	}
	// Line 4 holds a ':' a pattern reads otherwise: it stays exact, and
	// changed, naming the domain line.
	wantLineClasses(t, res, map[int]Class{1: Changed, 2: AsIs, 3: AsIs, 4: Changed},
		map[int]string{1: "line 4, later, answers /e:f here on host old.example", 4: "on host old.example, line 1 answers it"})
	wantHostAnswers(t, res, set, map[string]string{
		"old.example /a":       "https://new.example/a 301",
		"old.example /a/":      "https://new.example/a/ 301",
		"old.example /c.html":  "https://new.example/c.html 301",
		"other.example /a":     "/b 302",
		"other.example /a/":    "/b 302",
		"/a?k=v":               "/b?k=v 302",
		"/c.html":              "/d#frag 302",
		"/c.htm":               "",
		"/a/x":                 "",
		"old.example /e:f":     "/g 302",
		"other.example /other": "",
	})
}

// TestNetlifyHandOff: a line Netlify answers without a redirect (a
// rewrite, a custom 404 page) comes first there; a later line that
// matches its paths redirects them here, and both lines say so. A later
// "/*" line leaves them out instead (TestNetlifyAfterRewrites): line 2 is
// as is.
func TestNetlifyHandOff(t *testing.T) {
	in := "/play/* /play/index.html 200\nhttps://a.example/* https://b.example/play/:splat 302!\n/docs/:v/x /404.html 404\n/docs/* /manual/:splat 301\n/other /there 301\n"
	res, err := Read(context.Background(), strings.NewReader(in), "netlify", Options{Settings: redirects.Settings{IgnoreTrailingSlash: true}})
	if err != nil {
		t.Fatal(err)
	}
	wantLineClasses(t, res, map[int]Class{1: Skipped, 2: AsIs, 3: Skipped, 4: Changed, 5: AsIs}, map[int]string{
		3: "line 4, later, redirects /docs/x/x here",
		4: "line 3, earlier, answers /docs/x/x on the source platform without a redirect",
	})
}

// TestNginxSchemeUpgrade: a server that listens on plain HTTP only and
// returns https://$host$request_uri makes a scheme redirect, set aside as
// no path redirect; $scheme in a server that listens one way only is that
// scheme; in a server that listens both ways it stays a variable.
func TestNginxSchemeUpgrade(t *testing.T) {
	in := `server {
  listen 80;
  server_name a.example;
  location / { return 301 https://$host$request_uri; }
}
server {
  listen 443 ssl;
  server_name www.a.example;
  return 301 $scheme://a.example$request_uri;
}
server {
  listen 80;
  server_name b.example;
  return 301 $scheme://c.example$request_uri;
}
server {
  listen 80;
  listen 443 ssl;
  server_name d.example;
  return 301 $scheme://e.example$request_uri;
}
server {
  listen 80;
  server_name f.example;
  return 301 https://g.example$request_uri;
}
`
	res, err := Read(context.Background(), strings.NewReader(in), "nginx", Options{})
	if err != nil {
		t.Fatal(err)
	}
	o := outcomeAt(res, 4)
	if o.Class != Skipped || !strings.Contains(strings.Join(o.Notes, "; "), "not a path redirect") {
		t.Errorf("line 4: %+v, want skipped as not a path redirect", o)
	}
	if o := outcomeAt(res, 20); o.Class != Skipped || !strings.Contains(strings.Join(o.Notes, "; "), "uses variables") {
		t.Errorf("line 20: %+v, want skipped: $scheme of a server that listens both ways", o)
	}
	dests := map[string]string{}
	for _, r := range res.Rules {
		dests[r.Host] = r.Destination
	}
	// www.a.example listens with ssl only: https; b.example without: http;
	// f.example redirects to another host: a path redirect, kept.
	want := map[string]string{"www.a.example": "https://a.example/", "b.example": "http://c.example/", "f.example": "https://g.example/"}
	for h, d := range want {
		if dests[h] != d {
			t.Errorf("host %s: destination %q, want %q (rules %+v)", h, dests[h], d, res.Rules)
		}
	}
	if _, ok := dests["a.example"]; ok {
		t.Errorf("a rule on a.example: %+v", res.Rules)
	}
	if _, ok := dests["d.example"]; ok {
		t.Errorf("a rule on d.example: %+v", res.Rules)
	}
}

// TestApacheSchemeUpgrade: a RewriteRule that sends a plain-HTTP request
// to https on the host asked is set aside as no path redirect; one that
// sends it to another host is not.
func TestApacheSchemeUpgrade(t *testing.T) {
	for _, c := range []struct {
		in       string
		setAside bool
	}{
		{"RewriteEngine On\nRewriteCond %{HTTP_HOST} ^beam\\.apache\\.org [NC]\nRewriteCond %{HTTPS} !on\nRewriteRule ^(.*)$ https://beam.apache.org/$1 [L,R=301]\n", true},
		{"RewriteEngine On\nRewriteCond %{HTTPS} off\nRewriteRule ^ https://%{HTTP_HOST}%{REQUEST_URI} [L,R=301]\n", true},
		{"RewriteEngine On\nRewriteCond %{SERVER_PORT} 80\nRewriteRule ^(.*)$ https://%{HTTP_HOST}/$1 [R=301,L]\n", true},
		{"RewriteEngine On\nRewriteCond %{HTTP_HOST} ^a\\.example$\nRewriteCond %{HTTPS} !on\nRewriteRule ^(.*)$ https://b.example/$1 [L,R=301]\n", false},
		{"RewriteEngine On\nRewriteCond %{HTTPS} !on\nRewriteRule ^docs/(.*)$ https://%{HTTP_HOST}/$1 [L,R=301]\n", false},
	} {
		res, err := Read(context.Background(), strings.NewReader(c.in), "apache", Options{})
		if err != nil {
			t.Fatal(err)
		}
		var rule Outcome
		for _, o := range res.Lines {
			if strings.HasPrefix(o.Text, "RewriteRule") {
				rule = o
			}
		}
		got := rule.Class == Skipped && strings.Contains(strings.Join(rule.Notes, "; "), "not a path redirect")
		if got != c.setAside {
			t.Errorf("%q: %+v, set aside %v, want %v", c.in, rule, got, c.setAside)
		}
		if len(res.Rules) != 0 {
			t.Errorf("%q: rules %+v", c.in, res.Rules)
		}
	}
}

// TestNetlifyDollarSource: a source holding '$' (which literal sources
// refuse) becomes a pattern holding it percent-encoded, as literal text.
func TestNetlifyDollarSource(t *testing.T) {
	in := "/docs/$LATEST_VERSION$/*  /docs/:splat\n/a{b}  /c 302\n"
	set := redirects.Settings{IgnoreTrailingSlash: true}
	res, err := Read(context.Background(), strings.NewReader(in), "netlify", Options{Settings: set})
	if err != nil {
		t.Fatal(err)
	}
	wantLineClasses(t, res, map[int]Class{1: AsIs, 2: AsIs}, nil)
	wantHostAnswers(t, res, set, map[string]string{
		"/docs/$LATEST_VERSION$/a/b":   "/docs/a/b 301",
		"/docs/$LATEST_VERSION$/x?k=v": "/docs/x?k=v 301",
		"/docs/%24LATEST_VERSION%24/x": "/docs/x 301",
		"/docs/LATEST_VERSION/x":       "",
		"/docs/$LATEST_VERSIONx/x":     "",
		"/a%7Bb%7D":                    "/c 302",
		"/ab":                          "",
	})
}
