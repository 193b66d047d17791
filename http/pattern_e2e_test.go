package http

import (
	"encoding/json"
	"fmt"
	"io"
	nethttp "net/http"
	"net/url"
	"runtime"
	"slices"
	"strings"
	"testing"

	"redirects"
	"redirects/internal/rulemodel"
)

// patternProject is a project of every kind of rule, as real files have
// them: language prefixes, versions with a constraint, a splat, a regex, a
// domain move scoped to a host and its subdomains, a CMS query condition,
// and literal rules among them, with options.
func patternProject(projectID string) []redirects.Rule {
	rule := func(mt redirects.MatchType, host, source, dest string) redirects.Rule {
		return redirects.Rule{ProjectID: projectID, MatchType: mt, Host: host, Source: source, Destination: dest, StatusCode: 301, Priority: 100}
	}
	rules := []redirects.Rule{
		rule(redirects.Exact, "", "/old", "/new"),
		rule(redirects.Exact, "shop.example.com", "/old", "/shop-new"),
		rule(redirects.Exact, "", "/index.php?p=:id", "/posts/:id"),
		rule(redirects.StartsWith, "", "/blog/", "https://blog.example.com/"),
		rule(redirects.Pattern, "", "/:lang/guide/*", "/:lang/docs/:splat"),
		rule(redirects.Pattern, "", "/docs/v:version(\\d+)/:page", "/docs/:version/:page"),
		rule(redirects.Regex, "", `/wiki/(?P<title>[A-Za-z_]+)`, "/w/${title}"),
		rule(redirects.Pattern, "old.example.org", "/*", "https://example.org/:splat"),
		rule(redirects.Pattern, "*.legacy.example", "/go/*", "/:splat"),
		rule(redirects.StartsWith, "", "/gone/", ""),
	}
	rules[3].PreservePath = true
	rules[4].PreserveQuery = true
	rules[9].StatusCode = redirects.StatusGone
	return rules
}

// TestPatternLookupOverHTTP holds the lookup API, over real HTTP on
// 127.0.0.1 on both engines, with the rules stored in a real SQLite file
// and deployed, to the brute-force model of docs/contract.md#pattern-rules
// with the rule options applied: every path of a grid on every host of a
// grid, under every setting, answers as the model does (204, or the
// destination, status and match type).
func TestPatternLookupOverHTTP(t *testing.T) {
	paths := []string{"/old", "/OLD", "/index.php?p=7", "/index.php", "/index.php?q=1&p=a%20b", "/blog/2024/x?y=1",
		"/en/guide/a/b%20c?x=1", "/fr/guide", "/docs/v7/intro", "/docs/vx/intro", "/wiki/Main_Page", "/wiki/1",
		"/any/thing", "/go//evil.example", "/go/a/b", "/gone/x", "/nothing", "/EN/Guide/x/", "/blog"}
	hosts := []string{"", "shop.example.com", "SHOP.Example.com:443", "old.example.org", "old.example.org.", "a.legacy.example", "legacy.example", "other.example"}
	for _, engine := range []string{"evhttp", "net/http"} {
		t.Run(engine, func(t *testing.T) {
			if engine == "evhttp" && runtime.GOOS != "linux" {
				t.Skip("evhttp needs Linux epoll")
			}
			f := newFixture(t, nil)
			s := f.open(engine)
			client := &nethttp.Client{}
			seen := map[string]int{}
			for _, settings := range []redirects.Settings{{}, {CaseInsensitive: true, IgnoreTrailingSlash: true}} {
				_, err := f.db.SetProjectSettings(f.ctx, f.project.ID, redirects.Settings{})
				f.ok(err)
				_, err = f.db.ImportRules(f.ctx, f.project.ID, slices.Clone(patternProject(f.project.ID)), true)
				f.ok(err)
				_, err = f.db.SetProjectSettings(f.ctx, f.project.ID, settings)
				f.ok(err)
				version := f.deploy()
				stored, err := f.db.FindRules(f.ctx, f.project.ID)
				f.ok(err)
				for _, host := range hosts {
					for _, wire := range paths {
						want, wok := rulemodel.LookupRules(stored, rulemodel.Of(settings), host, wire)
						u := fmt.Sprintf("http://%s/v1/lookup?project=%s&version=%d&path=%s", s.Addr(), f.project.ID, version, url.QueryEscape(wire))
						if host != "" {
							u += "&host=" + url.QueryEscape(host)
						}
						req, _ := nethttp.NewRequest("GET", u, nil)
						req.Header.Set("X-API-Key", f.secret)
						resp, err := client.Do(req)
						f.ok(err)
						body, _ := io.ReadAll(resp.Body)
						resp.Body.Close()
						switch {
						case !wok && resp.StatusCode != 204:
							t.Fatalf("settings %v, host %q, path %q: %d %s, the model answers 204", settings, host, wire, resp.StatusCode, body)
						case wok && resp.StatusCode != 200:
							t.Fatalf("settings %v, host %q, path %q: %d %s, the model answers %+v (rule %+v)", settings, host, wire, resp.StatusCode, body, want, stored[want.Rule])
						case !wok:
							seen["miss"]++
							continue
						}
						var got struct {
							Destination string `json:"destination"`
							StatusCode  int    `json:"statusCode"`
							MatchType   string `json:"matchType"`
						}
						f.ok(json.Unmarshal(body, &got))
						r := stored[want.Rule]
						if got.Destination != want.Destination || got.StatusCode != want.Status || got.MatchType != r.MatchType.String() {
							t.Fatalf("settings %v, host %q, path %q: %+v, the model answers %q %d (rule %+v)", settings, host, wire, got, want.Destination, want.Status, r)
						}
						seen[r.MatchType.String()]++
						if r.Host != "" {
							seen["host"]++
						}
						if strings.Contains(r.Source, "?") {
							seen["conditions"]++
						}
					}
				}
			}
			for _, k := range []string{"exact", "starts_with", "pattern", "regex", "host", "conditions", "miss"} {
				if seen[k] == 0 {
					t.Errorf("no lookup was answered by %s (%v)", k, seen)
				}
			}
		})
	}
}

// TestHandlePatternLookupAllocs: a lookup with a host answered by a
// host-scoped pattern rule with a splat renders its expanded answer into
// the connection's scratch buffer and allocates nothing, hit counted.
func TestHandlePatternLookupAllocs(t *testing.T) {
	f := newFixture(t, nil)
	f.ok(f.db.AddRule(f.ctx, &redirects.Rule{ProjectID: f.project.ID, Source: "/:lang/guide/*", Destination: "https://docs.example.com/:lang/:splat",
		StatusCode: 301, MatchType: redirects.Pattern, Host: "www.example.com"}))
	f.deploy()
	f.refresh()
	q := Req{Method: "GET", Path: "/v1/lookup", RawQuery: f.lookupQuery("/en/guide/a/b") + "&host=WWW.example.com", APIKey: f.secret, Ctx: f.ctx}
	want := `{"destination":"https://docs.example.com/en/a/b","statusCode":301,"matchType":"pattern"}`
	scratch := make([]byte, 0, 512)
	var w Resp
	allocs := testing.AllocsPerRun(1000, func() {
		w = Resp{Scratch: scratch}
		if slow := f.edge.Handle(&q, &w); slow != nil || w.Status != 200 {
			t.Fatalf("lookup hit: slow path %v, status %d", slow != nil, w.Status)
		}
	})
	if string(w.Body) != want {
		t.Fatalf("body %s, want %s", w.Body, want)
	}
	if allocs != 0 {
		t.Errorf("%v allocations per pattern lookup", allocs)
	}
}
