package manage

import (
	"net/http"
	"time"

	"redirects"
	"redirects/api"
)

// hitsJSON is the answer of the hits report: the rules as the rule list
// shows them, without their revision (the report reads the draft whole,
// as a deploy does, which does not read revisions).
type hitsJSON struct {
	StaleSince *string          `json:"staleSince"`
	Rules      []reportRuleJSON `json:"rules"`
}

// reportRuleJSON is one rule of the hits report.
type reportRuleJSON struct {
	ID          int64   `json:"id"`
	Source      string  `json:"source"`
	Destination string  `json:"destination"`
	StatusCode  int     `json:"statusCode"`
	MatchType   string  `json:"matchType"`
	Priority    int     `json:"priority"`
	CreatedAt   string  `json:"createdAt"`
	Hits        int64   `json:"hits"`
	LastHit     *string `json:"lastHit"`
	// PreservePath and PreserveQuery are the rule's options, as the rule
	// list shows them.
	PreservePath  bool `json:"preservePath"`
	PreserveQuery bool `json:"preserveQuery"`
}

// hits answers every draft rule with its hits, or with ?staleSince= only
// the rules not hit since then (docs/contract.md "Hits and misses").
func (h *handler) hits(w http.ResponseWriter, r *http.Request) error {
	p, err := h.authorizeProject(r, redirects.ActionRead)
	if err != nil {
		return err
	}
	since, err := timeParam(r, "staleSince")
	if err != nil {
		return err
	}
	rules, err := h.store.FindRules(r.Context(), p.ID)
	if err != nil {
		return err
	}
	hits, err := h.store.FindHits(r.Context(), p.ID, nil)
	if err != nil {
		return err
	}
	out := hitsJSON{}
	if !since.IsZero() {
		rules = redirects.StaleRules(rules, hits, since)
		out.StaleSince = formatTimePtr(&since)
	}
	out.Rules = make([]reportRuleJSON, 0, len(rules))
	for _, r := range api.RulesWithHits(rules, hits) {
		out.Rules = append(out.Rules, reportRuleJSON{ID: r.ID, Source: r.Source, Destination: r.Destination, StatusCode: r.StatusCode,
			MatchType: r.MatchType, Priority: r.Priority, CreatedAt: r.CreatedAt, Hits: r.Hits, LastHit: r.LastHit,
			PreservePath: r.PreservePath, PreserveQuery: r.PreserveQuery})
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// missJSON is one missed path.
type missJSON struct {
	Path      string `json:"path"`
	Count     int64  `json:"count"`
	FirstSeen string `json:"firstSeen"`
	LastSeen  string `json:"lastSeen"`
}

// missesJSON is the answer of the misses report.
type missesJSON struct {
	Misses []missJSON `json:"misses"`
}

// misses answers the project's most frequent missed paths (?limit=,
// default 50).
func (h *handler) misses(w http.ResponseWriter, r *http.Request) error {
	p, err := h.authorizeProject(r, redirects.ActionRead)
	if err != nil {
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
	list, err := h.store.FindMisses(r.Context(), p.ID, limit)
	if err != nil {
		return err
	}
	out := missesJSON{Misses: make([]missJSON, 0, len(list))}
	for _, m := range list {
		out.Misses = append(out.Misses, missJSON{Path: m.Path, Count: m.Count, FirstSeen: formatExactTime(m.FirstSeen), LastSeen: formatExactTime(m.LastSeen)})
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// missRuleRequest makes a draft rule from a missed path: the path is the
// rule's source.
type missRuleRequest struct {
	Path          *string `json:"path"`
	Destination   *string `json:"destination"`
	StatusCode    *int    `json:"statusCode"`
	MatchType     *string `json:"matchType"`
	Priority      *int    `json:"priority"`
	PreservePath  *bool   `json:"preservePath"`
	PreserveQuery *bool   `json:"preserveQuery"`
}

// missRule puts a rule for a missed path in the draft and forgets the
// miss: "create a rule from this miss". Nothing is live until a deploy.
func (h *handler) missRule(w http.ResponseWriter, r *http.Request) error {
	p, err := h.authorizeProject(r, redirects.ActionEditRules)
	if err != nil {
		return err
	}
	var req missRuleRequest
	if err := h.decodeJSON(w, r, &req, false); err != nil {
		return err
	}
	if req.Path == nil {
		return missingField("path")
	}
	f := ruleFields{Destination: req.Destination, StatusCode: req.StatusCode, MatchType: req.MatchType, Priority: req.Priority,
		PreservePath: req.PreservePath, PreserveQuery: req.PreserveQuery}
	rule, err := f.rule(p.ID, *req.Path)
	if err != nil {
		return err
	}
	if err := h.addRule(w, r, rule); err != nil {
		return err
	}
	if err := h.store.DeleteMiss(r.Context(), p.ID, *req.Path); err != nil && redirects.ErrorCode(err) != redirects.ENOTFOUND {
		// The rule is in the draft; the miss stays listed until it is
		// forgotten. Log it rather than fail an accepted change.
		h.logger.Error("forgetting a miss that a rule now answers", "project", p.ID, "path", *req.Path, "err", err)
	}
	return nil
}

// missDelete forgets a missed path (?path=), for one nobody will make a
// rule of.
func (h *handler) missDelete(w http.ResponseWriter, r *http.Request) error {
	p, err := h.authorizeProject(r, redirects.ActionEditRules)
	if err != nil {
		return err
	}
	path, err := query(r, "path")
	if err != nil {
		return err
	}
	if path == "" {
		return badQuery("the query parameter \"path\" is missing: give the missed path to forget")
	}
	if err := h.store.DeleteMiss(r.Context(), p.ID, path); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// formatExactTime is formatTime keeping the fraction of a second the store
// holds (RFC 3339 allows it): the times of hits and misses, which the
// command line prints with --json as the store gives them, through the API
// as with --db.
func formatExactTime(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }
