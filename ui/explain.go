package ui

import (
	"net/http"
	"strings"

	"redirects"
	"redirects/engine/pattern"
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
	Path, Host string
	Results    []explained
}

// testPage is the Test a path tab: which rule answers a path, asked of a
// host or of none, in the draft and in the live version, what each capture
// of that rule holds, and why each other matching rule lost
// (safety.ExplainFor, under each side's matching settings, whose answer is
// the edge's).
func (h *handler) testPage(w http.ResponseWriter, r *http.Request) error {
	ph, o, err := h.project(r, redirects.ActionRead)
	if err != nil {
		return err
	}
	d := testData{Path: r.URL.Query().Get("path"), Host: strings.TrimSpace(r.URL.Query().Get("host"))}
	back := "/projects/" + ph.ID + "/test"
	if d.Host != "" {
		// As the lookup API reads its host parameter: a host name, a
		// port and a trailing dot ignored (docs/contract.md#hosts).
		if k, ok := pattern.HostKey(d.Host); !ok || strings.Contains(k, "*") {
			return h.redirect(w, r, back, flashErr, "Host: give a host name as a browser sends it, such as www.example.com (a wildcard is a rule's, not a request's).")
		}
	}
	if d.Path != "" {
		if d.Path[0] != '/' || len(d.Path) > redirects.MaxSourceLen {
			return h.redirect(w, r, back, flashErr, "Path: start it with / (at most "+thousands(redirects.MaxSourceLen)+" bytes), for example /old-page.")
		}
		ctx := r.Context()
		draft, err := h.svc.Deploys.RuleSet(ctx, ph.ID, "draft", false)
		if err != nil {
			return err
		}
		d.Results = append(d.Results, explained{Name: "Draft", Explanation: safety.ExplainFor(draft.Rules, draft.Settings, d.Host, d.Path)})
		if ph.Live != nil {
			_, live, err := h.svc.Deploys.Version(ctx, ph.ID, ph.Live.Version)
			if err != nil {
				return err
			}
			d.Results = append(d.Results, explained{Name: "Live", Version: ph.Live.Version, Explanation: safety.ExplainFor(live, ph.Live.Settings, d.Host, d.Path)})
		}
	}
	return h.render(w, r, http.StatusOK, "test", &page{Title: "Test a path · " + ph.Name, Org: o, Project: ph, Tab: "test", Data: d})
}
