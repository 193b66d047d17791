package ui

import (
	"net/http"

	"redirects"
	"redirects/safety"
)

// explained is the answer of one rule set to the tested path.
type explained struct {
	Name string
	// Version is the live version, 0 for the draft.
	Version int
	safety.Explanation
}

type testData struct {
	Path    string
	Results []explained
}

// testPage is the Test a path tab: which rule answers a path in the draft
// and in the live version, and why each other matching rule lost
// (safety.ExplainWith, under each side's matching settings, whose answer
// is the edge's).
func (h *handler) testPage(w http.ResponseWriter, r *http.Request) error {
	ph, o, err := h.project(r, redirects.ActionRead)
	if err != nil {
		return err
	}
	d := testData{Path: r.URL.Query().Get("path")}
	if d.Path != "" {
		if d.Path[0] != '/' || len(d.Path) > redirects.MaxSourceLen {
			return h.redirect(w, r, "/projects/"+ph.ID+"/test", flashErr, "Path: start it with / (at most "+thousands(redirects.MaxSourceLen)+" bytes), for example /old-page.")
		}
		ctx := r.Context()
		draft, err := h.svc.Deploys.RuleSet(ctx, ph.ID, "draft", false)
		if err != nil {
			return err
		}
		d.Results = append(d.Results, explained{Name: "Draft", Explanation: safety.ExplainWith(draft.Rules, draft.Settings, d.Path)})
		if ph.Live != nil {
			_, live, err := h.svc.Deploys.Version(ctx, ph.ID, ph.Live.Version)
			if err != nil {
				return err
			}
			d.Results = append(d.Results, explained{Name: "Live", Version: ph.Live.Version, Explanation: safety.ExplainWith(live, ph.Live.Settings, d.Path)})
		}
	}
	return h.render(w, r, http.StatusOK, "test", &page{Title: "Test a path · " + ph.Name, Org: o, Project: ph, Tab: "test", Data: d})
}
