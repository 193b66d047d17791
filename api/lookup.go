package api

import (
	"encoding/json"

	"redirects"
	"redirects/safety"
)

// RuleSetVersion is how an answer names the rule set it read: "draft", a
// version number, or null for nothing deployed.
func RuleSetVersion(rs *redirects.RuleSet) any {
	switch {
	case rs.Draft:
		return "draft"
	case rs.Version == 0:
		return nil
	}
	return rs.Version
}

// Lookup is the answer of a lookup. Answer is what the edge's /v1/lookup
// would answer for the path, or null for no rule (the edge's 204);
// Explanation is which rules matched and why the answering one won, as
// `redirects explain --json` prints it.
type Lookup struct {
	Path        string             `json:"path"`
	Version     any                `json:"version"`
	Answer      json.RawMessage    `json:"answer"`
	Explanation safety.Explanation `json:"explanation"`
}

// ExplainedAnswer returns the lookup's answer as the edge's /v1/lookup
// writes it, taken from an explanation (its answering rule, status and
// computed destination), or null without an answer. The management API
// answers so for pattern, regex, host-scoped and conditioned rules.
func ExplainedAnswer(e *safety.Explanation) (json.RawMessage, error) {
	if e.Answer == nil {
		return json.RawMessage("null"), nil
	}
	return json.Marshal(struct {
		Destination string `json:"destination"`
		StatusCode  int    `json:"statusCode"`
		MatchType   string `json:"matchType"`
	}{e.Destination, e.StatusCode, e.Answer.MatchType})
}

// Diff is the answer of a diff: `redirects diff --json` with the versions
// compared.
type Diff struct {
	From        string `json:"from"`
	To          string `json:"to"`
	FromVersion any    `json:"fromVersion"`
	ToVersion   any    `json:"toVersion"`
	safety.DiffResult
}
