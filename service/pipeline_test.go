package service_test

import (
	"errors"
	"testing"
	"time"

	"redirects"
	"redirects/engine"
	"redirects/service"
)

// TestNewRelease checks the store-independent steps of a deploy: one sort,
// the counts, a snapshot the builder cannot change, and the checks of what
// the builder returns.
func TestNewRelease(t *testing.T) {
	now := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	rules := func() []redirects.Rule {
		return []redirects.Rule{
			{ID: 1, Source: "/b", Destination: "/x", StatusCode: 301, MatchType: redirects.StartsWith, Priority: 5},
			{ID: 2, Source: "/z", Destination: "/y", StatusCode: 302, MatchType: redirects.Exact},
			{ID: 3, Source: "/a", Destination: "/w", StatusCode: 301, MatchType: redirects.Exact},
		}
	}
	var seen []int64
	build := func(rs []redirects.Rule, _ redirects.Settings) (*redirects.DeployContent, error) {
		for _, r := range rs {
			seen = append(seen, r.ID)
		}
		rs[0].Destination = "/changed" // must not reach the snapshot
		return &redirects.DeployContent{Exports: []redirects.Export{{Format: "csv"}}, Report: "r"}, nil
	}
	r, err := service.NewRelease("prj_1", redirects.DeployOptions{Message: "m", FromVersion: 2}, rules(), redirects.Settings{}, build, now)
	if err != nil {
		t.Fatal(err)
	}
	if len(seen) != 3 || seen[0] != 3 || seen[1] != 2 || seen[2] != 1 {
		t.Fatalf("the builder saw rules %v, want 3 2 1 (exact by source, then starts_with)", seen)
	}
	d := r.Deployment
	if d.ProjectID != "prj_1" || !d.CreatedAt.Equal(now) || d.Message != "m" || d.FromVersion != 2 ||
		d.ExactCount != 2 || d.PrefixCount != 1 || d.Report != "r" || d.Version != 0 {
		t.Fatalf("deployment %+v", d)
	}
	stored, err := engine.DecodeRules("prj_1", r.Snapshot)
	if err != nil || len(stored) != 3 || stored[0].Destination != "/w" || stored[0].ID != 3 {
		t.Fatalf("snapshot %+v, %v: want the sorted rules as they were before the builder ran", stored, err)
	}
	if len(r.Exports) != 1 || r.Exports[0].Body == nil {
		t.Fatalf("exports %+v: want one, with a nil body made empty", r.Exports)
	}

	repeated := func(_ []redirects.Rule, _ redirects.Settings) (*redirects.DeployContent, error) {
		return &redirects.DeployContent{Exports: []redirects.Export{{Format: "csv"}, {Format: "csv"}}}, nil
	}
	if _, err := service.NewRelease("prj_1", redirects.DeployOptions{}, rules(), redirects.Settings{}, repeated, now); err == nil {
		t.Fatal("a repeated export format was accepted")
	}
	boom := errors.New("boom")
	failing := func(_ []redirects.Rule, _ redirects.Settings) (*redirects.DeployContent, error) { return nil, boom }
	if _, err := service.NewRelease("prj_1", redirects.DeployOptions{}, rules(), redirects.Settings{}, failing, now); err != boom {
		t.Fatalf("builder error came back as %v, want it as it is", err)
	}
	if _, err := service.NewRelease("prj_1", redirects.DeployOptions{}, rules(), redirects.Settings{}, nil, now); err == nil {
		t.Fatal("a nil builder was accepted")
	}
	if err := (redirects.DeployOptions{FromVersion: -1}).Validate(); redirects.ErrorCode(err) != redirects.EINVALID {
		t.Fatalf("FromVersion -1: %v, want EINVALID", err)
	}
}

// TestNewReleaseLeavesStreamedFilesToTheStore checks that NewRelease renders
// none of a streaming builder's files (DeployContent.Each): the store asks
// for them one at a time as it writes them (Release.EachExport), which
// checks them as Render checks Exports.
func TestNewReleaseLeavesStreamedFilesToTheStore(t *testing.T) {
	rendered := 0
	build := func(_ []redirects.Rule, _ redirects.Settings) (*redirects.DeployContent, error) {
		return &redirects.DeployContent{Report: "r", Each: func(yield func(*redirects.Export) error) error {
			for _, f := range []string{"csv", "nginx", "csv"} {
				rendered++
				if err := yield(&redirects.Export{Format: f}); err != nil {
					return err
				}
			}
			return nil
		}}, nil
	}
	rules := []redirects.Rule{{ID: 1, Source: "/a", Destination: "/b", StatusCode: 301, MatchType: redirects.Exact}}
	r, err := service.NewRelease("prj_1", redirects.DeployOptions{}, rules, redirects.Settings{}, build, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if rendered != 0 || len(r.Exports) != 0 || r.Each == nil || r.Deployment.Report != "r" {
		t.Fatalf("NewRelease rendered %d files, holds %d, Each %v, report %q: want none rendered, Each kept, the report", rendered, len(r.Exports), r.Each != nil, r.Deployment.Report)
	}
	var got []string
	err = r.EachExport(func(e *redirects.Export) error {
		if e.Body == nil {
			t.Errorf("export %s handed over with a nil body, want an empty one", e.Format)
		}
		got = append(got, e.Format)
		return nil
	})
	if redirects.ErrorCode(err) != redirects.EINTERNAL || len(got) != 2 || rendered != 3 {
		t.Fatalf("EachExport = %v after %v (%d rendered); want EINTERNAL at the repeated csv, after csv and nginx", err, got, rendered)
	}
}

// TestNewReleaseCountsKinds checks that a release counts each match type
// apart: pattern and regex rules are not starts_with rules.
func TestNewReleaseCountsKinds(t *testing.T) {
	rules := []redirects.Rule{
		{ID: 1, Source: "/a", Destination: "/x", StatusCode: 301, MatchType: redirects.Exact},
		{ID: 2, Source: "/b", Destination: "/x", StatusCode: 301, MatchType: redirects.StartsWith},
		{ID: 3, Source: "/:lang/*", Destination: "/:lang", StatusCode: 301, MatchType: redirects.Pattern},
		{ID: 4, Source: "/v/:n", Destination: "/x/:n", StatusCode: 301, MatchType: redirects.Pattern},
		{ID: 5, Source: `^/p/(\d+)$`, Destination: "/posts/$1", StatusCode: 301, MatchType: redirects.Regex},
	}
	build := func([]redirects.Rule, redirects.Settings) (*redirects.DeployContent, error) {
		return &redirects.DeployContent{}, nil
	}
	r, err := service.NewRelease("prj_1", redirects.DeployOptions{}, rules, redirects.Settings{}, build, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if d := r.Deployment; d.ExactCount != 1 || d.PrefixCount != 1 || d.PatternCount != 2 || d.RegexCount != 1 {
		t.Fatalf("counts = %d exact, %d prefix, %d pattern, %d regex; want 1, 1, 2, 1", d.ExactCount, d.PrefixCount, d.PatternCount, d.RegexCount)
	}
}
