package redirects

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"time"
)

// Suggestions: rules proposed for the project's most missed paths
// (docs/suggest.md), each with its evidence and a confidence. Computing
// them stores them; accepting one puts its rule in the draft (nothing is
// live until a deploy); dismissing one keeps it dismissed, so that
// computing again proposes something else for its path or nothing.

// SuggestionKind says which heuristic made a suggestion.
type SuggestionKind string

// The heuristics, in the order docs/suggest.md gives them.
const (
	// SuggestCase: the missed path differs from a rule's source only in
	// case; the rule's answer, and the caseInsensitive setting.
	SuggestCase SuggestionKind = "case"
	// SuggestSlash: the missed path differs from a rule's source only in
	// a trailing slash (and maybe case); the rule's answer, and the
	// ignoreTrailingSlash setting.
	SuggestSlash SuggestionKind = "trailing_slash"
	// SuggestPrefix: rules under the missed path's folder rewrite it the
	// same way; the missed path rewritten as they are.
	SuggestPrefix SuggestionKind = "prefix"
	// SuggestSitemap: the sitemap's page whose slug matches the missed
	// path best.
	SuggestSitemap SuggestionKind = "sitemap"
)

// The states of a stored suggestion.
const (
	SuggestionOpen      = "open"
	SuggestionAccepted  = "accepted"
	SuggestionDismissed = "dismissed"
)

// The audit actions of suggestions.
const (
	AuditSuggestionRefresh = "suggestion.refresh"
	AuditSuggestionAccept  = "suggestion.accept"
	AuditSuggestionDismiss = "suggestion.dismiss"
)

// Suggestion is a rule proposed for a missed path: an exact rule from
// Path (on Host, "" for every host) to Destination with StatusCode.
type Suggestion struct {
	// ID names the suggestion in its project: SuggestionID of its host,
	// path and destination, so computing again gives the same ID.
	ID        string
	ProjectID string
	Host      string
	Path      string
	// Destination and StatusCode are the rule's answer.
	Destination string
	StatusCode  int
	Kind        SuggestionKind
	// Confidence is 1 to 99: how sure the heuristic is
	// (docs/suggest.md#confidence).
	Confidence int
	// Misses is how many times the edge nodes counted the path missed.
	Misses int64
	// Evidence is the rule source or the sitemap URL the suggestion comes
	// from; Reason says why, in words.
	Evidence string
	Reason   string
	// Setting names the project setting that would answer the path
	// without a rule (caseInsensitive, ignoreTrailingSlash, or both
	// joined by a comma), for SuggestCase and SuggestSlash.
	Setting string
	// State is SuggestionOpen, SuggestionAccepted or SuggestionDismissed.
	State     string
	CreatedAt time.Time
}

// Rule returns the rule accepting s adds to the draft.
func (s *Suggestion) Rule() *Rule {
	return &Rule{ProjectID: s.ProjectID, Source: s.Path, Destination: s.Destination, StatusCode: s.StatusCode, MatchType: Exact, Host: s.Host}
}

// SuggestionID returns the ID of the suggestion of a rule from path on
// host to destination: "sg_" and 16 hex digits of their SHA-256. It is
// unique within a project.
func SuggestionID(host, path, destination string) string {
	h := sha256.Sum256([]byte(host + "\x00" + path + "\x00" + destination))
	return "sg_" + hex.EncodeToString(h[:8])
}

// SuggestOptions says what Suggest computes from.
type SuggestOptions struct {
	// Sitemap lists the URLs of the new site's pages (read by the caller
	// from a file, see suggest.ReadSitemap); SitemapURL names a sitemap
	// the service fetches, under the webhooks' address rules. At most one
	// of the two.
	Sitemap    []string
	SitemapURL string
	// Limit is how many of the most missed paths get a suggestion: 1 to
	// MaxSuggestions, 0 is DefaultSuggestions.
	Limit int
}

// The bounds of SuggestOptions.Limit.
const (
	DefaultSuggestions = 50
	MaxSuggestions     = 1000
)

// SuggestionStore keeps suggestions: sqlite.DB and postgres.DB do.
type SuggestionStore interface {
	// ReplaceSuggestions deletes the project's open suggestions and
	// stores s, but for those whose ID it holds accepted or dismissed,
	// and records a suggestion.refresh audit entry.
	ReplaceSuggestions(ctx context.Context, projectID string, s []Suggestion) error
	// FindSuggestions returns every stored suggestion of the project.
	FindSuggestions(ctx context.Context, projectID string) ([]Suggestion, error)
	// SetSuggestionState moves an open suggestion to state; a dismissal
	// records a suggestion.dismiss audit entry. Errors: ENOTFOUND,
	// ECONFLICT (not open).
	SetSuggestionState(ctx context.Context, projectID, id, state string) (*Suggestion, error)
}
