package upgrade

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	nethttp "net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"redirects"
	"redirects/export"
	"redirects/http"
	"redirects/inmem"
)

// store is what the answers read: the methods of every store that a
// fixture's state shows.
type store interface {
	redirects.Store
	redirects.AccountStore
	redirects.AgentStore
}

// Fixture is what a fixture's JSON file records beside its answers: the
// secrets of its keys, which the database keeps only as hashes.
type Fixture struct {
	// Keys holds, by project ID, the secrets of a live, a test and a
	// revoked key of the project.
	Keys map[string]Secrets
	// Period is the month ("2006-01") whose usage the fixture records.
	Period string
	Answers
}

// Secrets are the secrets of a project's keys.
type Secrets struct{ Live, Test, Revoked string }

// Answers is what a store and an edge answered from a fixture.
type Answers struct {
	Orgs     []*redirects.Org
	Projects []ProjectAnswers
	Events   []redirects.Event
	Usage    map[string]int64
	Users    []*redirects.User
	Audit    []*redirects.AuditEntry
	PerOrg   []OrgAnswers
}

// OrgAnswers is what is kept per organization.
type OrgAnswers struct {
	OrgID      string
	DailyUsage []redirects.DailyUsage
	Members    []*redirects.Membership
	Tokens     []*redirects.ManagementToken
}

// ProjectAnswers is what is kept per project.
type ProjectAnswers struct {
	Project     *redirects.Project
	Tests       string
	Rules       []redirects.Rule
	RulePage    *redirects.RulePage
	Keys        []*redirects.Key
	Deployments []*redirects.Deployment
	Versions    []VersionAnswers
	Hits        []redirects.RuleHits
	Misses      []redirects.Miss
	// Edge holds the edge's answers, one line per request.
	Edge []string
}

// VersionAnswers is what the store answers of one deployed version.
type VersionAnswers struct {
	Deployment *redirects.Deployment
	Rules      []redirects.Rule
	// Exports holds, per format, the SHA-256 of the body and the ETag as
	// the store keeps them, or "pruned".
	Exports map[string]string
}

// collect reads every answer of s, and of an edge serving s over HTTP on
// 127.0.0.1 with the keys of f.
func collect(t *testing.T, s store, f *Fixture) Answers {
	t.Helper()
	ctx := context.Background()
	var a Answers
	var err error
	must := func(what string, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	a.Orgs, err = s.FindOrgs(ctx)
	must("FindOrgs", err)
	a.Events, err = s.FindEvents(ctx, 0, 10000)
	must("FindEvents", err)
	a.Usage, err = s.FindUsage(ctx, f.Period)
	must("FindUsage", err)
	a.Users, err = s.FindUsers(ctx)
	must("FindUsers", err)
	a.Audit, err = s.FindAudit(ctx, redirects.AuditFilter{Limit: redirects.MaxAuditLimit})
	must("FindAudit", err)
	for _, o := range a.Orgs {
		oa := OrgAnswers{OrgID: o.ID}
		oa.DailyUsage, err = s.FindDailyUsage(ctx, o.ID, f.Period)
		must("FindDailyUsage", err)
		oa.Members, err = s.FindMembers(ctx, o.ID)
		must("FindMembers", err)
		oa.Tokens, err = s.FindTokens(ctx, o.ID)
		must("FindTokens", err)
		a.PerOrg = append(a.PerOrg, oa)
	}
	projects, err := s.FindProjects(ctx, "")
	must("FindProjects", err)
	edge := startEdge(t, s)
	defer edge.close()
	for _, p := range projects {
		pa := ProjectAnswers{Project: p}
		pa.Tests, err = s.FindProjectTests(ctx, p.ID)
		must("FindProjectTests", err)
		pa.Rules, err = s.FindRules(ctx, p.ID)
		must("FindRules", err)
		pa.RulePage, err = s.FindRulePage(ctx, p.ID, redirects.RulePageQuery{Limit: 1000})
		must("FindRulePage", err)
		pa.Keys, err = s.FindKeys(ctx, p.ID)
		must("FindKeys", err)
		pa.Deployments, err = s.FindDeployments(ctx, p.ID)
		must("FindDeployments", err)
		pa.Hits, err = s.FindHits(ctx, p.ID, nil)
		must("FindHits", err)
		pa.Misses, err = s.FindMisses(ctx, p.ID, 1000)
		must("FindMisses", err)
		var paths []string
		for _, d := range pa.Deployments {
			va := VersionAnswers{Exports: map[string]string{}}
			va.Deployment, va.Rules, err = s.FindDeployment(ctx, p.ID, d.Version)
			must("FindDeployment", err)
			for _, format := range redirects.Formats {
				_, e, err := s.FindExport(ctx, p.ID, d.Version, format)
				switch {
				case redirects.IsExportsPruned(err):
					va.Exports[format] = "pruned"
				case err != nil:
					t.Fatalf("FindExport %s v%d %s: %v", p.ID, d.Version, format, err)
				default:
					va.Exports[format] = digest(e.Body) + " " + e.ETag
				}
			}
			for _, r := range va.Rules {
				paths = append(paths, r.Source, r.Source+"/deeper")
			}
			pa.Versions = append(pa.Versions, va)
		}
		paths = append(paths, "/never-a-rule", "/")
		keys := f.Keys[p.ID]
		key := keys.Live
		for di, d := range pa.Deployments {
			for _, path := range paths {
				pa.Edge = append(pa.Edge, edge.get(t, key, "/v1/lookup", "project", p.ID, "path", path, "version", strconv.Itoa(d.Version)))
			}
			for _, format := range redirects.Formats {
				pa.Edge = append(pa.Edge, edge.get(t, key, "/v1/export", "project", p.ID, "format", format, "version", strconv.Itoa(d.Version)))
			}
			checkRenderedAgain(t, &pa, di)
		}
		for _, k := range []string{keys.Test, keys.Revoked} {
			for _, path := range paths[:min(4, len(paths))] {
				pa.Edge = append(pa.Edge, edge.get(t, k, "/v1/lookup", "project", p.ID, "path", path))
			}
		}
		a.Projects = append(a.Projects, pa)
	}
	return a
}

// renderedAgain stands in an edge answer's line for the digest of a pruned
// version's export: the edge renders it again with today's renderers, which
// may write a format differently from the release that wrote the fixture
// (the haproxy export's lines, for one). checkRenderedAgain checks those
// bytes against today's renderer; every other answer is compared as
// recorded.
const renderedAgain = "(rendered again)"

// checkRenderedAgain replaces the digest of each export of version vi of pa
// that the store keeps no more with renderedAgain, after checking that the
// edge served what today's renderer makes of the version's rules.
func checkRenderedAgain(t *testing.T, pa *ProjectAnswers, vi int) {
	t.Helper()
	va := pa.Versions[vi]
	for format, kept := range va.Exports {
		if kept != "pruned" {
			continue
		}
		body, ok := export.RenderFormat(format, va.Rules)
		if !ok {
			t.Fatalf("no renderer for format %q", format)
		}
		prefix := "/v1/export?" + url.Values{"format": {format}, "project": {va.Deployment.ProjectID}, "version": {strconv.Itoa(va.Deployment.Version)}}.Encode() + " -> 200 "
		for i, line := range pa.Edge {
			if !strings.HasPrefix(line, prefix) {
				continue
			}
			at := strings.LastIndexByte(line, ' ')
			if got := line[at+1:]; got != renderedAgain && got != digest(body) {
				t.Errorf("%s: the edge rendered a pruned export again as %s, today's renderer makes %s", line[:at], got, digest(body))
			}
			pa.Edge[i] = line[:at+1] + renderedAgain
		}
	}
}

// normalize puts renderedAgain in the recorded answers where collect does,
// and the fields of staged deploys (migration 0014), which the earlier
// release did not have, as the migration promises them: each project's
// live pointer at its newest version, which was the live one, and no
// version staged or promoted.
func normalize(t *testing.T, a *Answers) {
	t.Helper()
	for pi := range a.Projects {
		pa := &a.Projects[pi]
		newest := 0
		for _, d := range pa.Deployments {
			newest = max(newest, d.Version)
		}
		if pa.Project != nil {
			pa.Project.LiveVersion, pa.Project.NewestVersion = newest, newest
		}
		for _, d := range pa.Deployments {
			d.Live = d.Version == newest
		}
		for _, va := range pa.Versions {
			if va.Deployment != nil {
				va.Deployment.Live = va.Deployment.Version == newest
			}
		}
		for vi := range pa.Versions {
			va := pa.Versions[vi]
			for format, kept := range va.Exports {
				if kept != "pruned" {
					continue
				}
				prefix := "/v1/export?" + url.Values{"format": {format}, "project": {va.Deployment.ProjectID}, "version": {strconv.Itoa(va.Deployment.Version)}}.Encode() + " -> 200 "
				for i, line := range pa.Edge {
					if strings.HasPrefix(line, prefix) {
						pa.Edge[i] = line[:strings.LastIndexByte(line, ' ')+1] + renderedAgain
					}
				}
			}
		}
	}
}

func digest(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:8])
}

// edgeClient asks an edge served over HTTP.
type edgeClient struct {
	base  string
	close func()
}

// startEdge serves the edge from s on a free port of 127.0.0.1 until close,
// with export.Build to render pruned versions again.
func startEdge(t *testing.T, s store) *edgeClient {
	t.Helper()
	ctx := context.Background()
	lim, err := inmem.NewLimiter(ctx, s, time.Now())
	if err != nil {
		t.Fatalf("NewLimiter: %v", err)
	}
	srv, err := http.Open(ctx, http.Config{
		Addr:          "127.0.0.1:0",
		Clock:         redirects.SystemClock{},
		Logger:        slog.New(slog.NewTextHandler(io.Discard, nil)),
		FlushInterval: time.Hour,
		Connect: func(context.Context) (*http.Backend, error) {
			return &http.Backend{Store: s, Limiter: lim, Builder: export.Build}, nil
		},
	})
	if err != nil {
		t.Fatalf("open the edge: %v", err)
	}
	return &edgeClient{base: "http://" + srv.Addr(), close: func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := srv.Close(ctx); err != nil {
			t.Errorf("close the edge: %v", err)
		}
	}}
}

// get asks the edge and returns one line: the request, the status, the
// content type and the body (or its digest, for an export).
func (c *edgeClient) get(t *testing.T, key, path string, kv ...string) string {
	t.Helper()
	q := url.Values{}
	for i := 0; i < len(kv); i += 2 {
		q.Set(kv[i], kv[i+1])
	}
	req, err := nethttp.NewRequest("GET", c.base+path+"?"+q.Encode(), nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("X-API-Key", key)
	resp, err := nethttp.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", req.URL, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("GET %s: %v", req.URL, err)
	}
	shown := string(body)
	if path == "/v1/export" && resp.StatusCode == 200 {
		shown = digest(body)
	}
	return fmt.Sprintf("%s?%s -> %d %s %s", path, q.Encode(), resp.StatusCode, resp.Header.Get("Content-Type"), shown)
}

// readFixture reads a fixture's JSON file.
func readFixture(t *testing.T, b []byte) *Fixture {
	t.Helper()
	var f Fixture
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatalf("read the fixture's answers: %v", err)
	}
	return &f
}

// encode returns a's JSON, indented, for the fixture file and for the
// comparison.
func encode(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.MarshalIndent(v, "", "\t")
	if err != nil {
		t.Fatal(err)
	}
	return append(b, '\n')
}
