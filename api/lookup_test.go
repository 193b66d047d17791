package api_test

import (
	"testing"

	"redirects"
	"redirects/api"
	"redirects/safety"
)

// TestExplainedAnswer: the answer taken from an explanation has the
// edge's shape, and is null without an answering rule.
func TestExplainedAnswer(t *testing.T) {
	rules := []redirects.Rule{{ID: 1, MatchType: redirects.Pattern, Source: "/:lang/guide/*", Destination: "/:lang/docs/:splat", StatusCode: 301, Priority: 100}}
	e := safety.ExplainFor(rules, redirects.Settings{}, "", "/en/guide/a")
	got, err := api.ExplainedAnswer(&e)
	if want := `{"destination":"/en/docs/a","statusCode":301,"matchType":"pattern"}`; err != nil || string(got) != want {
		t.Fatalf("ExplainedAnswer = %s, %v; want %s", got, err, want)
	}
	e = safety.ExplainFor(rules, redirects.Settings{}, "", "/other")
	if got, err := api.ExplainedAnswer(&e); err != nil || string(got) != "null" {
		t.Fatalf("ExplainedAnswer of a miss = %s, %v; want null", got, err)
	}
}
