package manage

import (
	"net/http"

	"redirects"
)

// agentJSON is one sync agent's last report on a project, as the API shows
// it (docs/delivery.md#which-servers-have-which-version).
type agentJSON struct {
	Agent          string `json:"agent"`
	Format         string `json:"format"`
	AppliedVersion int    `json:"appliedVersion"`
	SeenAt         string `json:"seenAt"`
	// Behind is set when the agent applied an older version than the live
	// one.
	Behind bool `json:"behind"`
}

// agentList answers which servers have which version: the project's live
// version and each agent's last applied version. Reading it is reading the
// project.
func (h *handler) agentList(w http.ResponseWriter, r *http.Request) error {
	p, err := h.authorizeProject(r, redirects.ActionRead)
	if err != nil {
		return err
	}
	as, ok := h.store.(redirects.AgentStore)
	if !ok {
		return redirects.Errorf(redirects.EINTERNAL, "the store keeps no agents")
	}
	live, reports, err := redirects.ProjectAgents(r.Context(), h.store, as, p.ID)
	if err != nil {
		return err
	}
	out := make([]agentJSON, 0, len(reports))
	for _, a := range reports {
		out = append(out, agentJSON{Agent: a.Agent, Format: a.Format, AppliedVersion: a.AppliedVersion,
			SeenAt: formatTime(a.SeenAt), Behind: a.Behind(live)})
	}
	writeJSON(w, http.StatusOK, map[string]any{"liveVersion": live, "agents": out})
	return nil
}

// agentDelete forgets sync agents' reports: one agent's (?agent=), one
// format's (?format=), both, or all of the project's. It answers how many
// it forgot. An agent that reports again is listed again.
func (h *handler) agentDelete(w http.ResponseWriter, r *http.Request) error {
	p, err := h.authorizeProject(r, redirects.ActionEditRules)
	if err != nil {
		return err
	}
	var f redirects.AgentFilter
	if f.Agent, err = query(r, "agent"); err != nil {
		return err
	}
	if f.Format, err = query(r, "format"); err != nil {
		return err
	}
	if err := f.Validate(); err != nil {
		return badQuery("%s", redirects.ErrorMessage(err))
	}
	as, ok := h.store.(redirects.AgentStore)
	if !ok {
		return redirects.Errorf(redirects.EINTERNAL, "the store keeps no agents")
	}
	n, err := as.DeleteAgents(r.Context(), p.ID, f)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"deleted": n})
	return nil
}
