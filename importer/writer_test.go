package importer

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"redirects"
	"redirects/internal/rulemodel"
)

// checkWriterRoundTrip asks random paths of the draft rules (under settings s)
// and of back, the rules read back from the written file, and fails when
// they answer differently, unless the rule that answers on either side was
// reported unexpressed. It returns how many answers it compared.
func checkWriterRoundTrip(t *testing.T, name string, seed uint64, rules, back []redirects.Rule, s redirects.Settings, un []Unexpressed, file string, norm func(string) string) int {
	t.Helper()
	unSrc := map[string]bool{}
	for _, u := range un {
		unSrc[u.Source] = true
	}
	rng := rand.New(rand.NewPCG(seed, 99))
	compared := 0
	for _, p := range rulemodel.Paths(rng, rules, 80) {
		want, wok := rulemodel.Lookup(rules, rulemodel.Of(s), p)
		got, gok := rulemodel.Lookup(back, rulemodel.Of(s), p)
		// A rule read back may be one of two a written line became
		// (Cloudflare's subpath /a is /a and /a/): both carry its mark.
		if (wok && unSrc[rules[want.Rule].Source]) || (gok && (unSrc[back[got.Rule].Source] || unSrc[strings.TrimSuffix(back[got.Rule].Source, "/")])) {
			continue
		}
		compared++
		if wok != gok || (wok && (norm(got.Destination) != norm(want.Destination) || got.Status != want.Status)) {
			t.Fatalf("%s seed %d %s: %q answers %q %d (%v) read back, %q %d (%v) in the draft\n%s", name, seed, s, p,
				got.Destination, got.Status, gok, want.Destination, want.Status, wok, file)
		}
	}
	return compared
}

// TestNetlifyWriterRoundTrip: random drafts written by the netlify writer
// are read by Netlify's own parser without an error, one redirect per rule
// written, and read back by our reader into rules that answer as the
// draft does, except for what the writer reported unexpressed.
func TestNetlifyWriterRoundTrip(t *testing.T) {
	const seeds = 200
	dir := t.TempDir()
	var files []string
	var counts []int
	compared := 0
	for seed := uint64(0); seed < seeds; seed++ {
		rng := rand.New(rand.NewPCG(seed, 51))
		s, rules := rulemodel.Project(rng, 4+rng.IntN(16))
		rules = nestPrefixes(rng, rules)
		var buf bytes.Buffer
		un, err := LookupWriter("netlify").Write(&buf, rules, s, nil)
		if err != nil {
			t.Fatal(err)
		}
		res, err := Read(context.Background(), bytes.NewReader(buf.Bytes()), "netlify", Options{Settings: s})
		if err != nil {
			t.Fatalf("seed %d: reading back: %v\n%s", seed, err, buf.String())
		}
		compared += checkWriterRoundTrip(t, "netlify", seed, rules, res.Rules, s, un, buf.String(), func(d string) string { return d })
		f := filepath.Join(dir, fmt.Sprint(seed), "_redirects")
		os.MkdirAll(filepath.Dir(f), 0o755)
		os.WriteFile(f, buf.Bytes(), 0o644)
		files = append(files, f)
		counts = append(counts, len(rules))
	}
	if compared < seeds*20 {
		t.Errorf("only %d answers compared", compared)
	}
	for i, r := range netlifyRef(t, files) {
		if len(r.Errors) > 0 || len(r.Redirects) != counts[i] {
			b, _ := os.ReadFile(files[i])
			t.Fatalf("seed %d: Netlify's parser read %d redirects of %d, errors %q\n%s", i, len(r.Redirects), counts[i], r.Errors, b)
		}
		for _, x := range r.Redirects {
			if !x.Force || x.Status == 0 {
				t.Fatalf("seed %d: %+v is not forced with a status", i, x)
			}
		}
	}
}

// nestPrefixes adds, under some starts_with rules ending in '/', a longer
// one of the same priority, so that the order between prefixes matters.
func nestPrefixes(rng *rand.Rand, rules []redirects.Rule) []redirects.Rule {
	n := len(rules)
	for i := 0; i < n; i++ {
		r := rules[i]
		if r.MatchType != redirects.StartsWith || !strings.HasSuffix(r.Source, "/") || rng.IntN(2) == 0 {
			continue
		}
		c := r
		c.ID = int64(len(rules) + 1)
		c.CreatedAt = r.CreatedAt.Add(1000000)
		c.Source = r.Source + "docs/"
		c.Destination = "/nested/"
		if c.StatusCode == redirects.StatusGone {
			c.Destination = ""
		}
		dup := false
		for _, x := range rules {
			dup = dup || (x.MatchType == redirects.StartsWith && strings.EqualFold(x.Source, c.Source))
		}
		if !dup {
			rules = append(rules, c)
		}
	}
	return rules
}

// TestNetlifyWriterUnexpressed: what a _redirects file cannot say is
// reported, rule by rule.
func TestNetlifyWriterUnexpressed(t *testing.T) {
	rules := []redirects.Rule{
		{ID: 1, Source: "/a", Destination: "/b", StatusCode: 301, PreserveQuery: true},
		{ID: 2, Source: "/docs/", Destination: "/d/", StatusCode: 302, MatchType: redirects.StartsWith, PreservePath: true, PreserveQuery: true, Priority: 100},
		{ID: 3, Source: "/gone", StatusCode: 410},
		{ID: 4, Source: "/t", Destination: "/u", StatusCode: 307, PreserveQuery: true},
		{ID: 5, Source: "/x", Destination: "/y", StatusCode: 301},
		{ID: 6, Source: "/pre", Destination: "/p", StatusCode: 301, MatchType: redirects.StartsWith, PreserveQuery: true, Priority: 100},
	}
	var buf bytes.Buffer
	un, err := writeNetlify(&buf, rules, redirects.Settings{IgnoreTrailingSlash: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := "/a  /b  301!\n/gone  /404.html  410!\n/t  /u  307!\n/x  /y  301!\n/docs/*  /d/:splat  302!\n/pre*  /p  301!\n"
	if body := buf.String(); !strings.HasSuffix(body, want) {
		t.Errorf("file\n%s\nwant it to end with\n%s", body, want)
	}
	got := map[int64]string{}
	for _, u := range un {
		got[u.RuleID] = u.Reason
	}
	for id, frag := range map[int64]string{4: "307", 5: "passes the request's query", 6: "splats after a '/'"} {
		if !strings.Contains(got[id], frag) {
			t.Errorf("rule %d: reason %q, want %q", id, got[id], frag)
		}
	}
	if len(un) != 3 {
		t.Errorf("unexpressed %+v, want rules 4, 5, 6", un)
	}
	un, _ = writeNetlify(&bytes.Buffer{}, rules[:1], redirects.Settings{CaseInsensitive: true}, nil)
	if len(un) != 1 || !strings.Contains(un[0].Reason, "case sensitively") || !strings.Contains(un[0].Reason, "trailing slash") {
		t.Errorf("unexpressed %+v, want case and slash named", un)
	}
}

// TestCloudflareWriterRoundTrip: random drafts written by the cloudflare
// writer read back by our reader (the model-tested reading of Cloudflare's
// matching) answer as the draft does, paths written absolute on
// CloudflareHost aside, except for what the writer reported unexpressed.
func TestCloudflareWriterRoundTrip(t *testing.T) {
	compared := 0
	norm := func(d string) string { return strings.TrimPrefix(d, "https://"+CloudflareHost) }
	for seed := uint64(0); seed < 300; seed++ {
		rng := rand.New(rand.NewPCG(seed, 61))
		s, rules := rulemodel.Project(rng, 4+rng.IntN(16))
		rules = nestPrefixes(rng, rules)
		var buf bytes.Buffer
		un, err := LookupWriter("cloudflare").Write(&buf, rules, s, nil)
		if err != nil {
			t.Fatal(err)
		}
		res, err := Read(context.Background(), bytes.NewReader(buf.Bytes()), "auto", Options{Settings: s, Hosts: []string{CloudflareHost}})
		if err != nil || res.Format != "cloudflare" {
			t.Fatalf("seed %d: reading back: %v %+v\n%s", seed, err, res, buf.String())
		}
		for _, o := range res.Lines {
			// Only a subpath /x/ after a subpath /x (read as /x and /x/) is
			// skipped, as a repeat: docs/migrate.md names the limit.
			if o.Class == Skipped && !strings.Contains(strings.Join(o.Notes, ";"), "repeats the source") {
				t.Fatalf("seed %d: line %d skipped reading back: %+v\n%s", seed, o.Line, o, buf.String())
			}
		}
		compared += checkWriterRoundTrip(t, "cloudflare", seed, rules, res.Rules, s, un, buf.String(), norm)
	}
	if compared < 3000 {
		t.Errorf("only %d answers compared", compared)
	}
}

// TestCloudflareWriterUnexpressed: a 410 and a repeated source are left
// out, a 303 is written as 302, and each is reported.
func TestCloudflareWriterUnexpressed(t *testing.T) {
	rules := []redirects.Rule{
		{ID: 1, Source: "/a", Destination: "/b", StatusCode: 301},
		{ID: 2, Source: "/gone", StatusCode: 410},
		{ID: 3, Source: "/s", Destination: "https://x.example/t?k=1", StatusCode: 303, PreserveQuery: true},
		{ID: 4, Source: "/docs/", Destination: "/d/", StatusCode: 308, MatchType: redirects.StartsWith, PreservePath: true},
		{ID: 5, Source: "/a", Destination: "/c", StatusCode: 301, MatchType: redirects.StartsWith},
	}
	var buf bytes.Buffer
	un, err := writeCloudflare(&buf, rules, redirects.Settings{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := "example.com/a,https://example.com/b,301,FALSE,FALSE,FALSE,FALSE\n" +
		"example.com/s,https://x.example/t?k=1,302,FALSE,FALSE,FALSE,FALSE\n" +
		"example.com/docs/,https://example.com/d/,308,FALSE,FALSE,TRUE,TRUE\n"
	if buf.String() != want {
		t.Errorf("file\n%s\nwant\n%s", buf.String(), want)
	}
	got := map[int64]Unexpressed{}
	for _, u := range un {
		got[u.RuleID] = u
	}
	if !got[2].Dropped || !got[5].Dropped || got[3].Dropped || !strings.Contains(got[3].Reason, "302") || len(un) != 3 {
		t.Errorf("unexpressed %+v, want 2 and 5 dropped, 3 changed", un)
	}
	// A project's first host takes the placeholder's place.
	buf.Reset()
	if _, err := writeCloudflare(&buf, rules[:1], redirects.Settings{}, []string{"www.shop.test", "shop.test"}); err != nil {
		t.Fatal(err)
	}
	if got, want := buf.String(), "www.shop.test/a,https://www.shop.test/b,301,FALSE,FALSE,FALSE,FALSE\n"; got != want {
		t.Errorf("with hosts: %q, want %q", got, want)
	}
}

// TestWritersExtended: every writer writes the literal rules of a draft
// with extended rules as it writes them alone, and each extended rule in
// its platform's syntax or listed as left out, naming what it is.
func TestWritersExtended(t *testing.T) {
	literal := []redirects.Rule{
		{ID: 1, MatchType: redirects.Exact, Source: "/old", Destination: "/new", StatusCode: 301, PreserveQuery: true},
		{ID: 2, MatchType: redirects.StartsWith, Source: "/blog/", Destination: "/news/", StatusCode: 301, PreservePath: true, PreserveQuery: true},
	}
	extended := []redirects.Rule{
		{ID: 3, MatchType: redirects.Pattern, Source: "/:lang/docs/*", Destination: "/d/:lang/:splat", StatusCode: 301, PreserveQuery: true},
		{ID: 4, MatchType: redirects.Regex, Source: `^/p/(\d+)$`, Destination: "/q/$1", StatusCode: 301},
		{ID: 5, MatchType: redirects.Exact, Source: "/shop", Destination: "/store", StatusCode: 301, Host: "old.example.com", PreserveQuery: true},
		{ID: 6, MatchType: redirects.Exact, Source: "/index.php?p=1", Destination: "/one", StatusCode: 301, PreserveQuery: true},
		{ID: 7, MatchType: redirects.Exact, Source: "/w", Destination: "/x", StatusCode: 301, Host: "*.example.org", PreserveQuery: true},
	}
	// What each writer writes of the extended rules (a line holding the
	// text), the rest left out.
	want := map[string]map[int64]string{
		"netlify":    {3: "/:lang/docs/*  /d/:lang/:splat  301!", 5: "https://old.example.com/shop  /store  301!", 6: "/index.php p=1  /one  301!"},
		"vercel":     {3: `{"source":"/:lang/docs/:splat(.*)","destination":"/d/:lang/:splat","statusCode":301}`, 5: `{"source":"/shop","has":[{"type":"host","value":"old.example.com"}],"destination":"/store","statusCode":301}`, 6: `{"source":"/index.php","has":[{"type":"query","key":"p","value":"1"}],"destination":"/one","statusCode":301}`},
		"cloudflare": {5: "old.example.com/shop,https://old.example.com/store,301,TRUE,FALSE,FALSE,FALSE"},
	}
	for _, w := range Writers() {
		var lit, got bytes.Buffer
		if _, err := w.Write(&lit, literal, redirects.Settings{}, []string{"example.com"}); err != nil {
			t.Fatal(err)
		}
		un, err := w.Write(&got, append(append([]redirects.Rule(nil), literal...), extended...), redirects.Settings{}, []string{"example.com"})
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(lit.String(), "\n") {
			if line != "" && !strings.HasPrefix(line, "#") && !strings.Contains(line, "redirects") && strings.Trim(line, "{}[], ") != "" && !strings.Contains(got.String(), strings.TrimSuffix(line, ",")) {
				t.Errorf("%s: the literal rules' line %q is not in the file with extended rules\n%s", w.Name, line, got.String())
			}
		}
		dropped := map[int64]string{}
		for _, u := range un {
			if u.Dropped {
				dropped[u.RuleID] = u.Reason
			}
		}
		for _, r := range extended {
			text, written := want[w.Name][r.ID]
			switch {
			case written && !strings.Contains(got.String(), text):
				t.Errorf("%s: rule %d: the file has no %q\n%s", w.Name, r.ID, text, got.String())
			case written && dropped[r.ID] != "":
				t.Errorf("%s: rule %d written and listed as left out: %s", w.Name, r.ID, dropped[r.ID])
			case !written && !strings.HasPrefix(dropped[r.ID], ruleKindText(&r)+": "):
				t.Errorf("%s: rule %d: left out as %q, want the reason to start with %q", w.Name, r.ID, dropped[r.ID], ruleKindText(&r))
			}
		}
	}
}
