package manage

import (
	"net/http"

	"redirects"
	"redirects/api"
)

// GET .../agents is api.AgentsOp.

// agentDelete forgets sync agents' reports: one agent's (?agent=), one
// format's (?format=), both, or all of the project's. It answers how many
// it forgot. An agent that reports again is listed again.
func (h *handler) agentDelete(w http.ResponseWriter, r *http.Request) error {
	if _, err := h.authorizeProject(r, redirects.ActionEditRules); err != nil {
		return err
	}
	var f redirects.AgentFilter
	var err error
	if f.Agent, err = query(r, "agent"); err != nil {
		return err
	}
	if f.Format, err = query(r, "format"); err != nil {
		return err
	}
	if err := f.Validate(); err != nil {
		return badQuery("%s", redirects.ErrorMessage(err))
	}
	n, err := h.svc.Insight.DeleteAgents(r.Context(), r.PathValue("project"), f)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, api.AgentsDeleted{Deleted: n})
	return nil
}
