package manage

import (
	"net/http"
	"strconv"
	"strings"

	"redirects"
	"redirects/api"
)

// Every rule route answers the project first (authorizeProject), before
// it reads the request, so that a caller who may not see the project
// learns nothing from what the request holds; the service then decides
// the operation itself.

// ruleFilter reads q, match (or matchType, its other name), status and
// host: a host present and empty selects the host-less rules.
func ruleFilter(r *http.Request) (redirects.RuleFilter, error) {
	var f redirects.RuleFilter
	var err error
	if f.Query, err = query(r, "q"); err != nil {
		return f, err
	}
	name := "match"
	if _, ok := r.URL.Query()["matchType"]; ok {
		if _, both := r.URL.Query()["match"]; both {
			return f, badQuery("the query parameters \"match\" and \"matchType\" are one filter; give one of them")
		}
		name = "matchType"
	}
	match, err := query(r, name)
	if err != nil {
		return f, err
	}
	if match != "" {
		mt, err := redirects.ParseMatchType(match)
		if err != nil {
			return f, badQuery("the query parameter %q is %q, not one of exact, starts_with, pattern, regex", name, match)
		}
		f.MatchType = &mt
	}
	if f.StatusCode, err = queryInt(r, "status"); err != nil {
		return f, err
	}
	if _, ok := r.URL.Query()["host"]; ok {
		host, err := query(r, "host")
		if err != nil {
			return f, err
		}
		// A malformed host is the query's fault, as a repeated one is.
		hf := redirects.RuleFilter{Host: &host}
		if err := hf.Validate(); err != nil {
			return f, badQuery("the query parameter \"host\": %s", redirects.ErrorMessage(err))
		}
		f.Host = hf.Host
	}
	return f, f.Validate()
}

// ruleList answers a page of draft rules: ?q=&match=&status=&host=&sort=&limit=&after=.
func (h *handler) ruleList(w http.ResponseWriter, r *http.Request) error {
	p, err := h.authorizeProject(r, redirects.ActionRead)
	if err != nil {
		return err
	}
	var q redirects.RulePageQuery
	if q.Filter, err = ruleFilter(r); err != nil {
		return err
	}
	sort, err := query(r, "sort")
	if err != nil {
		return err
	}
	q.Sort = redirects.RuleSort(sort)
	if q.Limit, err = queryInt(r, "limit"); err != nil {
		return err
	}
	if q.After, err = query(r, "after"); err != nil {
		return err
	}
	if _, ok := r.URL.Query()["limit"]; ok && q.Limit == 0 {
		return badQuery("the query parameter \"limit\" is 0; give 1 to %d", redirects.MaxRuleLimit)
	}
	page, err := h.svc.Rules.FindRulePage(r.Context(), p.ID, q)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, api.RulePageOf(page))
	return nil
}

// newRule returns the rule body j adds to project projectID (api.RuleCreate.Rule),
// a missing required field refused as such.
func newRule(projectID string, j *api.RuleCreate) (*redirects.Rule, error) {
	rule, missing, err := j.Rule(projectID)
	if missing != "" {
		return nil, missingField(missing)
	}
	return rule, err
}

// addRule stores a new draft rule and answers 201 with it.
func (h *handler) addRule(w http.ResponseWriter, r *http.Request, rule *redirects.Rule) error {
	if err := h.svc.Rules.AddRule(r.Context(), rule); err != nil {
		return err
	}
	w.Header().Set("ETag", revisionETag(rule.Revision))
	writeJSON(w, http.StatusCreated, api.RuleOf(rule))
	return nil
}

// ruleCreate adds a draft rule; statusCode, matchType and priority default
// as on the command line (301, exact, 100), preservePath and preserveQuery
// to false. A source that clashes with another rule's under the project's
// settings is refused by the store (ECONFLICT, naming both).
func (h *handler) ruleCreate(w http.ResponseWriter, r *http.Request) error {
	p, err := h.authorizeProject(r, redirects.ActionEditRules)
	if err != nil {
		return err
	}
	var req api.RuleCreate
	if err := h.decodeJSON(w, r, &req, false); err != nil {
		return err
	}
	rule, err := newRule(p.ID, &req)
	if err != nil {
		return err
	}
	return h.addRule(w, r, rule)
}

// ruleID reads the path's {id}.
func ruleID(r *http.Request) (int64, error) {
	s := r.PathValue("id")
	id, err := strconv.ParseInt(s, 10, 64)
	if err != nil || id <= 0 {
		return 0, newError(http.StatusNotFound, "NOT_FOUND", "rule %q not found: rule IDs are positive whole numbers", s)
	}
	return id, nil
}

// revisionETag is a rule's revision as an entity tag, which If-Match
// takes back.
func revisionETag(rev int64) string { return `"` + strconv.FormatInt(rev, 10) + `"` }

// ifMatch reads If-Match: a revision, quoted as an ETag or bare; "*" or
// none is 0, any revision.
func ifMatch(r *http.Request) (int64, error) {
	v := strings.TrimSpace(r.Header.Get("If-Match"))
	if v == "" || v == "*" {
		return 0, nil
	}
	s := strings.Trim(strings.TrimPrefix(v, "W/"), `"`)
	rev, err := strconv.ParseInt(s, 10, 64)
	if err != nil || rev <= 0 {
		return 0, newError(http.StatusBadRequest, "INVALID_REVISION", "If-Match is %q, not a rule revision such as \"3\"", v)
	}
	return rev, nil
}

// revision settles the revision a change is made against: If-Match or the
// body's revision (0: none given), which must agree when both are given.
func revision(r *http.Request, body *int64) (int64, error) {
	hdr, err := ifMatch(r)
	if err != nil {
		return 0, err
	}
	if body == nil {
		return hdr, nil
	}
	if *body <= 0 {
		return 0, newError(http.StatusBadRequest, "INVALID_REVISION", "revision %d is not a positive whole number", *body)
	}
	if hdr != 0 && hdr != *body {
		return 0, newError(http.StatusBadRequest, "INVALID_REVISION", "If-Match says revision %d and the body %d; give one", hdr, *body)
	}
	return *body, nil
}

func (h *handler) ruleGet(w http.ResponseWriter, r *http.Request) error {
	p, err := h.authorizeProject(r, redirects.ActionRead)
	if err != nil {
		return err
	}
	id, err := ruleID(r)
	if err != nil {
		return err
	}
	rule, err := h.svc.Rules.FindRule(r.Context(), p.ID, id)
	if err != nil {
		return err
	}
	w.Header().Set("ETag", revisionETag(rule.Revision))
	writeJSON(w, http.StatusOK, api.RuleOf(rule))
	return nil
}

// ruleUpdate changes the fields of a draft rule the body names and keeps
// every other, the options too: a client that does not know preservePath
// and preserveQuery changes neither. With If-Match (or revision in the
// body) a rule changed since that revision is left as it is and the
// answer is 409 REVISION_CONFLICT.
func (h *handler) ruleUpdate(w http.ResponseWriter, r *http.Request) error {
	p, err := h.authorizeProject(r, redirects.ActionEditRules)
	if err != nil {
		return err
	}
	id, err := ruleID(r)
	if err != nil {
		return err
	}
	var req api.RuleUpdate
	if err := h.decodeJSON(w, r, &req, false); err != nil {
		return err
	}
	u, err := req.Update()
	if err != nil {
		return err
	}
	if u.Revision, err = revision(r, req.Revision); err != nil {
		return err
	}
	rule, err := h.svc.Rules.UpdateRule(r.Context(), p.ID, id, u)
	if err != nil {
		return err
	}
	w.Header().Set("ETag", revisionETag(rule.Revision))
	writeJSON(w, http.StatusOK, api.RuleOf(rule))
	return nil
}

// ruleDelete deletes a draft rule, at the revision of If-Match (or of the
// optional body) when one is given.
func (h *handler) ruleDelete(w http.ResponseWriter, r *http.Request) error {
	p, err := h.authorizeProject(r, redirects.ActionEditRules)
	if err != nil {
		return err
	}
	id, err := ruleID(r)
	if err != nil {
		return err
	}
	var req api.RuleDelete
	if err := h.decodeJSON(w, r, &req, true); err != nil {
		return err
	}
	rev, err := revision(r, req.Revision)
	if err != nil {
		return err
	}
	if err := h.svc.Rules.DeleteRule(r.Context(), p.ID, id, rev); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// ruleDeleteMatching deletes every draft rule that ?q=&match=&status=&host=
// select, in one transaction, when ?confirm=true says so (no filter: every
// rule). It answers how many went.
func (h *handler) ruleDeleteMatching(w http.ResponseWriter, r *http.Request) error {
	p, err := h.authorizeProject(r, redirects.ActionEditRules)
	if err != nil {
		return err
	}
	f, err := ruleFilter(r)
	if err != nil {
		return err
	}
	confirm, err := query(r, "confirm")
	if err != nil {
		return err
	}
	if confirm != "true" {
		return newError(http.StatusBadRequest, codeConfirmRequired, "deleting every rule that q, match, status and host select needs ?confirm=true: nothing was deleted")
	}
	n, err := h.svc.Rules.DeleteRules(r.Context(), p.ID, f)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, api.RulesDeleted{Deleted: n})
	return nil
}
