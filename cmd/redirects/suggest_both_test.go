package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"redirects"
	"redirects/api"
)

// TestSuggestBoth runs the suggest commands with --db and through the
// management API (--api) on the same data and requires the same output:
// computing from misses, a draft and a sitemap file (gzip not needed
// here: the reader's own tests cover it), listing, accepting (the rule
// lands in the draft), dismissing (not proposed again), and the errors
// of a bad limit, an unknown ID, a closed suggestion, a missing sitemap
// file and a sitemap URL on a loopback address (refused by the webhooks'
// rule on both sides: the server fetches it through --api).
func TestSuggestBoth(t *testing.T) {
	b := newBothSides(t)
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	b.store(func(s redirects.Store, p string) {
		for _, r := range []redirects.Rule{
			{ProjectID: p, Source: "/Docs/Intro", Destination: "/guide/intro", StatusCode: 301},
			{ProjectID: p, Source: "/old/a.html", Destination: "/new/a", StatusCode: 308},
			{ProjectID: p, Source: "/old/b.html", Destination: "/new/b", StatusCode: 308},
		} {
			if err := s.AddRule(context.Background(), &r); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.AddMisses(context.Background(), []redirects.Miss{
			{ProjectID: p, Path: "/docs/intro", Count: 9, FirstSeen: t0, LastSeen: t0},
			{ProjectID: p, Path: "/old/c.html", Count: 5, FirstSeen: t0, LastSeen: t0},
			{ProjectID: p, Path: "/blog/2019/hello-world.html", Count: 3, FirstSeen: t0, LastSeen: t0},
		}); err != nil {
			t.Fatal(err)
		}
	})
	sitemap := filepath.Join(t.TempDir(), "sitemap.xml")
	if err := os.WriteFile(sitemap, []byte(`<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
<url><loc>https://new.example.com/posts/hello-world/</loc></url><url><loc>https://new.example.com/about/</loc></url></urlset>`), 0o600); err != nil {
		t.Fatal(err)
	}
	out, _ := b.run("suggest", "--project", "P", "--sitemap", sitemap)
	wantLine(t, "suggest", out, `ID +STATE +CONFIDENCE +KIND +MISSES +HOST +PATH +DESTINATION +STATUS +WHY`)
	wantLine(t, "suggest", out, `sg_[0-9a-f]{16} +open +95 +case +9 +- +/docs/intro +/guide/intro +301 +the rule /Docs/Intro differs only in case; the setting caseInsensitive would answer it too`)
	wantLine(t, "suggest", out, `sg_[0-9a-f]{16} +open +\d+ +prefix +5 +- +/old/c.html +/new/c +308 +2 of the 2 rules under /old/ send their paths to /new/…`)
	wantLine(t, "suggest", out, `sg_[0-9a-f]{16} +open +\d+ +sitemap +3 +- +/blog/2019/hello-world.html +https://new.example.com/posts/hello-world/ +301 +the sitemap's page whose slug and words match best \(score 0\.\d\d\)`)

	out, _ = b.run("suggest", "--project", "P", "--json")
	var got api.Suggestions
	if err := json.Unmarshal([]byte(out), &got); err != nil || len(got.Suggestions) != 2 {
		t.Fatalf("suggest --json without the sitemap: %v\n%s", err, out)
	}
	ids := map[string]string{}
	for _, g := range got.Suggestions {
		ids[g.Path] = g.ID
	}
	out, _ = b.run("suggest", "accept", "--project", "P", "--id", ids["/docs/intro"])
	wantHas(t, "accept", out, "accepted "+ids["/docs/intro"]+": /docs/intro -> /guide/intro (301) is in the draft; deploy to make it live")
	out, _ = b.run("rule", "list", "--project", "P")
	wantLine(t, "the draft after accept", out, `\d+ +exact +0 +301 +/docs/intro +/guide/intro +-`)
	_, errs := b.run("suggest", "accept", "--project", "P", "--id", ids["/docs/intro"])
	wantHas(t, "accept again", errs, "is accepted already")
	out, _ = b.run("suggest", "dismiss", "--project", "P", "--id", ids["/old/c.html"])
	wantHas(t, "dismiss", out, "dismissed "+ids["/old/c.html"])
	out, _ = b.run("suggest", "--project", "P")
	wantHasNot(t, "suggest after dismissing", out, "/old/c.html")
	out, _ = b.run("suggest", "list", "--project", "P", "--json")
	if !strings.Contains(out, `"state": "dismissed"`) || !strings.Contains(out, `"state": "accepted"`) {
		t.Errorf("suggest list --json: want the accepted and the dismissed one:\n%s", out)
	}
	_, errs = b.run("suggest", "--project", "P", "--limit", "0")
	wantHas(t, "a bad limit", errs, "--limit 0 is out of range: give 1 to 1000")
	_, errs = b.run("suggest", "dismiss", "--project", "P", "--id", "sg_0000000000000000")
	wantHas(t, "an unknown ID", errs, "suggestion sg_0000000000000000 not found")
	_, errs = b.run("suggest", "--project", "P", "--sitemap", filepath.Join(t.TempDir(), "none.xml"))
	wantHas(t, "a missing file", errs, "--sitemap: open")
	_, errs = b.run("suggest", "--project", "P", "--sitemap", b.api+"/sitemap.xml")
	wantHas(t, "a loopback sitemap URL", errs, "refused: not a public address")
}
