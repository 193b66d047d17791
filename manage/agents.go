package manage

import (
	"net/http"

	"redirects"
	"redirects/api"
)

// agentList answers which servers have which version: the project's live
// version and each agent's last applied version
// (docs/delivery.md#which-servers-have-which-version). Reading it is
// reading the project.
func (h *handler) agentList(w http.ResponseWriter, r *http.Request) error {
	live, reports, err := h.svc.Insight.FindAgents(r.Context(), r.PathValue("project"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, api.AgentsOf(live, reports))
	return nil
}

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
