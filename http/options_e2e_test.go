package http

import (
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	nethttp "net/http"
	"net/url"
	"runtime"
	"slices"
	"testing"

	"redirects"
	"redirects/internal/rulemodel"
)

// TestLookupOptionsOverHTTP holds the lookup API, over real HTTP on
// 127.0.0.1 on both engines, to the brute-force model of
// docs/contract.md#rule-options: random projects (every setting, option
// and status) stored in a real SQLite file and deployed, random paths with
// and without queries, in other case, with and without a trailing slash.
// Each round asks its own version with version=N, so it also holds that a
// version answers with the settings it was deployed with.
func TestLookupOptionsOverHTTP(t *testing.T) {
	for _, engine := range []string{"evhttp", "net/http"} {
		t.Run(engine, func(t *testing.T) {
			if engine == "evhttp" && runtime.GOOS != "linux" {
				t.Skip("evhttp needs Linux epoll")
			}
			f := newFixture(t, nil)
			s := f.open(engine)
			client := &nethttp.Client{}
			rng := rand.New(rand.NewPCG(26, uint64(len(engine))))
			asked, matched, merged, excepted := 0, 0, 0, 0
			for round := 0; round < 12; round++ {
				settings, rules := rulemodel.Project(rng, 1+rng.IntN(40))
				// queryAfterFragment from draws of its own, so that the
				// projects' other draws stay as they were.
				rulemodel.WithQueryAfterFragment(rand.New(rand.NewPCG(uint64(round), 31)), rules)
				// mergeQuery likewise, on every other round, with requests
				// that carry the names its destinations hold.
				merge := round%2 == 1
				if merge {
					rulemodel.WithMergeQuery(rand.New(rand.NewPCG(uint64(round), 37)), rules)
				}
				// exceptHosts and the lookups' hosts likewise.
				hostRng := rand.New(rand.NewPCG(uint64(round), 43))
				for i := range rules {
					if hostRng.IntN(4) == 0 {
						rules[i].ExceptHosts = [][]string{{"example.com"}, {"*.example.org", "example.net"}}[hostRng.IntN(2)]
					}
				}
				_, err := f.db.SetProjectSettings(f.ctx, f.project.ID, redirects.Settings{})
				f.ok(err)
				_, err = f.db.ImportRules(f.ctx, f.project.ID, slices.Clone(rules), true)
				f.ok(err)
				_, err = f.db.SetProjectSettings(f.ctx, f.project.ID, settings)
				f.ok(err)
				version := f.deploy()
				// The model answers from the rules as stored: their IDs and
				// times break ties as the engine's do.
				stored, err := f.db.FindRules(f.ctx, f.project.ID)
				f.ok(err)
				paths := rulemodel.Paths(rng, stored, 80)
				if merge {
					paths = append(paths, rulemodel.MergePaths(rand.New(rand.NewPCG(uint64(round), 41)), stored, 80)...)
				}
				for _, wire := range paths {
					host := []string{"", "example.com", "a.example.org", "example.net", "other.example"}[hostRng.IntN(5)]
					want, wok := rulemodel.Lookup(stored, rulemodel.Of(settings), wire)
					if a, ok := rulemodel.LookupRules(stored, rulemodel.Of(settings), host, wire); ok != wok || ok && a.Rule != want.Rule {
						// An excepted host: the model of every kind says
						// which rule answers instead.
						excepted++
						want, wok = a, ok
					}
					u := fmt.Sprintf("http://%s/v1/lookup?project=%s&version=%d&path=%s&host=%s", s.Addr(), f.project.ID, version, url.QueryEscape(wire), url.QueryEscape(host))
					req, _ := nethttp.NewRequest("GET", u, nil)
					req.Header.Set("X-API-Key", f.secret)
					resp, err := client.Do(req)
					f.ok(err)
					body, _ := io.ReadAll(resp.Body)
					resp.Body.Close()
					asked++
					switch {
					case !wok && resp.StatusCode != 204:
						t.Fatalf("settings %v, path %q: %d %s, the model answers 204", settings, wire, resp.StatusCode, body)
					case wok && resp.StatusCode != 200:
						t.Fatalf("settings %v, path %q: %d, the model answers %+v (rule %+v)", settings, wire, resp.StatusCode, want, stored[want.Rule])
					case !wok:
						continue
					}
					matched++
					if stored[want.Rule].MergeQuery && redirects.RequestQuery(wire) != "" {
						merged++
					}
					var got struct {
						Destination string `json:"destination"`
						StatusCode  int    `json:"statusCode"`
						MatchType   string `json:"matchType"`
					}
					if err := json.Unmarshal(body, &got); err != nil {
						t.Fatalf("path %q: body %q: %v", wire, body, err)
					}
					if got.Destination != want.Destination || got.StatusCode != want.Status || got.MatchType != stored[want.Rule].MatchType.String() {
						t.Fatalf("settings %v, path %q: %+v, the model answers %q %d (rule %+v)", settings, wire, got, want.Destination, want.Status, stored[want.Rule])
					}
				}
			}
			if merged == 0 {
				t.Fatalf("no lookup with a query was answered by a mergeQuery rule")
			}
			if matched < asked/3 {
				t.Fatalf("only %d of %d lookups matched: the generator does not exercise the rules", matched, asked)
			}
			if excepted == 0 {
				t.Fatalf("no lookup was on a host a rule's exceptHosts leaves out: the generator does not exercise them")
			}
		})
	}
}

// TestHandleComputedLookupAllocs: a lookup answered by a rule with every
// option, under every non-default setting, renders its computed answer into
// the connection's scratch buffer (as evhttp hands it over) and allocates
// nothing, hit counted. (A path parameter that holds an escape, as a
// forwarded query's '?' must, costs its decoding's one allocation, for
// every rule alike, as before options existed.)
func TestHandleComputedLookupAllocs(t *testing.T) {
	f := newFixture(t, nil)
	f.ok(f.db.AddRule(f.ctx, &redirects.Rule{ProjectID: f.project.ID, Source: "/Docs", Destination: "https://ex.com/d?x=1#top",
		StatusCode: 308, MatchType: redirects.StartsWith, PreservePath: true, PreserveQuery: true}))
	_, err := f.db.SetProjectSettings(f.ctx, f.project.ID, redirects.Settings{CaseInsensitive: true, IgnoreTrailingSlash: true})
	f.ok(err)
	f.deploy()
	f.refresh()
	q := Req{Method: "GET", Path: "/v1/lookup", RawQuery: f.lookupQuery("/docs/a/b"), APIKey: f.secret, Ctx: f.ctx}
	want := `{"destination":"https://ex.com/d/a/b?x=1#top","statusCode":308,"matchType":"starts_with"}`
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
		t.Errorf("%v allocations per computed lookup", allocs)
	}
}
