package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"redirects"
	"redirects/api"
	"redirects/importer"
	"redirects/sqlite"
)

// recoverySites are real public redirect files of the corpus
// (importer/testdata/corpus/SOURCES.md) with the host their site answers
// on; must says whether the test holds the site to 80 %: the others'
// figures are printed (docs/suggest.md#how-well-it-recovers).
var recoverySites = []struct {
	file, host string
	must       bool
}{
	{"netlify/vitest.dev_redirects", "vitest.dev", true},
	{"vercel/ionicframework.com-docs.vercel.json", "ionicframework.com", true},
	{"netlify/yarnpkg.com_redirects", "yarnpkg.com", true},
	{"netlify/preactjs.com_redirects", "preactjs.com", true},
	{"netlify/reactnative.dev_redirects", "reactnative.dev", false},
	{"netlify/vuejs.org_redirects", "vuejs.org", false},
	{"vercel/react.dev.vercel.json", "react.dev", false},
}

// literalRedirects returns the file's literal redirects, in file order:
// exact, host-less rules with a destination and no query in the source,
// each source once.
func literalRedirects(t *testing.T, file string) (lit, all []redirects.Rule) {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "..", "importer", "testdata", "corpus", file))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	res, err := importer.Read(context.Background(), f, "", importer.Options{FileName: filepath.Base(file)})
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	seen := map[string]bool{}
	for _, r := range res.Rules {
		if r.MatchType != redirects.Exact || r.Host != "" || r.Destination == "" || r.StatusCode == 410 ||
			strings.Contains(r.Source, "?") || strings.Contains(r.Destination, "$") || seen[r.Source] {
			continue
		}
		seen[r.Source] = true
		lit = append(lit, r)
	}
	return lit, res.Rules
}

// TestSuggestRecoversCorpus is the recovery test of docs/suggest.md: for
// each site, its literal redirects split in two (alternate lines), the
// first half imported as the draft and deployed, the other half's sources
// asked of a real edge (serve over HTTP, with a key) so that they reach the
// miss log as misses, a sitemap listing every destination of the file
// (XML for some sites, gzipped for one, a plain list for others), then
// "redirects suggest": at least 80 % of the held-out redirects must get
// their own destination as the path's suggestion, on every site marked
// must. Each site's figure is printed. A destination on the site's own
// host counts as its path (https://vuejs.org/x is /x on vuejs.org).
func TestSuggestRecoversCorpus(t *testing.T) {
	dir := t.TempDir()
	db := "sqlite:" + filepath.Join(dir, "r.db")
	org, _ := runCLI(t, db, 0, "org", "create", "--name", "Corpus", "--tier", "pro")
	org = strings.TrimSpace(org)
	type site struct {
		project, secret, sitemap string
		held                     []redirects.Rule
	}
	sites := make([]site, len(recoverySites))
	for i, rs := range recoverySites {
		lit, all := literalRedirects(t, rs.file)
		var draft []redirects.Rule
		for k, r := range lit {
			if k%2 == 0 {
				draft = append(draft, r)
			} else {
				sites[i].held = append(sites[i].held, r)
			}
		}
		if len(sites[i].held) < 5 {
			t.Fatalf("%s: only %d held-out redirects", rs.file, len(sites[i].held))
		}
		p, _ := runCLI(t, db, 0, "project", "create", "--org", org, "--name", rs.host, "--host", rs.host)
		sites[i].project = strings.TrimSpace(p)
		s, err := sqlite.Open(context.Background(), strings.TrimPrefix(db, "sqlite:"))
		if err != nil {
			t.Fatal(err)
		}
		for k := range draft {
			draft[k].ProjectID = sites[i].project
		}
		if _, err := s.Import(context.Background(), sites[i].project, draft, redirects.ImportOptions{}); err != nil {
			t.Fatalf("%s: import: %v", rs.file, err)
		}
		s.Close()
		runCLI(t, db, 0, "deploy", "--project", sites[i].project, "--force", "--reason", "half of a real site's redirects, for the recovery test")
		secret, _ := runCLI(t, db, 0, "key", "create", "--project", sites[i].project)
		sites[i].secret = strings.TrimSpace(secret)

		// The sitemap: every destination of the file, absolute.
		var pages []string
		for _, r := range all {
			d := r.Destination
			if d == "" || strings.ContainsAny(d, "$:*") && !strings.HasPrefix(d, "http") {
				continue
			}
			if strings.HasPrefix(d, "/") {
				d = "https://" + rs.host + d
			}
			pages = append(pages, d)
		}
		var body []byte
		name := filepath.Join(dir, fmt.Sprintf("sitemap%d", i))
		switch i % 3 {
		case 0:
			var b strings.Builder
			b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n")
			for _, p := range pages {
				fmt.Fprintf(&b, "  <url><loc>%s</loc></url>\n", xmlEscape(p))
			}
			b.WriteString("</urlset>\n")
			body, name = []byte(b.String()), name+".xml"
		case 1:
			var b bytes.Buffer
			z := gzip.NewWriter(&b)
			fmt.Fprintf(z, `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`)
			for _, p := range pages {
				fmt.Fprintf(z, "<url><loc>%s</loc></url>", xmlEscape(p))
			}
			fmt.Fprintf(z, "</urlset>")
			z.Close()
			body, name = b.Bytes(), name+".xml.gz"
		default:
			body, name = []byte(strings.Join(pages, "\n")+"\n"), name+".txt"
		}
		if err := os.WriteFile(name, body, 0o600); err != nil {
			t.Fatal(err)
		}
		sites[i].sitemap = name
	}

	edgeAddr := freeAddr(t)
	start(t, db, "serve", "--addr", edgeAddr, "--admin-addr", "")
	lookup := func(s *site, path string) int {
		req, _ := http.NewRequest("GET", "http://"+edgeAddr+"/v1/lookup?project="+s.project+"&path="+url.QueryEscape(path), nil)
		req.Header.Set("X-API-Key", s.secret)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			return 0
		}
		res.Body.Close()
		return res.StatusCode
	}
	for i := range sites {
		s := &sites[i]
		waitFor(t, recoverySites[i].file+": the edge answers with the deployed version", func() bool { return lookup(s, s.held[0].Source) == http.StatusNoContent })
		for _, r := range s.held[1:] {
			if code := lookup(s, r.Source); code != http.StatusNoContent {
				t.Fatalf("%s: held-out %s answered %d, want 204 (a miss)", recoverySites[i].file, r.Source, code)
			}
		}
	}
	for i := range sites {
		s := &sites[i]
		waitFor(t, recoverySites[i].file+": every held-out path in the miss log", func() bool {
			out, _, code := inProcess(t, db, "", "misses", "--project", s.project, "--json", "--limit", "1000")
			var ms []api.MissesRow
			if code != 0 || json.Unmarshal([]byte(out), &ms) != nil {
				return false
			}
			return len(ms) >= len(s.held)
		})
	}
	for i, rs := range recoverySites {
		s := &sites[i]
		out, _ := runCLI(t, db, 0, "suggest", "--project", s.project, "--sitemap", s.sitemap, "--limit", "1000", "--json")
		var got api.Suggestions
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatalf("%s: suggest --json: %v\n%s", rs.file, err, out)
		}
		first := map[string]string{}
		for _, g := range got.Suggestions {
			if _, ok := first[g.Path]; !ok {
				first[g.Path] = g.Destination
			}
		}
		ok := 0
		for _, r := range s.held {
			// A destination on the site's own host is the same redirect
			// as its path: the sitemap names pages absolutely, and
			// suggest makes those on a project host relative.
			own := "https://" + rs.host
			if same := func(d string) string { return strings.TrimPrefix(d, own) }; same(first[r.Source]) == same(r.Destination) {
				ok++
			} else if testing.Verbose() {
				t.Logf("  %s: %s -> %s, suggested %q", rs.host, r.Source, r.Destination, first[r.Source])
			}
		}
		pct := 100 * float64(ok) / float64(len(s.held))
		t.Logf("recovery %-45s %3d of %3d held-out redirects = %5.1f %%", rs.file, ok, len(s.held), pct)
		if rs.must && pct < 80 {
			t.Errorf("%s: %d of %d held-out redirects recovered (%.1f %%), want at least 80 %%", rs.file, ok, len(s.held), pct)
		}
	}
}

func xmlEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch r {
		case '&':
			b.WriteString("&amp;")
		case '<':
			b.WriteString("&lt;")
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
