package ui

import (
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"redirects"
	"redirects/engine/pattern"
	"redirects/export"
)

// rulesPerPage is the size of a page of the rules table.
const rulesPerPage = 50

// ruleQuery is the rules table's state, from the URL: search, filters,
// sort and cursor.
type ruleQuery struct {
	Q, Match, Status, Host, Sort string
	After, Before                string
}

func readRuleQuery(r *http.Request) ruleQuery {
	// The table's state is always in the URL, also of a form's action:
	// the form's own fields (status, match) are the rule's.
	v := r.URL.Query()
	return ruleQuery{Q: v.Get("q"), Match: v.Get("match"), Status: v.Get("status"), Host: strings.TrimSpace(v.Get("host")),
		Sort: v.Get("sort"), After: v.Get("after"), Before: v.Get("before")}
}

// filter turns the search and filters into the store's, naming what is
// wrong.
func (q ruleQuery) filter() (redirects.RuleFilter, error) {
	f := redirects.RuleFilter{Query: q.Q}
	if q.Match != "" {
		mt, err := redirects.ParseMatchType(q.Match)
		if err != nil {
			return f, &pageError{status: http.StatusBadRequest, msg: "Match type " + strconv.Quote(q.Match) + " is not one of exact, starts_with, pattern, regex."}
		}
		f.MatchType = &mt
	}
	if q.Status != "" {
		n, err := strconv.Atoi(q.Status)
		if err != nil {
			return f, &pageError{status: http.StatusBadRequest, msg: "Status " + strconv.Quote(q.Status) + " is not one of 301, 302, 303, 307, 308, 410."}
		}
		f.StatusCode = n
	}
	if q.Host != "" {
		// An empty field is every host (the store's "" would be the
		// host-less rules only).
		h := q.Host
		f.Host = &h
	}
	if err := f.Validate(); err != nil {
		if f.Host != nil && strings.HasPrefix(redirects.ErrorMessage(err), "host") {
			return f, &pageError{status: http.StatusBadRequest, msg: "Host " + strconv.Quote(q.Host) + " is not a host name: give one such as www.example.com, or *.example.com for the rules of every subdomain."}
		}
		return f, err
	}
	return f, nil
}

// Params returns the query's filter and sort, for links and hidden fields
// (without the cursor).
func (q ruleQuery) Params() map[string]string {
	return map[string]string{"q": q.Q, "match": q.Match, "status": q.Status, "host": q.Host, "sort": q.Sort}
}

// Filtered reports whether a search or filter narrows the table.
func (q ruleQuery) Filtered() bool {
	return q.Q != "" || q.Match != "" || q.Status != "" || q.Host != ""
}

// encodeQuery writes the non-empty values as a query string.
func encodeQuery(m map[string]string) string {
	v := url.Values{}
	for k, s := range m {
		if s != "" {
			v.Set(k, s)
		}
	}
	return v.Encode()
}

// reverseSort is the opposite order of s, to page backwards.
func reverseSort(s redirects.RuleSort) redirects.RuleSort {
	if s.Desc() {
		return redirects.RuleSort(s.Key())
	}
	return "-" + s
}

type rulesData struct {
	Query      ruleQuery
	Rules      []ruleRow
	Total      int
	Next, Prev string
	CanEdit    bool
	Sorts      []option
	Statuses   []int
	MatchTypes []redirects.MatchType
	// Form is the add form, nil for a reader.
	Form *ruleFormData
	// ShowOptions is true when a rule of the page has an option: the
	// table then has a column for them; ShowHost when a rule of the page
	// has a host, or the table is filtered by one.
	ShowOptions, ShowHost bool
}

type option struct{ Value, Label string }

// ruleRow is a rule of the Rules tab with what the edge counted of it.
type ruleRow struct {
	redirects.Rule
	Hits    int64
	LastHit time.Time // zero: never hit
}

// withHits returns the rules of pg with their hits (docs/contract.md,
// "Hits and misses").
func withHits(pg *redirects.RulePage) []ruleRow {
	idx := redirects.HitIndex(pg.Hits)
	rows := make([]ruleRow, len(pg.Rules))
	for i, rule := range pg.Rules {
		rows[i].Rule = rule
		if hh, ok := idx[rule.HitKey()]; ok {
			rows[i].Hits, rows[i].LastHit = hh.Hits, hh.LastHit
		}
	}
	return rows
}

var ruleSorts = []option{
	{"source", "Source A–Z"}, {"-source", "Source Z–A"},
	{"-id", "Newest first"}, {"id", "Oldest first"},
	{"priority", "Priority, low first"}, {"-priority", "Priority, high first"},
}

// rulesPage is the Rules tab: one page of the draft rules, searched,
// filtered and sorted by the store, with next and previous cursors.
func (h *handler) rulesPage(w http.ResponseWriter, r *http.Request) error {
	ph, o, err := h.project(r, redirects.ActionRead)
	if err != nil {
		return err
	}
	q := readRuleQuery(r)
	var f *ruleFormData
	if may(r, o.ID, redirects.ActionEditRules) {
		f = h.addForm(r, ph, q, ruleValues{Status: "301", Match: "exact", Priority: strconv.Itoa(redirects.DefaultPriority)})
	}
	return h.showRules(w, r, http.StatusOK, ph, o, q, f)
}

// addForm is the rules page's add form with the values v.
func (h *handler) addForm(r *http.Request, ph *projectHeader, q ruleQuery, v ruleValues) *ruleFormData {
	return &ruleFormData{Prefix: "new-", Action: rulesURL(ph.ID, q.Params()), Submit: "Add rule", V: v,
		Errors: formErrors{}, Statuses: statusOptions, MatchTypes: matchTypeOptions,
		Regexes: h.regexCount(r.Context(), ph.ID), RegexMax: redirects.MaxRegexRules}
}

// showRules renders the Rules tab with the add form f (nil for a reader):
// the empty form, or the one just posted with its preview or refusals.
func (h *handler) showRules(w http.ResponseWriter, r *http.Request, status int, ph *projectHeader, o *redirects.Org, q ruleQuery, form *ruleFormData) error {
	d := rulesData{Query: q, CanEdit: form != nil, Sorts: ruleSorts, Statuses: redirects.StatusCodes,
		MatchTypes: redirects.MatchTypes, Form: form}
	f, err := q.filter()
	if err != nil {
		return err
	}
	sort, err := redirects.ParseRuleSort(q.Sort)
	if err != nil {
		return err
	}
	pq := redirects.RulePageQuery{Filter: f, Sort: sort, Limit: rulesPerPage, After: q.After}
	backwards := q.Before != "" && q.After == ""
	if backwards {
		pq.Sort, pq.After = reverseSort(sort), q.Before
	}
	pg, err := h.svc.Rules.FindRulePage(r.Context(), ph.ID, pq)
	if err != nil {
		return err
	}
	d.Rules = withHits(pg)
	d.Total = pg.Total
	d.ShowHost = q.Host != ""
	for i := range d.Rules {
		d.ShowOptions = d.ShowOptions || len(optionWords(d.Rules[i].Rule)) > 0
		d.ShowHost = d.ShowHost || d.Rules[i].Host != ""
	}
	base := q.Params()
	link := func(key, cursor string) string {
		m := map[string]string{key: cursor}
		for k, v := range base {
			m[k] = v
		}
		return "?" + encodeQuery(m)
	}
	if backwards {
		slices.Reverse(d.Rules)
		if pg.Next != "" && len(d.Rules) > 0 {
			d.Prev = link("before", redirects.CursorAfter(reverseSort(sort), &d.Rules[0].Rule))
		}
		if len(d.Rules) > 0 {
			d.Next = link("after", redirects.CursorAfter(sort, &d.Rules[len(d.Rules)-1].Rule))
		}
	} else {
		if pg.Next != "" {
			d.Next = link("after", pg.Next)
		}
		if q.After != "" && len(d.Rules) > 0 {
			d.Prev = link("before", redirects.CursorAfter(reverseSort(sort), &d.Rules[0].Rule))
		}
	}
	return h.render(w, r, status, "rules", &page{Title: "Rules · " + ph.Name, Org: o, Project: ph, Tab: "rules", Data: d})
}

// rulesURL is the Rules tab of a project with a table state.
func rulesURL(projectID string, q map[string]string) string {
	u := "/projects/" + projectID + "/rules"
	if s := encodeQuery(q); s != "" {
		u += "?" + s
	}
	return u
}

// ruleCreate adds a draft rule, or, sent with the Preview button, shows
// the form again with what the rule would answer for the sample request
// and saves nothing. A refused rule is shown again as typed, each error
// beside its field.
func (h *handler) ruleCreate(w http.ResponseWriter, r *http.Request) error {
	ph, o, err := h.project(r, redirects.ActionEditRules)
	if err != nil {
		return err
	}
	q := readRuleQuery(r)
	v := readValues(r)
	f := h.addForm(r, ph, q, v)
	if previewing(r) {
		f.Preview = preview(v, ph.Settings, f.Errors)
		f.settle("The rule cannot be previewed: ")
		return h.showRules(w, r, http.StatusOK, ph, o, q, f)
	}
	rule := ruleOf(v, f.Errors)
	if len(f.Errors) == 0 {
		rule.ProjectID = ph.ID
		if err := h.svc.Rules.AddRule(r.Context(), rule); err != nil {
			if statusOf(err) >= 500 {
				return err
			}
			if !locate(err, rule, v, f.Errors) {
				f.Errors.add("form", "", message(err), -1)
			}
		}
	}
	if len(f.Errors) > 0 {
		f.settle("The rule was not added: ")
		return h.showRules(w, r, http.StatusUnprocessableEntity, ph, o, q, f)
	}
	return h.redirect(w, r, rulesURL(ph.ID, q.Params()), flashOK, "Added "+rule.MatchType.String()+" rule "+ruleName(rule)+" → "+ruleTarget(rule)+". Deploy to make it live.")
}

// hostKeyOr is a rule's host in the form the store keeps it, or h as
// typed when it is not a host (the update then refuses it, naming it).
func hostKeyOr(h string) string {
	if h == "" {
		return ""
	}
	if k, err := pattern.RuleHost(h); err == nil {
		return k
	}
	return h
}

// ruleName is a rule's source, with its host when it has one:
// "old.example.com /docs/*".
func ruleName(r *redirects.Rule) string {
	if r.Host != "" {
		return r.Host + " " + r.Source
	}
	return r.Source
}

// ruleID reads the path's {id}.
func ruleID(r *http.Request) (int64, error) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil || id <= 0 {
		return 0, errNotFound("rule")
	}
	return id, nil
}

type ruleEditData struct {
	Rule  *redirects.Rule
	Query ruleQuery
	// Form is the edit form (nil on the delete page).
	Form *ruleFormData
}

// editForm is the edit form of rule with the values v.
func (h *handler) editForm(r *http.Request, ph *projectHeader, rule *redirects.Rule, q ruleQuery, v ruleValues) *ruleFormData {
	return &ruleFormData{Action: "/projects/" + ph.ID + "/rules/" + strconv.FormatInt(rule.ID, 10) + "/edit?" + encodeQuery(q.Params()),
		Submit: "Save rule", Revision: rule.Revision, Cancel: rulesURL(ph.ID, q.Params()), V: v,
		Errors: formErrors{}, Statuses: statusOptions, MatchTypes: matchTypeOptions,
		Regexes: h.regexCount(r.Context(), ph.ID), RegexMax: redirects.MaxRegexRules}
}

// ruleEditPage shows a rule in a form that carries its revision.
func (h *handler) ruleEditPage(w http.ResponseWriter, r *http.Request) error {
	ph, o, err := h.project(r, redirects.ActionEditRules)
	if err != nil {
		return err
	}
	id, err := ruleID(r)
	if err != nil {
		return err
	}
	rule, err := h.svc.Rules.FindRule(r.Context(), ph.ID, id)
	if err != nil {
		return err
	}
	q := readRuleQuery(r)
	return h.showEdit(w, r, http.StatusOK, ph, o, rule, q, h.editForm(r, ph, rule, q, valuesOf(rule)))
}

func (h *handler) showEdit(w http.ResponseWriter, r *http.Request, status int, ph *projectHeader, o *redirects.Org, rule *redirects.Rule, q ruleQuery, f *ruleFormData) error {
	return h.render(w, r, status, "rule_edit", &page{Title: "Edit rule " + rule.Source, Org: o, Project: ph, Tab: "rules",
		Data: ruleEditData{Rule: rule, Query: q, Form: f}})
}

// staleRule is the message of an edit or delete made against an old
// revision.
const staleRule = "This rule was changed by someone else since you opened it: reload to see the current version. Nothing was changed."

// ruleUpdate changes a draft rule if it is still at the revision the form
// was made from; otherwise it changes nothing and says so. Sent with the
// Preview button, it shows the form again with what the changed rule
// would answer, and changes nothing.
func (h *handler) ruleUpdate(w http.ResponseWriter, r *http.Request) error {
	ph, o, err := h.project(r, redirects.ActionEditRules)
	if err != nil {
		return err
	}
	id, err := ruleID(r)
	if err != nil {
		return err
	}
	q := readRuleQuery(r)
	edit := "/projects/" + ph.ID + "/rules/" + strconv.FormatInt(id, 10) + "/edit?" + encodeQuery(q.Params())
	rev, err := strconv.ParseInt(r.PostFormValue("revision"), 10, 64)
	if err != nil || rev <= 0 {
		return &pageError{status: http.StatusBadRequest, msg: "The form has no rule revision: open the rule again from the rules table."}
	}
	cur, err := h.svc.Rules.FindRule(r.Context(), ph.ID, id)
	if err != nil {
		return err
	}
	v := readValues(r)
	shown := *cur
	shown.Revision = rev // the form's: a save from it is checked against it
	f := h.editForm(r, ph, &shown, q, v)
	if previewing(r) {
		f.Preview = preview(v, ph.Settings, f.Errors)
		f.settle("The rule cannot be previewed: ")
		return h.showEdit(w, r, http.StatusOK, ph, o, &shown, q, f)
	}
	want := ruleOf(v, f.Errors)
	if len(f.Errors) > 0 {
		f.settle("The rule was not changed: ")
		return h.showEdit(w, r, http.StatusUnprocessableEntity, ph, o, &shown, q, f)
	}
	cmp := *want
	cmp.Host = hostKeyOr(want.Host) // the host as stored, to compare
	if len(want.ExceptHosts) > 0 {
		cmp.ExceptHosts = make([]string, len(want.ExceptHosts))
		for i, h := range want.ExceptHosts {
			cmp.ExceptHosts[i] = hostKeyOr(h)
		}
	}
	u := redirects.RuleChanges(cur, &cmp)
	u.Revision = rev
	if u.Host != nil {
		u.Host = &want.Host
	}
	if u.Empty() {
		if cur.Revision != rev {
			return h.redirect(w, r, edit, flashErr, staleRule)
		}
		return h.redirect(w, r, rulesURL(ph.ID, q.Params()), flashOK, "Nothing to change in rule "+ruleName(cur)+".")
	}
	rule, err := h.svc.Rules.UpdateRule(r.Context(), ph.ID, id, u)
	switch {
	case redirects.ErrorCode(err) == redirects.EREVISION:
		return h.redirect(w, r, edit, flashErr, staleRule)
	case err != nil && statusOf(err) < 500:
		if !locate(err, want, v, f.Errors) {
			f.Errors.add("form", "", message(err), -1)
		}
		f.settle("The rule was not changed: ")
		return h.showEdit(w, r, http.StatusUnprocessableEntity, ph, o, &shown, q, f)
	case err != nil:
		return err
	}
	return h.redirect(w, r, rulesURL(ph.ID, q.Params()), flashOK, "Saved rule "+ruleName(rule)+" → "+ruleTarget(rule)+". Deploy to make the change live.")
}

// ruleDeletePage asks before a rule is deleted.
func (h *handler) ruleDeletePage(w http.ResponseWriter, r *http.Request) error {
	ph, o, err := h.project(r, redirects.ActionEditRules)
	if err != nil {
		return err
	}
	id, err := ruleID(r)
	if err != nil {
		return err
	}
	rule, err := h.svc.Rules.FindRule(r.Context(), ph.ID, id)
	if err != nil {
		return err
	}
	return h.render(w, r, http.StatusOK, "rule_delete", &page{Title: "Delete rule " + rule.Source, Org: o, Project: ph, Tab: "rules",
		Data: ruleEditData{Rule: rule, Query: readRuleQuery(r)}})
}

// ruleDelete deletes a draft rule at the revision the confirmation showed.
func (h *handler) ruleDelete(w http.ResponseWriter, r *http.Request) error {
	ph, _, err := h.project(r, redirects.ActionEditRules)
	if err != nil {
		return err
	}
	id, err := ruleID(r)
	if err != nil {
		return err
	}
	q := readRuleQuery(r)
	rev, _ := strconv.ParseInt(r.PostFormValue("revision"), 10, 64)
	err = h.svc.Rules.DeleteRule(r.Context(), ph.ID, id, max(rev, 0))
	switch {
	case redirects.ErrorCode(err) == redirects.EREVISION:
		return h.redirect(w, r, rulesURL(ph.ID, q.Params()), flashErr, "This rule was changed by someone else since you opened it: look at it again before you delete it. Nothing was deleted.")
	case err != nil:
		return err
	}
	return h.redirect(w, r, rulesURL(ph.ID, q.Params()), flashOK, "Deleted rule "+r.PostFormValue("source")+". Deploy to make the change live.")
}

type bulkData struct {
	Query ruleQuery
	Count int
}

// ruleBulkDeletePage asks before every rule of the filtered set is
// deleted, naming how many.
func (h *handler) ruleBulkDeletePage(w http.ResponseWriter, r *http.Request) error {
	ph, o, err := h.project(r, redirects.ActionEditRules)
	if err != nil {
		return err
	}
	q := readRuleQuery(r)
	f, err := q.filter()
	if err != nil {
		return err
	}
	pg, err := h.svc.Rules.FindRulePage(r.Context(), ph.ID, redirects.RulePageQuery{Filter: f, Limit: 1})
	if err != nil {
		return err
	}
	return h.render(w, r, http.StatusOK, "rules_delete", &page{Title: "Delete rules · " + ph.Name, Org: o, Project: ph, Tab: "rules",
		Data: bulkData{Query: q, Count: pg.Total}})
}

// ruleBulkDelete deletes every draft rule the filter selects, in one
// transaction.
func (h *handler) ruleBulkDelete(w http.ResponseWriter, r *http.Request) error {
	ph, _, err := h.project(r, redirects.ActionEditRules)
	if err != nil {
		return err
	}
	q := readRuleQuery(r)
	f, err := q.filter()
	if err != nil {
		return err
	}
	n, err := h.svc.Rules.DeleteRules(r.Context(), ph.ID, f)
	if err != nil {
		return err
	}
	return h.redirect(w, r, rulesURL(ph.ID, nil), flashOK, "Deleted "+plural(n, "rule")+". Deploy to make the change live.")
}

// rulesCSV downloads the draft as the API's rules.csv does
// (export.WriteDraftCSV): every field, the options too, in the file the
// Import tab reads back.
func (h *handler) rulesCSV(w http.ResponseWriter, r *http.Request) error {
	ph, _, err := h.project(r, redirects.ActionRead)
	if err != nil {
		return err
	}
	_, rules, err := h.svc.Rules.FindDraft(r.Context(), ph.ID)
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	w.Header().Set("Content-Disposition", "attachment; filename="+strconv.Quote(safeFilename(ph.Name+"-draft.csv")))
	return export.WriteDraftCSV(w, rules)
}
