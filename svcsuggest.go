package redirects

import "context"

// SuggestionService turns the miss log into rules (docs/suggest.md).
// Computing suggestions, accepting and dismissing one are
// ActionEditRules; reading them is ActionRead. A project the caller has
// no role in is answered as a missing one.
type SuggestionService interface {
	// Suggest computes suggestions for the project's most missed paths,
	// stores them in place of the open ones it had, and returns the open
	// ones, most missed first. Errors: ENOTFOUND (the project),
	// EFORBIDDEN, EINVALID (the limit, the sitemap, both a sitemap and
	// its URL).
	Suggest(ctx context.Context, projectID string, opts SuggestOptions) ([]Suggestion, error)
	// FindSuggestions returns the project's stored suggestions, open
	// ones first, most missed first. Errors: ENOTFOUND (the project).
	FindSuggestions(ctx context.Context, projectID string) ([]Suggestion, error)
	// AcceptSuggestion adds the open suggestion's rule to the draft
	// (audit: suggestion.accept), forgets the miss, and returns the rule. Errors: ENOTFOUND (the
	// project, the suggestion), EFORBIDDEN, ECONFLICT (not open, or a rule
	// with that source).
	AcceptSuggestion(ctx context.Context, projectID, id string) (*Rule, error)
	// DismissSuggestion keeps the open suggestion from being proposed
	// again (audit: suggestion.dismiss). Errors: ENOTFOUND (the project,
	// the suggestion), EFORBIDDEN, ECONFLICT (not open).
	DismissSuggestion(ctx context.Context, projectID, id string) error
}
