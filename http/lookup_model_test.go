package http

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	nethttp "net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"pgregory.net/rapid"

	"redirects"
	"redirects/export"
	"redirects/inmem"
	"redirects/internal/rulegen"
	"redirects/internal/rulemodel"
	"redirects/internal/testreport"
	"redirects/postgres"
	"redirects/service"
	"redirects/sqlite"
)

// modelStore is what the model test needs of a store: the store, what a
// deploy writes through, and what the edge and its limiter read.
type modelStore interface {
	redirects.Store
	redirects.DeployStore
	Store
	inmem.UsageStore
}

// TestLookupMatchesModelOverHTTP is the property test of the lookup API
// end to end: random projects mixing every kind of rule, host, query
// condition, option, status and setting (rulegen.AnyKind) are stored
// through the real store (SQLite in a temporary directory; PostgreSQL in
// a database of its own when REDIRECTS_TEST_POSTGRES is set), deployed
// through the deploy service, and asked over real HTTP on 127.0.0.1
// GET /v1/lookup with sampled requests (each rule's source with sample
// values, a query, a slash added or removed, case changed, on the rule's
// host, another host or none, and misses). Every answer is the model's of
// docs/contract.md#pattern-rules (internal/rulemodel.LookupRules): 204, or
// 200 with its destination, status and match type. One server per HTTP
// engine and store, asked in turn; each check is a new project with a key
// of its own. rapid's 100 checks (-rapid.checks) take a few seconds per
// store; a cap of our own inside the check would make a failure found
// late impossible to shrink.
func TestLookupMatchesModelOverHTTP(t *testing.T) {
	for _, c := range []struct {
		name string
		open func(t *testing.T) (modelStore, redirects.Notifier)
	}{{"sqlite", openModelSQLite}, {"postgres", openModelPostgres}} {
		t.Run(c.name, func(t *testing.T) {
			ctx := context.Background()
			db, notices := c.open(t)
			org := &redirects.Org{Name: "acme", Tier: redirects.TierEnterprise}
			if err := db.CreateOrg(ctx, org); err != nil {
				t.Fatal(err)
			}
			limiter, err := inmem.NewLimiter(ctx, db, redirects.SystemClock{}.Now())
			if err != nil {
				t.Fatal(err)
			}
			// SQLite's edge polls the store's events, here every 10 ms;
			// PostgreSQL's follows its notices, as the binary's does.
			refresh := 10 * time.Millisecond
			if notices != nil {
				refresh = 0
			}
			var servers []*Server
			for _, engine := range []string{"evhttp", "net/http"} {
				if engine == "evhttp" && runtime.GOOS != "linux" {
					continue // evhttp needs Linux epoll
				}
				s, err := Open(ctx, Config{
					Addr: "127.0.0.1:0", Engine: engine, RefreshInterval: refresh,
					Clock: redirects.SystemClock{}, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
					Connect: func(context.Context) (*Backend, error) {
						return &Backend{Store: db, Notifier: notices, Limiter: limiter, Usage: limiter}, nil
					},
				})
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() {
					ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
					defer cancel()
					if err := s.Close(ctx); err != nil {
						t.Errorf("Close %s: %v", engine, err)
					}
				})
				servers = append(servers, s)
			}
			client := &nethttp.Client{Timeout: 10 * time.Second}
			seen := map[string]int{}
			checks := 0
			rapid.Check(t, func(rt *rapid.T) {
				checks++
				st := redirects.Settings{CaseInsensitive: rapid.Bool().Draw(rt, "ci"), IgnoreTrailingSlash: rapid.Bool().Draw(rt, "ignoreSlash")}
				rules := modelRules(rt, st)
				p := &redirects.Project{OrgID: org.ID, Name: fmt.Sprintf("p%d", checks)}
				if err := db.CreateProject(ctx, p); err != nil {
					rt.Fatal(err)
				}
				if _, err := db.SetProjectSettings(ctx, p.ID, st); err != nil {
					rt.Fatal(err)
				}
				for i := range rules {
					rules[i].ProjectID = p.ID
				}
				if _, err := db.ImportRules(ctx, p.ID, rules, true); err != nil {
					rt.Fatalf("ImportRules refused generated rules: %v\n%+v", err, rules)
				}
				k, secret := redirects.NewKey(p.ID, "", false, redirects.SystemClock{}.Now())
				if err := db.CreateKey(ctx, k); err != nil {
					rt.Fatal(err)
				}
				if _, err := service.DeployUnchecked(ctx, db, p.ID, redirects.DeployOptions{}, export.Build); err != nil {
					rt.Fatalf("deploy: %v", err)
				}
				stored, err := db.FindRules(ctx, p.ID)
				if err != nil {
					rt.Fatal(err)
				}
				if len(stored) != len(rules) {
					rt.Fatalf("%d rules stored of %d imported", len(stored), len(rules))
				}
				get := func(s *Server, host, wire string) (int, []byte) {
					u := fmt.Sprintf("http://%s/v1/lookup?project=%s&path=%s", s.Addr(), p.ID, url.QueryEscape(wire))
					if host != "" {
						u += "&host=" + url.QueryEscape(host)
					}
					req, _ := nethttp.NewRequest("GET", u, nil)
					req.Header.Set("X-API-Key", secret)
					resp, err := client.Do(req)
					if err != nil {
						rt.Fatal(err)
					}
					defer resp.Body.Close()
					body, err := io.ReadAll(resp.Body)
					if err != nil {
						rt.Fatal(err)
					}
					if ct := resp.Header.Get("Content-Type"); resp.StatusCode == 200 && ct != ctJSON {
						rt.Fatalf("host %q, path %q: Content-Type %q, want %q", host, wire, ct, ctJSON)
					}
					return resp.StatusCode, body
				}
				// The edge learns of the new key and version by polling
				// the store's events.
				for _, s := range servers {
					for deadline := time.Now().Add(10 * time.Second); ; {
						code, body := get(s, "", "/")
						if code == 200 || code == 204 {
							break
						}
						if time.Now().After(deadline) {
							rt.Fatalf("the edge does not answer the new project: %d %s", code, body)
						}
						time.Sleep(5 * time.Millisecond)
					}
				}
				for i, q := range modelRequests(rt, stored) {
					// Each request is asked of one engine, in turn.
					code, body := get(servers[i%len(servers)], q.host, q.wire)
					want, wok := rulemodel.LookupRules(stored, rulemodel.Of(st), q.host, q.wire)
					switch {
					case !wok && (code != 204 || len(body) != 0):
						rt.Fatalf("settings %v, host %q, path %q: %d %s, the model answers 204", st, q.host, q.wire, code, body)
					case wok && code != 200:
						rt.Fatalf("settings %v, host %q, path %q: %d %s, the model answers %+v (rule %+v)", st, q.host, q.wire, code, body, want, stored[want.Rule])
					case !wok:
						seen["miss"]++
						continue
					}
					var got struct {
						Destination string `json:"destination"`
						StatusCode  int    `json:"statusCode"`
						MatchType   string `json:"matchType"`
					}
					dec := json.NewDecoder(strings.NewReader(string(body)))
					dec.DisallowUnknownFields()
					if err := dec.Decode(&got); err != nil {
						rt.Fatalf("host %q, path %q: the body %s: %v", q.host, q.wire, body, err)
					}
					r := stored[want.Rule]
					if got.Destination != want.Destination || got.StatusCode != want.Status || got.MatchType != r.MatchType.String() {
						rt.Fatalf("settings %v, host %q, path %q: %s, the model answers %q %d %s (rule %+v)",
							st, q.host, q.wire, body, want.Destination, want.Status, r.MatchType, r)
					}
					seen[r.MatchType.String()]++
					if r.Host != "" {
						seen["host"]++
					}
					if strings.Contains(r.Source, "?") {
						seen["conditions"]++
					}
					if want.Destination != r.Destination {
						seen["computed"]++
					}
				}
			})
			t.Logf("%d projects, answers by what they exercised: %v", checks, seen)
			for _, k := range []string{"exact", "starts_with", "pattern", "regex", "host", "conditions", "computed", "miss"} {
				if seen[k] == 0 {
					t.Errorf("no lookup was answered by %s: the generators stopped exercising it (%v)", k, seen)
				}
			}
		})
	}
}

// TestLookupHostParameterOverHTTP: over real HTTP, a repeated, badly
// escaped or malformed host parameter is 400 INVALID_QUERY naming host.
func TestLookupHostParameterOverHTTP(t *testing.T) {
	f := newFixture(t, nil)
	s := f.open("net/http")
	for _, c := range []struct {
		host string
		want *apiError
	}{
		{"&host=a.example&host=b.example", errRepeatedHost},
		{"&host=&host=a.example", errRepeatedHost},
		{"&host=a.example&host=a.example", errRepeatedHost},
		{"&host=%zz", errHostEscape},
		{"&host=*.example.com", errInvalidHost},
		{"&host=a_b.example", errInvalidHost},
		{"&host=a..example", errInvalidHost},
		{"&host=a.example:http", errInvalidHost},
		{"&host=%5B%3A%3A1%5D", errInvalidHost},
	} {
		req, _ := nethttp.NewRequest("GET", "http://"+s.Addr()+"/v1/lookup?"+f.lookupQuery("/a")+c.host, nil)
		req.Header.Set("X-API-Key", f.secret)
		resp, err := nethttp.DefaultClient.Do(req)
		f.ok(err)
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != c.want.status || string(body) != string(c.want.body) {
			t.Errorf("%s: %d %s, want %d %s", c.host, resp.StatusCode, body, c.want.status, c.want.body)
		}
		if !strings.Contains(string(body), "INVALID_QUERY") || !strings.Contains(string(body), "host") {
			t.Errorf("%s: %s does not name INVALID_QUERY and host", c.host, body)
		}
	}
}

// modelRules draws a project's rules: rulegen.AnyKind's, as validation
// keeps them, one per key (docs/contract.md#keys) under st.
func modelRules(t *rapid.T, st redirects.Settings) []redirects.Rule {
	drawn := rapid.SliceOfN(rulegen.AnyKind(), 0, 20).Draw(t, "rules")
	seen := map[string]bool{}
	var rules []redirects.Rule
	for _, r := range drawn {
		if r.Validate() != nil {
			continue
		}
		src := r.Source
		if r.MatchType.Literal() {
			path, q, _ := strings.Cut(src, "?")
			src = st.Key(path) + "?" + q
		}
		if k := fmt.Sprintf("%v\x00%s\x00%s", r.MatchType, r.Host, src); !seen[k] {
			seen[k] = true
			rules = append(rules, r)
		}
	}
	return rules
}

type modelRequest struct{ host, wire string }

var (
	// modelToken is a pattern's capturing piece, with its constraint and
	// modifier, or its splat.
	modelToken  = regexp.MustCompile(`:[A-Za-z_][A-Za-z0-9_]*(\([^)]*\))?[?+]?|\*`)
	modelValues = []string{"en", "2024", "x", "a,b", "café", "v6", "12", "Docs"}
	// modelRegexes are paths of the shapes of rulegen's regexes, by a
	// piece of the regex they are for; some match it, some not.
	modelRegexes = []struct {
		piece string
		paths []string
	}{
		{"/p/", []string{"/p/42", "/p/x", "/p/7/"}}, {"(en|fr)", []string{"/en/page", "/fr/Page/", "/de/page"}},
		{"/n/", []string{"/n/123", "/n/1234", "/n/"}}, {"/guide/", []string{"/guide/Intro", "/GUIDE/x/y", "/guide/"}},
		{"/x/", []string{"/x/abc", "/x/", "/x/ABC/d"}},
	}
	modelParams = []string{"p=123", "p=12%33", "id=7", "id=a%20b", "flag", "empty=", "a+b=c%20d", "a%20b=c+d", "x=2"}
	modelOther  = []string{"", "other.example", "example.com", "A.Example.ORG", "bücher.example", "xn--bcher-kva.example", "example.com.:443"}
)

// modelRequests draws the requests asked of a project: for each rule, its
// source with sample values (a regex's: paths of the shapes rulegen's
// regexes take), perhaps with its conditions met and other parameters, a
// slash added or removed, its case changed, on its host in another form,
// on another host or none; then a few misses.
func modelRequests(t *rapid.T, rules []redirects.Rule) []modelRequest {
	var out []modelRequest
	for _, r := range rules {
		for n := rapid.IntRange(1, 2).Draw(t, "asks"); n > 0; n-- {
			path, query := r.Source, ""
			for i := 0; i+1 < len(path); i++ {
				// A condition's '?', not an optional piece's (":cat?/").
				if path[i] == '?' && path[i+1] != '/' {
					path, query = path[:i], path[i+1:]
					break
				}
			}
			if r.MatchType == redirects.Regex {
				var samples []string
				for _, re := range modelRegexes {
					if strings.Contains(r.Source, re.piece) == (rapid.IntRange(0, 5).Draw(t, "otherShape") > 0) {
						samples = append(samples, re.paths...)
					}
				}
				if len(samples) == 0 {
					samples = []string{"/p/42", "/en/page"}
				}
				path, query = rapid.SampledFrom(samples).Draw(t, "regexPath"), r.Source
			}
			if r.MatchType == redirects.Pattern {
				var segs []string
				for _, seg := range strings.Split(path, "/") {
					if strings.HasSuffix(seg, "?") && modelToken.FindString(seg) == seg && rapid.Bool().Draw(t, "absent") {
						continue
					}
					segs = append(segs, modelToken.ReplaceAllStringFunc(seg, func(tok string) string {
						v := rapid.SampledFrom(modelValues).Draw(t, "value")
						if (tok == "*" || strings.HasSuffix(tok, "+")) && rapid.Bool().Draw(t, "deeper") {
							v += "/" + rapid.SampledFrom(modelValues).Draw(t, "value")
						}
						return v
					}))
				}
				path = strings.Join(segs, "/")
			}
			if r.MatchType == redirects.StartsWith && rapid.Bool().Draw(t, "longer") {
				path = strings.TrimSuffix(path, "/") + "/" + rapid.SampledFrom(modelValues).Draw(t, "rest")
			}
			switch rapid.IntRange(0, 3).Draw(t, "slash") {
			case 0:
				path += "/"
			case 1:
				if len(path) > 1 {
					path = strings.TrimSuffix(path, "/")
				}
			}
			switch rapid.IntRange(0, 5).Draw(t, "case") {
			case 0:
				path = strings.ToUpper(path)
			case 1:
				path = strings.ToLower(path)
			}
			var params []string
			for _, c := range []string{"p=123", "id=:qid", "flag", "empty=", "a+b=c%20d"} {
				if strings.Contains(query, c) && rapid.IntRange(0, 4).Draw(t, "meet") > 0 {
					params = append(params, strings.Replace(c, ":qid", rapid.SampledFrom([]string{"7", "a%20b", ""}).Draw(t, "qid"), 1))
				}
			}
			params = append(params, rapid.SliceOfN(rapid.SampledFrom(modelParams), 0, 2).Draw(t, "params")...)
			wire := rulemodel.Escape(path, false)
			if len(params) > 0 {
				wire += "?" + strings.Join(params, "&")
			}
			out = append(out, modelRequest{modelHost(t, r.Host), wire})
		}
	}
	for n := rapid.IntRange(1, 3).Draw(t, "misses"); n > 0; n-- {
		out = append(out, modelRequest{rapid.SampledFrom(modelOther).Draw(t, "missHost"),
			"/nothing/" + rulemodel.Escape(rapid.SampledFrom(modelValues).Draw(t, "missWord"), false)})
	}
	return out
}

// modelHost draws a host to ask a rule on: mostly its own (a name under a
// wildcard, the bare parent, in other case, with a port or a trailing
// dot), else another or none.
func modelHost(t *rapid.T, rule string) string {
	if rule == "" || rapid.IntRange(0, 3).Draw(t, "ownHost") == 0 {
		return rapid.SampledFrom(modelOther).Draw(t, "otherHost")
	}
	h := rule
	if rest, ok := strings.CutPrefix(h, "*."); ok {
		h = rapid.SampledFrom([]string{"a." + rest, "b.a." + rest, rest}).Draw(t, "underWildcard")
	}
	switch rapid.IntRange(0, 4).Draw(t, "hostForm") {
	case 0:
		h = strings.ToUpper(h)
	case 1:
		h += ":8443"
	case 2:
		h += "."
	}
	return h
}

func openModelSQLite(t *testing.T) (modelStore, redirects.Notifier) {
	db, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "redirects.db"))
	if err != nil {
		t.Fatalf("opening the store: %v", err)
	}
	t.Cleanup(func() { db.Close() })
	return db, nil
}

// openModelPostgres opens a store in a new database of the server
// REDIRECTS_TEST_POSTGRES names, dropped when the test ends.
func openModelPostgres(t *testing.T) (modelStore, redirects.Notifier) {
	admin := os.Getenv("REDIRECTS_TEST_POSTGRES")
	if admin == "" {
		testreport.Skip(t, testreport.Postgres, "REDIRECTS_TEST_POSTGRES is not set; run with REDIRECTS_TEST_POSTGRES='postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable' go test -run LookupMatchesModel ./http")
	}
	testreport.Ran(t, testreport.Postgres)
	b := make([]byte, 6)
	rand.Read(b)
	name := "redirects_http_" + hex.EncodeToString(b)
	exec := func(sql string) error {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		conn, err := pgx.Connect(ctx, admin)
		if err != nil {
			return err
		}
		defer conn.Close(ctx)
		_, err = conn.Exec(ctx, sql)
		return err
	}
	if err := exec("CREATE DATABASE " + name); err != nil {
		t.Fatalf("create the test database: %v", err)
	}
	t.Cleanup(func() {
		if err := exec("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)"); err != nil {
			t.Errorf("drop the test database %s: %v", name, err)
		}
	})
	u, err := url.Parse(admin)
	if err != nil {
		t.Fatalf("REDIRECTS_TEST_POSTGRES: %v", err)
	}
	u.Path = "/" + name
	db, err := postgres.Open(context.Background(), u.String())
	if err != nil {
		t.Fatalf("postgres.Open: %v", err)
	}
	t.Cleanup(func() { db.Close() })
	return db, db
}
