package manage

import (
	"net/http"

	"redirects"
	"redirects/api"
)

// The misses routes call the service layer's InsightService, which
// authorizes (the hits and agents routes are api.Ops, manage/ops.go). Each authorizes first all the same,
// as every route does (authz.go), so that a caller who may not read or
// change the project learns that before a mistake in the query.

// misses answers the project's most frequent missed paths (?limit=,
// default 50).
func (h *handler) misses(w http.ResponseWriter, r *http.Request) error {
	if _, err := h.authorizeProject(r, redirects.ActionRead); err != nil {
		return err
	}
	limit, err := queryInt(r, "limit")
	if err != nil {
		return err
	}
	if _, ok := r.URL.Query()["limit"]; !ok {
		limit = 50
	}
	if limit < 1 || limit > redirects.MaxStoredMisses {
		return badQuery("the query parameter \"limit\" is %d; give 1 to %d", limit, redirects.MaxStoredMisses)
	}
	list, err := h.svc.Insight.FindMisses(r.Context(), r.PathValue("project"), limit)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, api.MissesOf(list))
	return nil
}

// missRule puts a rule for a missed path in the draft and forgets the
// miss: "create a rule from this miss". Nothing is live until a deploy.
func (h *handler) missRule(w http.ResponseWriter, r *http.Request) error {
	p, err := h.authorizeProject(r, redirects.ActionEditRules)
	if err != nil {
		return err
	}
	var req api.MissRule
	if err := h.decodeJSON(w, r, &req, false); err != nil {
		return err
	}
	if req.Path == nil {
		return missingField("path")
	}
	rule, err := newRule(p.ID, &api.RuleCreate{Source: req.Path, Destination: req.Destination, StatusCode: req.StatusCode,
		MatchType: req.MatchType, Priority: req.Priority, PreservePath: req.PreservePath, PreserveQuery: req.PreserveQuery, Host: req.Host,
		QueryAfterFragment: req.QueryAfterFragment, MergeQuery: req.MergeQuery, ExceptHosts: req.ExceptHosts})
	if err != nil {
		return err
	}
	if err := h.svc.Insight.AddRuleFromMiss(r.Context(), rule); err != nil {
		return err
	}
	w.Header().Set("ETag", revisionETag(rule.Revision))
	writeJSON(w, http.StatusCreated, api.RuleOf(rule))
	return nil
}

// missDelete forgets a missed path (?path=), for one nobody will make a
// rule of.
func (h *handler) missDelete(w http.ResponseWriter, r *http.Request) error {
	if _, err := h.authorizeProject(r, redirects.ActionEditRules); err != nil {
		return err
	}
	path, err := query(r, "path")
	if err != nil {
		return err
	}
	if path == "" {
		return badQuery("the query parameter \"path\" is missing: give the missed path to forget")
	}
	if err := h.svc.Insight.DeleteMiss(r.Context(), r.PathValue("project"), path); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}
