package remote

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"net/url"
	"slices"
	"strconv"

	"redirects"
	"redirects/api"
	"redirects/engine"
	"redirects/export"
	"redirects/safety"
)

// The deploy service over the management API: the deploy gate runs on
// the server, in its deploy's write transaction, as it does on the
// database; the checks that read a rule set (lint, diff, explain, test,
// verify) read it from the API's rules.csv routes and run here.

var _ redirects.DeployService = (*Client)(nil)

func deployProjectPath(projectID string) string { return "/projects/" + pathEscape(projectID) }

func deployVersionPath(projectID string, version int) string {
	return deployProjectPath(projectID) + "/deployments/" + strconv.Itoa(version)
}

// Deploy deploys through the API. A blocked deploy returns the gate's
// report and a *redirects.DeployBlockedError. The report of a deploy that
// went ahead is the server's deploy-check just before it (what the deploy
// met, unless the draft changed in between), with the overrides it
// needed.
func (c *Client) Deploy(ctx context.Context, projectID string, opts redirects.DeployOptions) (*redirects.Deployment, *redirects.GateReport, error) {
	g, err := c.CheckDeploy(ctx, projectID, redirects.DeployOptions{FromVersion: opts.FromVersion})
	if err != nil {
		return nil, nil, err
	}
	body := api.DeployRequest{Message: opts.Message, Force: opts.Override.Force, Reason: opts.Override.Reason,
		AllowShrink: opts.Override.AllowShrink, Stage: opts.Stage}
	if opts.FromVersion > 0 {
		v := opts.FromVersion
		body.FromVersion = &v
	}
	path := deployProjectPath(projectID) + "/deployments"
	status, data, err := c.send(ctx, "POST", path, nil, body, "")
	if err != nil {
		return nil, nil, err
	}
	if status == 409 {
		var blocked api.DeployBlocked
		if json.Unmarshal(data, &blocked) == nil && blocked.Code == api.CodeDeployBlocked && blocked.Gate != nil {
			return nil, blocked.Gate, &redirects.DeployBlockedError{Result: blocked.Gate}
		}
	}
	if status >= 400 {
		return nil, nil, c.apiError(status, "POST", path, data)
	}
	var j api.Deployment
	if err := jsonUnmarshal(data, &j); err != nil {
		return nil, nil, err
	}
	g.Forced = opts.Override.Force && (g.Errors > 0 || len(g.FailingCases) > 0)
	g.ShrinkAllowed = opts.Override.AllowShrink && g.Shrink.NeedsConfirmation
	g.Blocked = []string{}
	return j.Deployment(projectID), g, nil
}

// CheckDeploy answers the server's deploy-check; the API checks a deploy
// without overrides.
func (c *Client) CheckDeploy(ctx context.Context, projectID string, opts redirects.DeployOptions) (*redirects.GateReport, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	var q url.Values
	if opts.FromVersion > 0 {
		q = url.Values{"fromVersion": {strconv.Itoa(opts.FromVersion)}}
	}
	g := &redirects.GateReport{}
	if err := c.do(ctx, "GET", deployProjectPath(projectID)+"/deploy-check", q, nil, "", g); err != nil {
		return nil, err
	}
	return g, nil
}

// Deployments lists the project's deployments, version 1 first.
func (c *Client) Deployments(ctx context.Context, projectID string) ([]*redirects.Deployment, error) {
	var j api.Deployments
	if err := c.do(ctx, "GET", deployProjectPath(projectID)+"/deployments", nil, nil, "", &j); err != nil {
		return nil, err
	}
	out := make([]*redirects.Deployment, len(j.Deployments))
	for i := range j.Deployments {
		out[i] = j.Deployments[i].Deployment(projectID)
	}
	return out, nil
}

// Promote makes a version live through the API.
func (c *Client) Promote(ctx context.Context, projectID string, version int) (*redirects.Deployment, error) {
	var j api.Deployment
	if err := c.do(ctx, "POST", deployVersionPath(projectID, version)+"/promote", nil, nil, "", &j); err != nil {
		return nil, err
	}
	return j.Deployment(projectID), nil
}

// Discard discards a staged version through the API.
func (c *Client) Discard(ctx context.Context, projectID string, version int) error {
	return c.do(ctx, "DELETE", deployVersionPath(projectID, version), nil, nil, "", nil)
}

// deployment finds version (the live one for 0) in the project's
// deployments list. Errors: ENOTFOUND (project or version), EINVALID.
func (c *Client) deployment(ctx context.Context, projectID string, version int) (*redirects.Deployment, error) {
	if version < 0 {
		return nil, redirects.Errorf(redirects.EINVALID, "deployment version %d is not a positive number", version)
	}
	ds, err := c.Deployments(ctx, projectID)
	if err != nil {
		return nil, err
	}
	for _, d := range ds {
		if (version == 0 && d.Live) || (version > 0 && d.Version == version) {
			return d, nil
		}
	}
	return nil, redirects.DeploymentNotFound(projectID, version)
}

// Version reads a version from the deployments list and its rules from
// the version's rules.csv, in the order of engine.SortRules, with their
// IDs.
func (c *Client) Version(ctx context.Context, projectID string, version int) (*redirects.Deployment, []redirects.Rule, error) {
	d, err := c.deployment(ctx, projectID, version)
	if err != nil {
		return nil, nil, err
	}
	var data []byte
	if err := c.do(ctx, "GET", deployVersionPath(projectID, d.Version)+"/rules.csv", nil, nil, "", &data); err != nil {
		return nil, nil, err
	}
	rules, err := versionRulesOf(projectID, data)
	if err != nil {
		return nil, nil, err
	}
	return d, rules, nil
}

// Export returns one export file of a version from the API's export
// route, which renders a version whose files were pruned again. The
// deployment returned carries the project and the version alone.
func (c *Client) Export(ctx context.Context, projectID string, version int, format string) (*redirects.Deployment, *redirects.Export, error) {
	d, err := c.deployment(ctx, projectID, version)
	if err != nil {
		return nil, nil, err
	}
	path := deployVersionPath(projectID, d.Version) + "/exports/" + pathEscape(format)
	status, data, hdr, err := c.sendHeader(ctx, "GET", path, nil, nil, "")
	if err != nil {
		return nil, nil, err
	}
	if status >= 400 {
		return nil, nil, c.apiError(status, "GET", path, data)
	}
	return &redirects.Deployment{ProjectID: projectID, Version: d.Version}, &redirects.Export{Format: format, Body: data, ETag: hdr.Get("ETag")}, nil
}

// RuleSet reads spec's rules from the API and names them as the database
// does (safety.Load).
func (c *Client) RuleSet(ctx context.Context, projectID, spec string, emptyLive bool) (*redirects.RuleSet, error) {
	t, err := safety.Load(ctx, ruleSetSource{c}, projectID, spec, emptyLive)
	if err != nil {
		return nil, err
	}
	p, err := ruleSetSource{c}.FindProjectByID(ctx, projectID)
	if err != nil {
		return nil, err
	}
	return &redirects.RuleSet{Rules: t.Rules, Name: t.Name, Version: t.Version, Draft: t.Draft, Settings: t.Settings, Hosts: p.Hosts}, nil
}

// ruleSetSource is safety.RuleSource over the API.
type ruleSetSource struct{ c *Client }

func (s ruleSetSource) FindProjectByID(ctx context.Context, id string) (*redirects.Project, error) {
	// Only the project's identity, hosts and matching settings matter to a
	// rule set; the rest of the answer is left as the zero value.
	var j api.Project
	if err := s.c.do(ctx, "GET", deployProjectPath(id), nil, nil, "", &j); err != nil {
		return nil, err
	}
	if len(j.Hosts) == 0 {
		j.Hosts = nil // as the store answers a project without hosts
	}
	return &redirects.Project{ID: j.ID, OrgID: j.OrgID, Hosts: j.Hosts,
		Settings: redirects.Settings{CaseInsensitive: !j.CaseSensitive, IgnoreTrailingSlash: j.TrailingSlash == "ignore"}}, nil
}

// FindRules reads the draft from the project's rules.csv, ordered as the
// store orders it (engine.SortRules).
func (s ruleSetSource) FindRules(ctx context.Context, projectID string) ([]redirects.Rule, error) {
	var data []byte
	if err := s.c.do(ctx, "GET", deployProjectPath(projectID)+"/rules.csv", nil, nil, "", &data); err != nil {
		return nil, err
	}
	return versionRulesOf(projectID, data)
}

func (s ruleSetSource) FindDeployments(ctx context.Context, projectID string) ([]*redirects.Deployment, error) {
	return s.c.Deployments(ctx, projectID)
}

func (s ruleSetSource) FindDeployment(ctx context.Context, projectID string, version int) (*redirects.Deployment, []redirects.Rule, error) {
	return s.c.Version(ctx, projectID, version)
}

// versionRulesOf reads a draft CSV as rules.csv writes it, IDs included, in
// the order of engine.SortRules.
func versionRulesOf(projectID string, data []byte) ([]redirects.Rule, error) {
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
	engine.SortRules(rules)
	return rules, nil
}

// Tests returns the project's stored test file, "" when it has none.
func (c *Client) Tests(ctx context.Context, projectID string) (string, error) {
	var data []byte
	if err := c.do(ctx, "GET", deployProjectPath(projectID)+"/tests", nil, nil, "", &data); err != nil {
		if redirects.ErrorCode(err) == redirects.ENOTFOUND {
			// No stored file; an unknown project says so on the next call.
			if _, perr := (ruleSetSource{c}).FindProjectByID(ctx, projectID); perr != nil {
				return "", perr
			}
			return "", nil
		}
		return "", err
	}
	return string(data), nil
}

// SetTests stores the project's test file through the API.
func (c *Client) SetTests(ctx context.Context, projectID, csv string) (int, error) {
	var j api.TestsStored
	if err := c.do(ctx, "PUT", deployProjectPath(projectID)+"/tests", nil, bytes.NewReader([]byte(csv)), "text/csv", &j); err != nil {
		return 0, err
	}
	return j.Cases, nil
}

// DeleteTests removes the project's test file through the API.
func (c *Client) DeleteTests(ctx context.Context, projectID string) error {
	return c.do(ctx, "DELETE", deployProjectPath(projectID)+"/tests", nil, nil, "", nil)
}
