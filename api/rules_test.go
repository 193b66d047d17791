package api_test

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"redirects"
	"redirects/api"
)

// TestRulePageRoundTrip holds a page as the API encodes it against what
// the client decodes: the same rules, cursor and hits.
func TestRulePageRoundTrip(t *testing.T) {
	created := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	last := time.Date(2026, 2, 3, 4, 5, 6, 789, time.UTC)
	page := &redirects.RulePage{
		Rules: []redirects.Rule{
			{ID: 1, ProjectID: "prj", Source: "/a", Destination: "/b", StatusCode: 301, MatchType: redirects.Exact, Priority: 100, Revision: 2, CreatedAt: created},
			{ID: 2, ProjectID: "prj", Source: "/docs/", Destination: "https://docs.example.com/", StatusCode: 308, MatchType: redirects.StartsWith,
				Priority: 5, Revision: 1, CreatedAt: created, PreservePath: true, PreserveQuery: true},
		},
		Next:  "cursor",
		Total: 7,
		Hits:  []redirects.RuleHits{{ProjectID: "prj", MatchType: redirects.StartsWith, Source: "/docs/", Hits: 42, LastHit: last}},
	}
	data, err := json.Marshal(api.RulePageOf(page))
	if err != nil {
		t.Fatal(err)
	}
	var j api.RulePage
	if err := json.Unmarshal(data, &j); err != nil {
		t.Fatal(err)
	}
	if got := j.Page("prj"); !reflect.DeepEqual(got, page) {
		t.Errorf("page after the API:\n%+v\nwant\n%+v\n(JSON %s)", got, page, data)
	}
}

// TestRuleJSON holds the rule's JSON to its bytes: the revision is left
// out only where the rule has none (the whole draft, as a deploy reads it).
func TestRuleJSON(t *testing.T) {
	r := redirects.Rule{ID: 3, Source: "/gone", StatusCode: 410, MatchType: redirects.Exact, Priority: 100, Revision: 4,
		CreatedAt: time.Date(2026, 1, 2, 3, 4, 5, 600, time.FixedZone("x", 3600))}
	for _, c := range []struct {
		revision int64
		want     string
	}{
		{4, `{"id":3,"source":"/gone","destination":"","statusCode":410,"matchType":"exact","priority":100,"revision":4,"createdAt":"2026-01-02T02:04:05Z","preservePath":false,"preserveQuery":false}`},
		{0, `{"id":3,"source":"/gone","destination":"","statusCode":410,"matchType":"exact","priority":100,"createdAt":"2026-01-02T02:04:05Z","preservePath":false,"preserveQuery":false}`},
	} {
		r.Revision = c.revision
		data, err := json.Marshal(api.RuleOf(&r))
		if err != nil {
			t.Fatal(err)
		}
		if string(data) != c.want {
			t.Errorf("revision %d:\n got %s\nwant %s", c.revision, data, c.want)
		}
	}
}
