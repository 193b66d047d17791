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

// Diff is the answer of a diff: `redirects diff --json` with the versions
// compared.
type Diff struct {
	From        string `json:"from"`
	To          string `json:"to"`
	FromVersion any    `json:"fromVersion"`
	ToVersion   any    `json:"toVersion"`
	safety.DiffResult
}
