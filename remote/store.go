package remote

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"redirects"
	"redirects/engine"
	"redirects/export"
	"redirects/safety"
)

// Store is redirects.Store over the management API. The methods the API
// serves answer as the database's store does; the others answer
// errDatabase.
type Store struct {
	c *Client
}

// NewStore returns the store of the API that c calls.
func NewStore(c *Client) *Store { return &Store{c: c} }

var _ redirects.Store = (*Store)(nil)

// Close releases nothing: each call is its own request.
func (s *Store) Close() error { return nil }

// Client returns the store's client.
func (s *Store) Client() *Client { return s.c }

// ---- organizations

type orgJSON struct {
	ID                string `json:"id"`
	Name              string `json:"name"`
	Tier              string `json:"tier"`
	RateLimit         string `json:"rateLimit"`
	MonthlyQuota      string `json:"monthlyQuota"`
	RateLimitOverride bool   `json:"rateLimitOverride"`
	QuotaOverride     bool   `json:"monthlyQuotaOverride"`
	CreatedAt         string `json:"createdAt"`
}

func (j *orgJSON) org() *redirects.Org {
	o := &redirects.Org{ID: j.ID, Name: j.Name, Tier: redirects.Tier(j.Tier), CreatedAt: parseTime(j.CreatedAt)}
	if j.RateLimitOverride {
		if l, err := redirects.ParseLimit("rateLimit", j.RateLimit); err == nil {
			o.RateLimitOverride = &l
		}
	}
	if j.QuotaOverride {
		if l, err := redirects.ParseLimit("monthlyQuota", j.MonthlyQuota); err == nil {
			o.QuotaOverride = &l
		}
	}
	return o
}

func limitJSON(l *redirects.Limit) any {
	if l == nil {
		return nil
	}
	return l.String()
}

func (s *Store) CreateOrg(ctx context.Context, o *redirects.Org) error {
	body := map[string]any{"name": o.Name, "tier": string(o.Tier)}
	if o.RateLimitOverride != nil {
		body["rateLimit"] = limitJSON(o.RateLimitOverride)
	}
	if o.QuotaOverride != nil {
		body["monthlyQuota"] = limitJSON(o.QuotaOverride)
	}
	var j orgJSON
	if err := s.c.do(ctx, "POST", "/orgs", nil, body, "", &j); err != nil {
		return err
	}
	*o = *j.org()
	return nil
}

func (s *Store) UpdateOrg(ctx context.Context, id string, u redirects.OrgUpdate) (*redirects.Org, error) {
	body := map[string]any{}
	if u.Name != nil {
		body["name"] = *u.Name
	}
	if u.Tier != nil {
		body["tier"] = string(*u.Tier)
	}
	if u.RateLimit != nil {
		body["rateLimit"] = limitJSON(u.RateLimit)
	}
	if u.MonthlyQuota != nil {
		body["monthlyQuota"] = limitJSON(u.MonthlyQuota)
	}
	if u.ClearRateLimit {
		body["rateLimit"] = "default"
	}
	if u.ClearQuota {
		body["monthlyQuota"] = "default"
	}
	var j orgJSON
	if err := s.c.do(ctx, "PATCH", "/orgs/"+pathEscape(id), nil, body, "", &j); err != nil {
		return nil, err
	}
	return j.org(), nil
}

func (s *Store) FindOrgByID(ctx context.Context, id string) (*redirects.Org, error) {
	var j orgJSON
	if err := s.c.do(ctx, "GET", "/orgs/"+pathEscape(id), nil, nil, "", &j); err != nil {
		return nil, err
	}
	return j.org(), nil
}

func (s *Store) FindOrgs(ctx context.Context) ([]*redirects.Org, error) {
	var j struct{ Orgs []orgJSON }
	if err := s.c.do(ctx, "GET", "/orgs", nil, nil, "", &j); err != nil {
		return nil, err
	}
	out := make([]*redirects.Org, len(j.Orgs))
	for i := range j.Orgs {
		out[i] = j.Orgs[i].org()
	}
	return out, nil
}

func (s *Store) DeleteOrg(ctx context.Context, id string) error {
	o, err := s.FindOrgByID(ctx, id)
	if err != nil {
		return err
	}
	return s.c.do(ctx, "DELETE", "/orgs/"+pathEscape(id), nil, map[string]string{"confirm": o.Name}, "", nil)
}

// ---- projects

type projectJSON struct {
	ID            string   `json:"id"`
	OrgID         string   `json:"orgId"`
	Name          string   `json:"name"`
	CreatedAt     string   `json:"createdAt"`
	KeepExports   int      `json:"keepExports"`
	Hosts         []string `json:"hosts"`
	CaseSensitive bool     `json:"caseSensitive"`
	TrailingSlash string   `json:"trailingSlash"`
	ShrinkLimit   *int     `json:"shrinkLimit"`
	RequireStage  bool     `json:"requireStage"`
	LiveVersion   *int     `json:"liveVersion"`
}

func (j *projectJSON) project() *redirects.Project {
	p := &redirects.Project{ID: j.ID, OrgID: j.OrgID, Name: j.Name, CreatedAt: parseTime(j.CreatedAt),
		ExportRetention: j.KeepExports, Hosts: j.Hosts, ShrinkLimit: redirects.DefaultShrinkLimit,
		Settings: redirects.Settings{CaseInsensitive: !j.CaseSensitive, IgnoreTrailingSlash: j.TrailingSlash == "ignore"}}
	if len(p.Hosts) == 0 {
		p.Hosts = nil
	}
	if j.ShrinkLimit != nil {
		p.ShrinkLimit = *j.ShrinkLimit
	}
	p.RequireStage = j.RequireStage
	if j.LiveVersion != nil {
		p.LiveVersion = *j.LiveVersion
	}
	return p
}

func (s *Store) CreateProject(ctx context.Context, p *redirects.Project) error {
	body := map[string]any{"name": p.Name}
	if p.ExportRetention > 0 {
		body["keepExports"] = p.ExportRetention
	}
	if len(p.Hosts) > 0 {
		body["hosts"] = p.Hosts
	}
	var j projectJSON
	if err := s.c.do(ctx, "POST", "/orgs/"+pathEscape(p.OrgID)+"/projects", nil, body, "", &j); err != nil {
		return err
	}
	*p = *j.project()
	return nil
}

func (s *Store) FindProjectByID(ctx context.Context, id string) (*redirects.Project, error) {
	var j projectJSON
	if err := s.c.do(ctx, "GET", "/projects/"+pathEscape(id), nil, nil, "", &j); err != nil {
		return nil, err
	}
	return j.project(), nil
}

func (s *Store) FindProjects(ctx context.Context, orgID string) ([]*redirects.Project, error) {
	orgs := []string{orgID}
	if orgID == "" {
		os, err := s.FindOrgs(ctx)
		if err != nil {
			return nil, err
		}
		orgs = orgs[:0]
		for _, o := range os {
			orgs = append(orgs, o.ID)
		}
	}
	var out []*redirects.Project
	for _, id := range orgs {
		var j struct{ Projects []projectJSON }
		if err := s.c.do(ctx, "GET", "/orgs/"+pathEscape(id)+"/projects", nil, nil, "", &j); err != nil {
			return nil, err
		}
		for i := range j.Projects {
			p := j.Projects[i].project()
			// The list leaves the shrink limit out; ask for it.
			full, err := s.FindProjectByID(ctx, p.ID)
			if err != nil {
				return nil, err
			}
			out = append(out, full)
		}
	}
	return out, nil
}

func (s *Store) patchProject(ctx context.Context, id string, body map[string]any) (*redirects.Project, error) {
	if err := s.c.do(ctx, "PATCH", "/projects/"+pathEscape(id), nil, body, "", nil); err != nil {
		return nil, err
	}
	return s.FindProjectByID(ctx, id)
}

func (s *Store) UpdateProject(ctx context.Context, id, name string) (*redirects.Project, error) {
	return s.patchProject(ctx, id, map[string]any{"name": name})
}

func (s *Store) SetExportRetention(ctx context.Context, id string, n int) (*redirects.Project, error) {
	return s.patchProject(ctx, id, map[string]any{"keepExports": n})
}

func (s *Store) SetProjectShrinkLimit(ctx context.Context, id string, percent int) (*redirects.Project, error) {
	return s.patchProject(ctx, id, map[string]any{"shrinkLimit": percent})
}

func (s *Store) SetProjectHosts(ctx context.Context, id string, hosts []string) (*redirects.Project, error) {
	if hosts == nil {
		hosts = []string{}
	}
	return s.patchProject(ctx, id, map[string]any{"hosts": hosts})
}

func (s *Store) SetProjectRequireStage(ctx context.Context, id string, require bool) (*redirects.Project, error) {
	return s.patchProject(ctx, id, map[string]any{"requireStage": require})
}

func (s *Store) SetProjectSettings(ctx context.Context, id string, set redirects.Settings) (*redirects.Project, error) {
	return s.patchProject(ctx, id, map[string]any{"caseSensitive": set.CaseSensitive(), "trailingSlash": set.TrailingSlash()})
}

func (s *Store) DeleteProject(ctx context.Context, id string) error {
	p, err := s.FindProjectByID(ctx, id)
	if err != nil {
		return err
	}
	return s.c.do(ctx, "DELETE", "/projects/"+pathEscape(id), nil, map[string]string{"confirm": p.Name}, "", nil)
}

func (s *Store) SetProjectTests(ctx context.Context, id, csv string) error {
	if csv == "" {
		return s.c.do(ctx, "DELETE", "/projects/"+pathEscape(id)+"/tests", nil, nil, "", nil)
	}
	return s.c.do(ctx, "PUT", "/projects/"+pathEscape(id)+"/tests", nil, bytes.NewReader([]byte(csv)), "text/csv", nil)
}

func (s *Store) FindProjectTests(ctx context.Context, id string) (string, error) {
	var data []byte
	if err := s.c.do(ctx, "GET", "/projects/"+pathEscape(id)+"/tests", nil, nil, "", &data); err != nil {
		if redirects.ErrorCode(err) == redirects.ENOTFOUND {
			// No stored file; an unknown project says so on the next call.
			if _, perr := s.FindProjectByID(ctx, id); perr != nil {
				return "", perr
			}
			return "", nil
		}
		return "", err
	}
	return string(data), nil
}

// ---- rules

type ruleJSON struct {
	ID            int64  `json:"id"`
	Source        string `json:"source"`
	Destination   string `json:"destination"`
	StatusCode    int    `json:"statusCode"`
	MatchType     string `json:"matchType"`
	Priority      int    `json:"priority"`
	Revision      int64  `json:"revision"`
	CreatedAt     string `json:"createdAt"`
	PreservePath  bool   `json:"preservePath"`
	PreserveQuery bool   `json:"preserveQuery"`
}

func (j *ruleJSON) rule(projectID string) redirects.Rule {
	mt, _ := redirects.ParseMatchType(j.MatchType)
	return redirects.Rule{ID: j.ID, ProjectID: projectID, Source: j.Source, Destination: j.Destination, StatusCode: j.StatusCode,
		MatchType: mt, Priority: j.Priority, Revision: j.Revision, CreatedAt: parseTime(j.CreatedAt),
		PreservePath: j.PreservePath, PreserveQuery: j.PreserveQuery}
}

func (s *Store) AddRule(ctx context.Context, r *redirects.Rule) error {
	body := map[string]any{"source": r.Source, "destination": r.Destination, "statusCode": r.StatusCode,
		"matchType": r.MatchType.String(), "priority": r.Priority, "preservePath": r.PreservePath, "preserveQuery": r.PreserveQuery}
	var j ruleJSON
	if err := s.c.do(ctx, "POST", "/projects/"+pathEscape(r.ProjectID)+"/rules", nil, body, "", &j); err != nil {
		return err
	}
	*r = j.rule(r.ProjectID)
	return nil
}

func (s *Store) FindRule(ctx context.Context, projectID string, id int64) (*redirects.Rule, error) {
	var j ruleJSON
	if err := s.c.do(ctx, "GET", "/projects/"+pathEscape(projectID)+"/rules/"+strconv.FormatInt(id, 10), nil, nil, "", &j); err != nil {
		return nil, err
	}
	r := j.rule(projectID)
	return &r, nil
}

func filterQuery(f redirects.RuleFilter) url.Values {
	q := url.Values{}
	if f.Query != "" {
		q.Set("q", f.Query)
	}
	if f.MatchType != nil {
		q.Set("match", f.MatchType.String())
	}
	if f.StatusCode != 0 {
		q.Set("status", strconv.Itoa(f.StatusCode))
	}
	return q
}

func (s *Store) FindRulePage(ctx context.Context, projectID string, pq redirects.RulePageQuery) (*redirects.RulePage, error) {
	q := filterQuery(pq.Filter)
	if pq.Sort != "" {
		q.Set("sort", string(pq.Sort))
	}
	if pq.Limit > 0 {
		q.Set("limit", strconv.Itoa(pq.Limit))
	}
	if pq.After != "" {
		q.Set("after", pq.After)
	}
	var j struct {
		Rules []ruleJSON
		Next  *string
		Total int
	}
	if err := s.c.do(ctx, "GET", "/projects/"+pathEscape(projectID)+"/rules", q, nil, "", &j); err != nil {
		return nil, err
	}
	page := &redirects.RulePage{Rules: make([]redirects.Rule, len(j.Rules)), Total: j.Total}
	for i := range j.Rules {
		page.Rules[i] = j.Rules[i].rule(projectID)
	}
	if j.Next != nil {
		page.Next = *j.Next
	}
	return page, nil
}

// FindRules reads every page, then orders the rules as the store does
// (engine.SortRules).
func (s *Store) FindRules(ctx context.Context, projectID string) ([]redirects.Rule, error) {
	var out []redirects.Rule
	q := redirects.RulePageQuery{Sort: "id", Limit: 1000}
	for {
		page, err := s.FindRulePage(ctx, projectID, q)
		if err != nil {
			return nil, err
		}
		for _, r := range page.Rules {
			r.Revision = 0 // as the store's FindRules leaves it
			out = append(out, r)
		}
		if page.Next == "" {
			break
		}
		q.After = page.Next
	}
	engine.SortRules(out)
	return out, nil
}

func (s *Store) UpdateRule(ctx context.Context, projectID string, id int64, u redirects.RuleUpdate) (*redirects.Rule, error) {
	body := map[string]any{}
	if u.Source != nil {
		body["source"] = *u.Source
	}
	if u.Destination != nil {
		body["destination"] = *u.Destination
	}
	if u.StatusCode != nil {
		body["statusCode"] = *u.StatusCode
	}
	if u.MatchType != nil {
		body["matchType"] = u.MatchType.String()
	}
	if u.Priority != nil {
		body["priority"] = *u.Priority
	}
	if u.PreservePath != nil {
		body["preservePath"] = *u.PreservePath
	}
	if u.PreserveQuery != nil {
		body["preserveQuery"] = *u.PreserveQuery
	}
	if u.Revision != 0 {
		body["revision"] = u.Revision
	}
	var j ruleJSON
	if err := s.c.do(ctx, "PATCH", "/projects/"+pathEscape(projectID)+"/rules/"+strconv.FormatInt(id, 10), nil, body, "", &j); err != nil {
		return nil, err
	}
	r := j.rule(projectID)
	return &r, nil
}

func (s *Store) DeleteRule(ctx context.Context, projectID string, id int64) error {
	return s.c.do(ctx, "DELETE", "/projects/"+pathEscape(projectID)+"/rules/"+strconv.FormatInt(id, 10), nil, nil, "", nil)
}

func (s *Store) DeleteRuleRevision(ctx context.Context, projectID string, id, revision int64) error {
	if revision == 0 {
		return s.DeleteRule(ctx, projectID, id)
	}
	return s.c.do(ctx, "DELETE", "/projects/"+pathEscape(projectID)+"/rules/"+strconv.FormatInt(id, 10), nil,
		map[string]int64{"revision": revision}, "", nil)
}

func (s *Store) DeleteRules(ctx context.Context, projectID string, f redirects.RuleFilter) (int, error) {
	q := filterQuery(f)
	q.Set("confirm", "true")
	var j struct{ Deleted int }
	err := s.c.do(ctx, "DELETE", "/projects/"+pathEscape(projectID)+"/rules", q, nil, "", &j)
	return j.Deleted, err
}

// Import sends the rules as the draft CSV (rules.csv's columns, which the
// import reads back as they are).
func (s *Store) Import(ctx context.Context, projectID string, rules []redirects.Rule, opts redirects.ImportOptions) (*redirects.ImportReport, error) {
	var buf bytes.Buffer
	if err := export.WriteDraftCSV(&buf, rules); err != nil {
		return nil, err
	}
	mode := opts.Mode
	if mode == "" {
		mode = redirects.ImportAppend
	}
	// from=csv: the file is the draft CSV either way, and the answer then
	// names the import's undo record.
	q := url.Values{"mode": {string(mode)}, "dry_run": {strconv.FormatBool(opts.DryRun)}, "from": {"csv"}}
	var j struct {
		UndoID                             int64
		Mode                               string
		DryRun                             bool
		Added, Updated, Unchanged, Removed int
		Errors                             []export.LineError
		ErrorCount                         int
	}
	path := "/projects/" + pathEscape(projectID) + "/imports"
	status, data, err := s.c.send(ctx, "POST", path, q, &buf, "text/csv")
	if err != nil {
		return nil, err
	}
	if status >= 400 {
		apiErr := s.c.apiError(status, "POST", path, data)
		if json.Unmarshal(data, &j) != nil || len(j.Errors) == 0 {
			return nil, apiErr
		}
		// The store's message: "rule N: ..." per bad rule, N its place in
		// the batch, which is its line in the file sent less the header.
		lines := make([]string, 0, len(j.Errors)+1)
		for _, e := range j.Errors {
			lines = append(lines, "rule "+strconv.Itoa(e.Line-1)+": "+e.Message)
		}
		if j.ErrorCount > len(j.Errors) {
			lines = append(lines, "... and "+strconv.Itoa(j.ErrorCount-len(j.Errors))+" more")
		}
		return nil, &redirects.Error{Code: redirects.ErrorCode(apiErr), Message: strings.Join(lines, "\n")}
	}
	if err := jsonUnmarshal(data, &j); err != nil {
		return nil, err
	}
	return &redirects.ImportReport{Mode: redirects.ImportMode(j.Mode), DryRun: j.DryRun, Added: j.Added, Updated: j.Updated,
		Unchanged: j.Unchanged, Removed: j.Removed, UndoID: j.UndoID}, nil
}

// UndoImport puts the draft back as it was before the applied import
// undoID, through the API.
func (s *Store) UndoImport(ctx context.Context, projectID string, undoID int64) (int, error) {
	var j struct{ Rules int }
	err := s.c.do(ctx, "POST", "/projects/"+pathEscape(projectID)+"/imports/"+strconv.FormatInt(undoID, 10)+"/undo", nil, nil, "", &j)
	return j.Rules, err
}

// CheckImportUndo needs the database: the API answers it only by undoing.
func (s *Store) CheckImportUndo(context.Context, string, int64) error {
	return errDatabase("checking whether an import can be undone")
}

func (s *Store) ImportRules(ctx context.Context, projectID string, rules []redirects.Rule, replace bool) (int, error) {
	mode := redirects.ImportAppend
	if replace {
		mode = redirects.ImportReplace
	}
	if _, err := s.Import(ctx, projectID, rules, redirects.ImportOptions{Mode: mode}); err != nil {
		return 0, err
	}
	return len(rules), nil
}

// ---- keys

type keyJSON struct {
	ID        string  `json:"id"`
	Name      string  `json:"name"`
	Mode      string  `json:"mode"`
	Last4     string  `json:"last4"`
	CreatedAt string  `json:"createdAt"`
	RevokedAt *string `json:"revokedAt"`
	Secret    string  `json:"secret"`
}

func (j *keyJSON) key(projectID string) *redirects.Key {
	k := &redirects.Key{ID: j.ID, ProjectID: projectID, Name: j.Name, Test: j.Mode == "test", Last4: j.Last4, CreatedAt: parseTime(j.CreatedAt)}
	if j.RevokedAt != nil {
		t := parseTime(*j.RevokedAt)
		k.RevokedAt = &t
	}
	return k
}

// CreateKey cannot store a key made here: the API makes the secret.
// NewKey is the remote way.
func (s *Store) CreateKey(ctx context.Context, k *redirects.Key) error {
	return errDatabase("storing a key made on this machine")
}

// NewKey has the API make a key and returns it with its secret, shown
// this once.
func (s *Store) NewKey(ctx context.Context, projectID, name string, test bool) (*redirects.Key, string, error) {
	var j keyJSON
	if err := s.c.do(ctx, "POST", "/projects/"+pathEscape(projectID)+"/keys", nil, map[string]any{"name": name, "test": test}, "", &j); err != nil {
		return nil, "", err
	}
	return j.key(projectID), j.Secret, nil
}

func (s *Store) FindKeys(ctx context.Context, projectID string) ([]*redirects.Key, error) {
	var j struct{ Keys []keyJSON }
	if err := s.c.do(ctx, "GET", "/projects/"+pathEscape(projectID)+"/keys", nil, nil, "", &j); err != nil {
		return nil, err
	}
	out := make([]*redirects.Key, len(j.Keys))
	for i := range j.Keys {
		out[i] = j.Keys[i].key(projectID)
	}
	return out, nil
}

// RevokeKey revokes a key by its ID or its full secret, which the API
// takes in the body (a secret does not belong in a URL).
func (s *Store) RevokeKey(ctx context.Context, projectID, ref string) (*redirects.Key, error) {
	var j keyJSON
	if err := s.c.do(ctx, "POST", "/projects/"+pathEscape(projectID)+"/revoke-key", nil, map[string]any{"key": ref}, "", &j); err != nil {
		return nil, err
	}
	return j.key(projectID), nil
}

// ---- deployments

type deploymentJSON struct {
	Version       int     `json:"version"`
	CreatedAt     string  `json:"createdAt"`
	ExactRules    int     `json:"exactRules"`
	PrefixRules   int     `json:"prefixRules"`
	Message       string  `json:"message"`
	FromVersion   *int    `json:"fromVersion"`
	Report        string  `json:"report"`
	CaseSensitive bool    `json:"caseSensitive"`
	TrailingSlash string  `json:"trailingSlash"`
	Live          bool    `json:"live"`
	Staged        bool    `json:"staged"`
	PromotedAt    *string `json:"promotedAt"`
}

func (j *deploymentJSON) deployment(projectID string) *redirects.Deployment {
	d := &redirects.Deployment{ProjectID: projectID, Version: j.Version, CreatedAt: parseTime(j.CreatedAt), ExactCount: j.ExactRules,
		PrefixCount: j.PrefixRules, Message: j.Message, Report: j.Report,
		Settings: redirects.Settings{CaseInsensitive: !j.CaseSensitive, IgnoreTrailingSlash: j.TrailingSlash == "ignore"}}
	if j.FromVersion != nil {
		d.FromVersion = *j.FromVersion
	}
	d.Live, d.Staged = j.Live, j.Staged
	if j.PromotedAt != nil {
		d.PromotedAt = parseTime(*j.PromotedAt)
	}
	return d
}

// PromoteDeployment makes a version live through the API.
func (s *Store) PromoteDeployment(ctx context.Context, projectID string, version int) (*redirects.Deployment, error) {
	var j deploymentJSON
	if err := s.c.do(ctx, "POST", "/projects/"+pathEscape(projectID)+"/deployments/"+strconv.Itoa(version)+"/promote", nil, nil, "", &j); err != nil {
		return nil, err
	}
	return j.deployment(projectID), nil
}

// DiscardDeployment discards a staged version through the API.
func (s *Store) DiscardDeployment(ctx context.Context, projectID string, version int) error {
	return s.c.do(ctx, "DELETE", "/projects/"+pathEscape(projectID)+"/deployments/"+strconv.Itoa(version), nil, nil, "", nil)
}

func (s *Store) FindDeployments(ctx context.Context, projectID string) ([]*redirects.Deployment, error) {
	var j struct{ Deployments []deploymentJSON }
	if err := s.c.do(ctx, "GET", "/projects/"+pathEscape(projectID)+"/deployments", nil, nil, "", &j); err != nil {
		return nil, err
	}
	out := make([]*redirects.Deployment, len(j.Deployments))
	for i := range j.Deployments {
		out[i] = j.Deployments[i].deployment(projectID)
	}
	return out, nil
}

// Deploy deploys through the API (the deploy gate runs on the server, in
// its write transaction), as safety.Deploy does on the database: a blocked
// deploy returns the gate's report and a *safety.BlockedError. The report
// of a deploy that went ahead is the server's deploy-check just before it
// (what the deploy met, unless the draft changed in between), with the
// overrides it needed.
func (s *Store) Deploy(ctx context.Context, projectID string, opts redirects.DeployOptions) (*redirects.Deployment, *safety.GateResult, error) {
	base := "/projects/" + pathEscape(projectID)
	var check url.Values
	if opts.FromVersion > 0 {
		check = url.Values{"fromVersion": {strconv.Itoa(opts.FromVersion)}}
	}
	g := &safety.GateResult{}
	if err := s.c.do(ctx, "GET", base+"/deploy-check", check, nil, "", g); err != nil {
		return nil, nil, err
	}
	body := map[string]any{"message": opts.Message, "force": opts.Override.Force, "allowShrink": opts.Override.AllowShrink}
	if opts.Stage {
		body["stage"] = true
	}
	if opts.Override.Reason != "" {
		body["reason"] = opts.Override.Reason
	}
	if opts.FromVersion > 0 {
		body["fromVersion"] = opts.FromVersion
	}
	status, data, err := s.c.send(ctx, "POST", base+"/deployments", nil, body, "")
	if err != nil {
		return nil, nil, err
	}
	if status == 409 {
		var blocked struct {
			Code string
			Gate *safety.GateResult
		}
		if json.Unmarshal(data, &blocked) == nil && blocked.Code == "DEPLOY_BLOCKED" && blocked.Gate != nil {
			return nil, blocked.Gate, &safety.BlockedError{Result: blocked.Gate}
		}
	}
	if status >= 400 {
		return nil, nil, s.c.apiError(status, "POST", base+"/deployments", data)
	}
	var j deploymentJSON
	if err := jsonUnmarshal(data, &j); err != nil {
		return nil, nil, err
	}
	g.Forced = opts.Override.Force && (g.Errors > 0 || len(g.FailingCases) > 0)
	g.ShrinkAllowed = opts.Override.AllowShrink && g.Shrink.NeedsConfirmation
	g.Blocked = []string{}
	return j.deployment(projectID), g, nil
}

// FindDeployment reads a version (the live one for 0) from the
// deployments list and its rules from the version's rules.csv, in the
// order of engine.SortRules, with their IDs.
func (s *Store) FindDeployment(ctx context.Context, projectID string, version int) (*redirects.Deployment, []redirects.Rule, error) {
	if version < 0 {
		return nil, nil, redirects.Errorf(redirects.EINVALID, "deployment version %d is not a positive number", version)
	}
	ds, err := s.FindDeployments(ctx, projectID)
	if err != nil {
		return nil, nil, err
	}
	var d *redirects.Deployment
	if version == 0 {
		var j struct{ LiveVersion *int }
		if err := s.c.do(ctx, "GET", "/projects/"+pathEscape(projectID), nil, nil, "", &j); err != nil {
			return nil, nil, err
		}
		if j.LiveVersion != nil {
			version = *j.LiveVersion
		}
	}
	for _, x := range ds {
		if x.Version == version {
			d = x
		}
	}
	if d == nil {
		return nil, nil, redirects.DeploymentNotFound(projectID, version)
	}
	var data []byte
	if err := s.c.do(ctx, "GET", "/projects/"+pathEscape(projectID)+"/deployments/"+strconv.Itoa(d.Version)+"/rules.csv", nil, nil, "", &data); err != nil {
		return nil, nil, err
	}
	rules, err := readRulesWithIDs(projectID, data)
	if err != nil {
		return nil, nil, err
	}
	engine.SortRules(rules)
	return d, rules, nil
}

// readRulesWithIDs reads a draft CSV as rules.csv writes it, IDs included.
func readRulesWithIDs(projectID string, data []byte) ([]redirects.Rule, error) {
	rules, _, bad, err := export.ReadRules(bytes.NewReader(data), export.ReadOptions{})
	if err == nil && len(bad) > 0 {
		err = export.LineErrors(bad)
	}
	if err != nil {
		return nil, redirects.Errorf(redirects.EINTERNAL, "the management API's rules.csv: %s", redirects.ErrorMessage(err))
	}
	r := csv.NewReader(bytes.NewReader(data))
	r.FieldsPerRecord = -1
	header, err := r.Read()
	if err != nil {
		return nil, redirects.Errorf(redirects.EINTERNAL, "the management API's rules.csv: %v", err)
	}
	col := slices.Index(header, "id")
	for i := 0; col >= 0 && i < len(rules); i++ {
		rec, err := r.Read()
		if err != nil {
			return nil, redirects.Errorf(redirects.EINTERNAL, "the management API's rules.csv: %v", err)
		}
		if col < len(rec) {
			rules[i].ID, _ = strconv.ParseInt(rec[col], 10, 64)
		}
		rules[i].ProjectID = projectID
	}
	return rules, nil
}

// FindExport returns one export file of a version, or of the live one
// for 0, from the API's export route, which renders a version whose files
// were pruned again (so IsExportsPruned is never true here). The
// deployment returned carries the project and the version alone.
func (s *Store) FindExport(ctx context.Context, projectID string, version int, format string) (*redirects.Deployment, *redirects.Export, error) {
	if version < 0 {
		return nil, nil, redirects.Errorf(redirects.EINVALID, "deployment version %d is not a positive number", version)
	}
	p, err := s.FindProjectByID(ctx, projectID)
	if err != nil {
		return nil, nil, err
	}
	if version == 0 {
		if p.LiveVersion == 0 {
			return nil, nil, redirects.DeploymentNotFound(projectID, 0)
		}
		version = p.LiveVersion
	}
	path := "/projects/" + pathEscape(projectID) + "/deployments/" + strconv.Itoa(version) + "/exports/" + pathEscape(format)
	status, data, hdr, err := s.c.sendHeader(ctx, "GET", path, nil, nil, "")
	if err != nil {
		return nil, nil, err
	}
	if status >= 400 {
		return nil, nil, s.c.apiError(status, "GET", path, data)
	}
	return &redirects.Deployment{ProjectID: projectID, Version: version}, &redirects.Export{Format: format, Body: data, ETag: hdr.Get("ETag")}, nil
}

// ---- hits and misses

// FindHits returns the hits the edge nodes counted for the draft's rules
// (of the rules with sources, when not nil): the API's hits report lists
// the draft's rules, so hits of rules no longer in the draft are not
// among them.
func (s *Store) FindHits(ctx context.Context, projectID string, sources []string) ([]redirects.RuleHits, error) {
	var j struct {
		Rules []struct {
			Source    string  `json:"source"`
			MatchType string  `json:"matchType"`
			Hits      int64   `json:"hits"`
			LastHit   *string `json:"lastHit"`
		}
	}
	if err := s.c.do(ctx, "GET", "/projects/"+pathEscape(projectID)+"/hits", nil, nil, "", &j); err != nil {
		return nil, err
	}
	var out []redirects.RuleHits
	seen := map[redirects.HitKey]bool{}
	for _, r := range j.Rules {
		if r.LastHit == nil || sources != nil && !slices.Contains(sources, r.Source) {
			continue
		}
		mt, err := redirects.ParseMatchType(r.MatchType)
		if err != nil {
			return nil, redirects.Errorf(redirects.EINTERNAL, "the management API's hits: %s", redirects.ErrorMessage(err))
		}
		k := redirects.HitKey{MatchType: mt, Source: r.Source}
		if seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, redirects.RuleHits{ProjectID: projectID, MatchType: mt, Source: r.Source, Hits: r.Hits, LastHit: parseTime(*r.LastHit)})
	}
	return out, nil
}

// FindMisses returns the project's most frequent missed paths, at most
// limit (1..redirects.MaxStoredMisses).
func (s *Store) FindMisses(ctx context.Context, projectID string, limit int) ([]redirects.Miss, error) {
	var j struct {
		Misses []struct {
			Path      string `json:"path"`
			Count     int64  `json:"count"`
			FirstSeen string `json:"firstSeen"`
			LastSeen  string `json:"lastSeen"`
		}
	}
	q := url.Values{"limit": {strconv.Itoa(limit)}}
	if err := s.c.do(ctx, "GET", "/projects/"+pathEscape(projectID)+"/misses", q, nil, "", &j); err != nil {
		return nil, err
	}
	out := make([]redirects.Miss, len(j.Misses))
	for i, m := range j.Misses {
		out[i] = redirects.Miss{ProjectID: projectID, Path: m.Path, Count: m.Count, FirstSeen: parseTime(m.FirstSeen), LastSeen: parseTime(m.LastSeen)}
	}
	return out, nil
}

// DeleteMiss forgets a missed path.
func (s *Store) DeleteMiss(ctx context.Context, projectID, path string) error {
	return s.c.do(ctx, "DELETE", "/projects/"+pathEscape(projectID)+"/misses", url.Values{"path": {path}}, nil, "", nil)
}

// DeleteAgents forgets a project's sync agents' reports that match f.
func (s *Store) DeleteAgents(ctx context.Context, projectID string, f redirects.AgentFilter) (int, error) {
	q := url.Values{}
	if f.Agent != "" {
		q.Set("agent", f.Agent)
	}
	if f.Format != "" {
		q.Set("format", f.Format)
	}
	var j struct {
		Deleted int `json:"deleted"`
	}
	if err := s.c.do(ctx, "DELETE", "/projects/"+pathEscape(projectID)+"/agents", q, nil, "", &j); err != nil {
		return 0, err
	}
	return j.Deleted, nil
}

// The methods below are the database's alone.

func (s *Store) WithDeployTx(context.Context, func(redirects.DeployTx) error) error {
	return errDatabase("a deploy's transaction")
}
func (s *Store) FindEvents(context.Context, int64, int) ([]redirects.Event, error) {
	return nil, errDatabase("the store's events")
}
func (s *Store) LastEventID(context.Context) (int64, error) {
	return 0, errDatabase("the store's events")
}
func (s *Store) AddUsage(context.Context, string, map[string]int64) error {
	return errDatabase("counting usage")
}
func (s *Store) FindUsage(context.Context, string) (map[string]int64, error) {
	return nil, errDatabase("reading usage")
}
func (s *Store) AddKeyUsage(context.Context, []redirects.DailyUsage) error {
	return errDatabase("counting usage")
}
func (s *Store) AddUsageTogether(context.Context, map[string]map[string]int64, []redirects.DailyUsage) error {
	return errDatabase("counting usage")
}
func (s *Store) FindDailyUsage(context.Context, string, string) ([]redirects.DailyUsage, error) {
	return nil, errDatabase("reading usage")
}
func (s *Store) AddHits(context.Context, []redirects.RuleHits) error {
	return errDatabase("counting hits")
}
func (s *Store) AddMisses(context.Context, []redirects.Miss) error {
	return errDatabase("counting misses")
}

// DraftCSV returns the project's draft as the management API's rules.csv
// (export.WriteDraftCSV's file) in one request, for a caller that wants
// the whole draft at once (the OpenTofu provider's rule set).
func (s *Store) DraftCSV(ctx context.Context, projectID string) ([]byte, error) {
	var out []byte
	if err := s.c.do(ctx, "GET", "/projects/"+pathEscape(projectID)+"/rules.csv", nil, nil, "", &out); err != nil {
		return nil, err
	}
	return out, nil
}
