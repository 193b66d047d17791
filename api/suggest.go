package api

import (
	"context"
	"time"

	"redirects"
)

// Suggestion is a rule proposed for a missed path (docs/suggest.md), as
// GET and POST .../suggestions answer it and redirects suggest --json
// prints it.
type Suggestion struct {
	ID          string `json:"id"`
	Host        string `json:"host,omitempty"`
	Path        string `json:"path"`
	Destination string `json:"destination"`
	StatusCode  int    `json:"statusCode"`
	Kind        string `json:"kind"`
	Confidence  int    `json:"confidence"`
	Misses      int64  `json:"misses"`
	Evidence    string `json:"evidence"`
	Reason      string `json:"reason"`
	Setting     string `json:"setting,omitempty"`
	State       string `json:"state"`
	CreatedAt   string `json:"createdAt"`
}

// SuggestionOf is g as the API shows it.
func SuggestionOf(g *redirects.Suggestion) Suggestion {
	return Suggestion{ID: g.ID, Host: g.Host, Path: g.Path, Destination: g.Destination, StatusCode: g.StatusCode, Kind: string(g.Kind),
		Confidence: g.Confidence, Misses: g.Misses, Evidence: g.Evidence, Reason: g.Reason, Setting: g.Setting, State: g.State,
		CreatedAt: g.CreatedAt.UTC().Format(time.RFC3339)}
}

// Suggestion returns j as the domain holds it, in project projectID.
func (j *Suggestion) Suggestion(projectID string) redirects.Suggestion {
	t, _ := time.Parse(time.RFC3339, j.CreatedAt)
	return redirects.Suggestion{ID: j.ID, ProjectID: projectID, Host: j.Host, Path: j.Path, Destination: j.Destination, StatusCode: j.StatusCode,
		Kind: redirects.SuggestionKind(j.Kind), Confidence: j.Confidence, Misses: j.Misses, Evidence: j.Evidence, Reason: j.Reason,
		Setting: j.Setting, State: j.State, CreatedAt: t}
}

// Suggestions is the answer of the suggestion routes that list them.
type Suggestions struct {
	Suggestions []Suggestion `json:"suggestions"`
}

// SuggestionsOf is gs as the API shows them.
func SuggestionsOf(gs []redirects.Suggestion) Suggestions {
	out := Suggestions{Suggestions: make([]Suggestion, len(gs))}
	for k := range gs {
		out.Suggestions[k] = SuggestionOf(&gs[k])
	}
	return out
}

// List returns js as the domain holds them.
func (js *Suggestions) List(projectID string) []redirects.Suggestion {
	out := make([]redirects.Suggestion, len(js.Suggestions))
	for k := range js.Suggestions {
		out[k] = js.Suggestions[k].Suggestion(projectID)
	}
	return out
}

// SuggestRequest is POST .../suggestions' body: the sitemap's page URLs
// or the sitemap's URL, which the server fetches under the webhooks'
// address rules (at most one of the two), and the limit (0: 50).
type SuggestRequest struct {
	Sitemap    []string `json:"sitemap,omitempty"`
	SitemapURL string   `json:"sitemapUrl,omitempty"`
	Limit      int      `json:"limit,omitempty"`
}

// SuggestionRef is the body of POST .../suggestions/accept and
// .../suggestions/dismiss: the suggestion's ID.
type SuggestionRef struct {
	ID string `json:"id"`
}

// SuggestionDone is the answer of accept and dismiss: the suggestion's ID,
// its new state, and for accept the rule added to the draft.
type SuggestionDone struct {
	ID    string `json:"id"`
	State string `json:"state"`
	Rule  *Rule  `json:"rule,omitempty"`
}

// The suggestion routes (docs/manage.md#suggestions): reading is a
// viewer's, computing, accepting and dismissing an editor's.
var (
	SuggestionsOp = Declare(&Op[None, Suggestions]{Method: "GET", Path: "/projects/{project}/suggestions", Action: redirects.ActionRead,
		Call: func(ctx context.Context, svc redirects.Services, project string, _ None) (Suggestions, error) {
			gs, err := svc.Suggestions.FindSuggestions(ctx, project)
			if err != nil {
				return Suggestions{}, err
			}
			return SuggestionsOf(gs), nil
		}})
	SuggestOp = Declare(&Op[SuggestRequest, Suggestions]{Method: "POST", Path: "/projects/{project}/suggestions", Action: redirects.ActionEditRules,
		Upload: true,
		Call: func(ctx context.Context, svc redirects.Services, project string, in SuggestRequest) (Suggestions, error) {
			gs, err := svc.Suggestions.Suggest(ctx, project, redirects.SuggestOptions{Sitemap: in.Sitemap, SitemapURL: in.SitemapURL, Limit: in.Limit})
			if err != nil {
				return Suggestions{}, err
			}
			return SuggestionsOf(gs), nil
		}})
	SuggestionAcceptOp = Declare(&Op[SuggestionRef, SuggestionDone]{Method: "POST", Path: "/projects/{project}/suggestions/accept", Action: redirects.ActionEditRules,
		Call: func(ctx context.Context, svc redirects.Services, project string, in SuggestionRef) (SuggestionDone, error) {
			r, err := svc.Suggestions.AcceptSuggestion(ctx, project, in.ID)
			if err != nil {
				return SuggestionDone{}, err
			}
			j := RuleOf(r)
			return SuggestionDone{ID: in.ID, State: redirects.SuggestionAccepted, Rule: &j}, nil
		}})
	SuggestionDismissOp = Declare(&Op[SuggestionRef, SuggestionDone]{Method: "POST", Path: "/projects/{project}/suggestions/dismiss", Action: redirects.ActionEditRules,
		Call: func(ctx context.Context, svc redirects.Services, project string, in SuggestionRef) (SuggestionDone, error) {
			if err := svc.Suggestions.DismissSuggestion(ctx, project, in.ID); err != nil {
				return SuggestionDone{}, err
			}
			return SuggestionDone{ID: in.ID, State: redirects.SuggestionDismissed}, nil
		}})
)
