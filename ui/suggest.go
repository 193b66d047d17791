package ui

import (
	"net/http"
	"strconv"
	"strings"

	"redirects"
)

// Suggestions on the Misses tab (docs/suggest.md, docs/dashboard.md):
// compute them (optionally from a sitemap's URL, fetched by the server
// under the webhooks' address rules), accept one (its rule goes in the
// draft) or dismiss one (not proposed again).

// openSuggestions returns the project's open suggestions, for the Misses
// tab; a store without them shows none.
func (h *handler) openSuggestions(r *http.Request, projectID string) []redirects.Suggestion {
	gs, err := h.svc.Suggestions.FindSuggestions(r.Context(), projectID)
	if err != nil {
		return nil
	}
	var out []redirects.Suggestion
	for _, g := range gs {
		if g.State == redirects.SuggestionOpen {
			out = append(out, g)
		}
	}
	return out
}

// suggestionsCompute computes the suggestions and goes back to the tab.
func (h *handler) suggestionsCompute(w http.ResponseWriter, r *http.Request) error {
	ph, _, err := h.project(r, redirects.ActionEditRules)
	if err != nil {
		return err
	}
	back := "/projects/" + ph.ID + "/misses"
	opts := redirects.SuggestOptions{SitemapURL: strings.TrimSpace(r.PostFormValue("sitemap"))}
	gs, err := h.svc.Suggestions.Suggest(r.Context(), ph.ID, opts)
	if err != nil {
		if statusOf(err) < 500 {
			return h.redirect(w, r, back, flashErr, "No suggestions: "+message(err))
		}
		return err
	}
	msg := "No suggestion: no missed path looks like a rule or a page."
	if n := len(gs); n == 1 {
		msg = "1 suggestion. Accept it to add its rule to the draft."
	} else if n > 1 {
		msg = strconv.Itoa(n) + " suggestions. Accept one to add its rule to the draft."
	}
	return h.redirect(w, r, back, flashOK, msg)
}

// suggestionAccept adds a suggestion's rule to the draft.
func (h *handler) suggestionAccept(w http.ResponseWriter, r *http.Request) error {
	ph, _, err := h.project(r, redirects.ActionEditRules)
	if err != nil {
		return err
	}
	back := "/projects/" + ph.ID + "/misses"
	rule, err := h.svc.Suggestions.AcceptSuggestion(r.Context(), ph.ID, r.PostFormValue("id"))
	if err != nil {
		if statusOf(err) < 500 {
			return h.redirect(w, r, back, flashErr, "Not accepted: "+message(err))
		}
		return err
	}
	return h.redirect(w, r, back, flashOK, "Added to the draft: "+ruleName(rule)+" → "+rule.Destination+" ("+strconv.Itoa(rule.StatusCode)+"). Deploy to make it live.")
}

// suggestionDismiss dismisses a suggestion for good.
func (h *handler) suggestionDismiss(w http.ResponseWriter, r *http.Request) error {
	ph, _, err := h.project(r, redirects.ActionEditRules)
	if err != nil {
		return err
	}
	back := "/projects/" + ph.ID + "/misses"
	if err := h.svc.Suggestions.DismissSuggestion(r.Context(), ph.ID, r.PostFormValue("id")); err != nil {
		if statusOf(err) < 500 {
			return h.redirect(w, r, back, flashErr, "Not dismissed: "+message(err))
		}
		return err
	}
	return h.redirect(w, r, back, flashOK, "Dismissed. It will not be suggested again.")
}
