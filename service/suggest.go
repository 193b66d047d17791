package service

import (
	"context"
	"log/slog"
	"strings"

	"redirects"
	"redirects/suggest"
)

// Suggestions (redirects.SuggestionService, docs/suggest.md): the
// heuristics of package suggest over the miss log and the draft, stored
// in the SuggestionStore.

func (s *Service) suggestionStore() (redirects.SuggestionStore, error) {
	if s.suggestions == nil {
		return nil, redirects.Errorf(redirects.EINTERNAL, "this store keeps no suggestions")
	}
	return s.suggestions, nil
}

// Suggest implements redirects.SuggestionService.
func (s *Service) Suggest(ctx context.Context, projectID string, opts redirects.SuggestOptions) ([]redirects.Suggestion, error) {
	p, err := s.project(ctx, projectID, redirects.ActionEditRules)
	if err != nil {
		return nil, err
	}
	st, err := s.suggestionStore()
	if err != nil {
		return nil, err
	}
	limit := opts.Limit
	if limit == 0 {
		limit = redirects.DefaultSuggestions
	}
	if limit < 1 || limit > redirects.MaxSuggestions {
		return nil, redirects.Errorf(redirects.EINVALID, "limit %d is out of range: give 1 to %d", opts.Limit, redirects.MaxSuggestions)
	}
	if len(opts.Sitemap) > 0 && opts.SitemapURL != "" {
		return nil, redirects.Errorf(redirects.EINVALID, "give a sitemap or its URL, not both")
	}
	if len(opts.Sitemap) > suggest.MaxSitemapURLs {
		return nil, redirects.Errorf(redirects.EINVALID, "sitemap: more than %d URLs", suggest.MaxSitemapURLs)
	}
	pages := opts.Sitemap
	if opts.SitemapURL != "" {
		f := s.sitemaps
		if f == nil {
			f = &suggest.Fetcher{}
		}
		if pages, err = f.Fetch(ctx, opts.SitemapURL); err != nil {
			return nil, err
		}
	}
	stored, err := st.FindSuggestions(ctx, p.ID)
	if err != nil {
		return nil, err
	}
	closed := map[string]bool{}
	for _, g := range stored {
		if g.State != redirects.SuggestionOpen {
			closed[g.ID] = true
		}
	}
	// The misses to suggest for: the most missed paths the draft does not
	// answer with a rule of the same source already.
	misses, err := s.store.FindMisses(ctx, p.ID, redirects.MaxStoredMisses)
	if err != nil {
		return nil, err
	}
	rules, err := s.store.FindRules(ctx, p.ID)
	if err != nil {
		return nil, err
	}
	sources := map[string]bool{}
	for _, r := range rules {
		if r.MatchType == redirects.Exact {
			sources[strings.ToLower(r.Host)+"\x00"+r.Source] = true
		}
	}
	var todo []redirects.Miss
	for _, m := range misses {
		if !sources[strings.ToLower(m.Host)+"\x00"+m.Path] && !sources["\x00"+m.Path] {
			todo = append(todo, m)
		}
		if len(todo) == limit {
			break
		}
	}
	cands := suggest.Candidates(suggest.Input{Misses: todo, Rules: rules, Settings: p.Settings, Hosts: p.Hosts, Sitemap: pages})
	now := s.clock.Now().UTC()
	var out []redirects.Suggestion
	for _, cs := range cands {
		for _, c := range cs {
			c.ProjectID, c.State, c.CreatedAt = p.ID, redirects.SuggestionOpen, now
			c.ID = redirects.SuggestionID(c.Host, c.Path, c.Destination)
			if closed[c.ID] {
				continue
			}
			out = append(out, c)
			break
		}
	}
	if err := st.ReplaceSuggestions(ctx, p.ID, out); err != nil {
		return nil, err
	}
	return out, nil
}

// FindSuggestions implements redirects.SuggestionService.
func (s *Service) FindSuggestions(ctx context.Context, projectID string) ([]redirects.Suggestion, error) {
	p, err := s.project(ctx, projectID, redirects.ActionRead)
	if err != nil {
		return nil, err
	}
	st, err := s.suggestionStore()
	if err != nil {
		return nil, err
	}
	return st.FindSuggestions(ctx, p.ID)
}

// findSuggestion returns the project's stored suggestion id.
func findSuggestion(ctx context.Context, st redirects.SuggestionStore, projectID, id string) (*redirects.Suggestion, error) {
	all, err := st.FindSuggestions(ctx, projectID)
	if err != nil {
		return nil, err
	}
	for i := range all {
		if all[i].ID == id {
			return &all[i], nil
		}
	}
	return nil, redirects.Errorf(redirects.ENOTFOUND, "suggestion %s not found in project %s", id, projectID)
}

// AcceptSuggestion implements redirects.SuggestionService: the rule goes
// in as a one-rule import audited as suggestion.accept (undoable as an
// import is), then the suggestion is marked accepted.
func (s *Service) AcceptSuggestion(ctx context.Context, projectID, id string) (*redirects.Rule, error) {
	p, err := s.project(ctx, projectID, redirects.ActionEditRules)
	if err != nil {
		return nil, err
	}
	st, err := s.suggestionStore()
	if err != nil {
		return nil, err
	}
	g, err := findSuggestion(ctx, st, p.ID, id)
	if err != nil {
		return nil, err
	}
	if g.State != redirects.SuggestionOpen {
		return nil, redirects.Errorf(redirects.ECONFLICT, "suggestion %s is %s already", id, g.State)
	}
	r := g.Rule()
	if err := r.Validate(); err != nil {
		return nil, err
	}
	rules, err := s.store.FindRules(ctx, p.ID)
	if err != nil {
		return nil, err
	}
	for _, x := range rules {
		if x.MatchType == r.MatchType && x.Source == r.Source && strings.EqualFold(x.Host, r.Host) {
			return nil, redirects.Errorf(redirects.ECONFLICT, "the draft has a rule with source %s already", r.Source)
		}
	}
	if _, err := s.store.Import(ctx, p.ID, []redirects.Rule{*r}, redirects.ImportOptions{Mode: redirects.ImportAppend, Action: redirects.AuditSuggestionAccept}); err != nil {
		return nil, err
	}
	// The rule is in the draft: a suggestion that a computation running
	// meanwhile replaced (ENOTFOUND) is accepted all the same.
	if _, err := st.SetSuggestionState(ctx, p.ID, id, redirects.SuggestionAccepted); err != nil && redirects.ErrorCode(err) != redirects.ENOTFOUND {
		return nil, err
	}
	// A rule answers the path now: forget the miss, as making a rule of a
	// miss does; one that cannot be forgotten stays listed.
	if err := s.store.DeleteMiss(ctx, p.ID, r.Source); err != nil && redirects.ErrorCode(err) != redirects.ENOTFOUND {
		slog.Default().Error("forgetting a miss that an accepted suggestion answers", "project", p.ID, "path", r.Source, "err", err)
	}
	// The rule as the draft now holds it: its ID and creation time.
	if rules, err = s.store.FindRules(ctx, p.ID); err == nil {
		for k := range rules {
			if x := &rules[k]; x.MatchType == r.MatchType && x.Source == r.Source && strings.EqualFold(x.Host, r.Host) {
				if full, err := s.store.FindRule(ctx, p.ID, x.ID); err == nil {
					return full, nil
				}
				return x, nil
			}
		}
	}
	return r, nil
}

// DismissSuggestion implements redirects.SuggestionService.
func (s *Service) DismissSuggestion(ctx context.Context, projectID, id string) error {
	p, err := s.project(ctx, projectID, redirects.ActionEditRules)
	if err != nil {
		return err
	}
	st, err := s.suggestionStore()
	if err != nil {
		return err
	}
	_, err = st.SetSuggestionState(ctx, p.ID, id, redirects.SuggestionDismissed)
	return err
}
