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
