package remote

import (
	"context"

	"redirects"
	"redirects/api"
)

// The suggestion routes (redirects.SuggestionService), each one Call of
// its api.Op.

// Suggest implements redirects.SuggestionService.
func (c *Client) Suggest(ctx context.Context, projectID string, opts redirects.SuggestOptions) ([]redirects.Suggestion, error) {
	out, err := Call(ctx, c, api.SuggestOp, projectID, api.SuggestRequest{Sitemap: opts.Sitemap, SitemapURL: opts.SitemapURL, Limit: opts.Limit})
	if err != nil {
		return nil, err
	}
	return out.List(projectID), nil
}

// FindSuggestions implements redirects.SuggestionService.
func (c *Client) FindSuggestions(ctx context.Context, projectID string) ([]redirects.Suggestion, error) {
	out, err := Call(ctx, c, api.SuggestionsOp, projectID, api.None{})
	if err != nil {
		return nil, err
	}
	return out.List(projectID), nil
}

// AcceptSuggestion implements redirects.SuggestionService.
func (c *Client) AcceptSuggestion(ctx context.Context, projectID, id string) (*redirects.Rule, error) {
	out, err := Call(ctx, c, api.SuggestionAcceptOp, projectID, api.SuggestionRef{ID: id})
	if err != nil {
		return nil, err
	}
	if out.Rule == nil {
		return nil, redirects.Errorf(redirects.EINTERNAL, "accepting suggestion %s: the answer holds no rule", id)
	}
	r := out.Rule.Rule(projectID)
	return &r, nil
}

// DismissSuggestion implements redirects.SuggestionService.
func (c *Client) DismissSuggestion(ctx context.Context, projectID, id string) error {
	_, err := Call(ctx, c, api.SuggestionDismissOp, projectID, api.SuggestionRef{ID: id})
	return err
}
