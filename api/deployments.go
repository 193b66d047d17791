package api

import (
	"time"

	"redirects"
)

// Deployment is a deployment as the management API shows one.
type Deployment struct {
	Version     int    `json:"version"`
	CreatedAt   string `json:"createdAt"`
	ExactRules  int    `json:"exactRules"`
	PrefixRules int    `json:"prefixRules"`
	// PatternRules and RegexRules are left out when 0, so a version
	// without them is shown as before.
	PatternRules int    `json:"patternRules,omitempty"`
	RegexRules   int    `json:"regexRules,omitempty"`
	Message      string `json:"message"`
	FromVersion  *int   `json:"fromVersion"`
	Report       string `json:"report"`
	// CaseSensitive and TrailingSlash are the matching settings the deploy
	// froze: lookups of this version compare paths with them.
	CaseSensitive bool   `json:"caseSensitive"`
	TrailingSlash string `json:"trailingSlash"`
	// Live is set on the version the edge answers without a version;
	// Staged on a version deployed with stage and never promoted;
	// PromotedAt is when a promote last made the version live, null when
	// none did (docs/contract.md#staged-deploys).
	Live       bool    `json:"live"`
	Staged     bool    `json:"staged"`
	PromotedAt *string `json:"promotedAt"`
}

// DeploymentOf returns d as the API shows it, its times in UTC.
func DeploymentOf(d *redirects.Deployment) Deployment {
	j := Deployment{Version: d.Version, CreatedAt: d.CreatedAt.UTC().Format(time.RFC3339), ExactRules: d.ExactCount,
		PrefixRules: d.PrefixCount, PatternRules: d.PatternCount, RegexRules: d.RegexCount, Message: d.Message, Report: d.Report,
		CaseSensitive: d.Settings.CaseSensitive(), TrailingSlash: d.Settings.TrailingSlash()}
	if d.FromVersion > 0 {
		v := d.FromVersion
		j.FromVersion = &v
	}
	j.Live, j.Staged = d.Live, d.Staged
	if !d.PromotedAt.IsZero() {
		at := d.PromotedAt.UTC().Format(time.RFC3339)
		j.PromotedAt = &at
	}
	return j
}

// Deployment returns the deployment of project projectID that j shows.
func (j *Deployment) Deployment(projectID string) *redirects.Deployment {
	d := &redirects.Deployment{ProjectID: projectID, Version: j.Version, CreatedAt: parseDeploymentTime(j.CreatedAt), ExactCount: j.ExactRules,
		PrefixCount: j.PrefixRules, PatternCount: j.PatternRules, RegexCount: j.RegexRules, Message: j.Message, Report: j.Report,
		Settings: redirects.Settings{CaseInsensitive: !j.CaseSensitive, IgnoreTrailingSlash: j.TrailingSlash == "ignore"}}
	if j.FromVersion != nil {
		d.FromVersion = *j.FromVersion
	}
	d.Live, d.Staged = j.Live, j.Staged
	if j.PromotedAt != nil {
		d.PromotedAt = parseDeploymentTime(*j.PromotedAt)
	}
	return d
}

// Deployments is the answer of a project's deployments, version 1 first.
type Deployments struct {
	Deployments []Deployment `json:"deployments"`
}

// DeploymentRow is a deployment as `redirects deployments --json` prints
// it: the API's shape without the settings, its times as they are.
type DeploymentRow struct {
	Version     int    `json:"version"`
	CreatedAt   string `json:"createdAt"`
	ExactRules  int    `json:"exactRules"`
	PrefixRules int    `json:"prefixRules"`
	// PatternRules and RegexRules are left out when 0, so a version
	// without them is shown as before.
	PatternRules int    `json:"patternRules,omitempty"`
	RegexRules   int    `json:"regexRules,omitempty"`
	Message      string `json:"message"`
	FromVersion  *int   `json:"fromVersion"`
	Report       string `json:"report"`
	// Live and Staged say where the version stands
	// (docs/contract.md#staged-deploys); PromotedAt is when a promote last
	// made it live, null when none did.
	Live       bool    `json:"live"`
	Staged     bool    `json:"staged"`
	PromotedAt *string `json:"promotedAt"`
}

// DeploymentRowOf returns d as `redirects deployments --json` prints it.
func DeploymentRowOf(d *redirects.Deployment) DeploymentRow {
	j := DeploymentRow{Version: d.Version, CreatedAt: d.CreatedAt.Format(time.RFC3339), ExactRules: d.ExactCount,
		PrefixRules: d.PrefixCount, PatternRules: d.PatternCount, RegexRules: d.RegexCount, Message: d.Message, Report: d.Report,
		Live: d.Live, Staged: d.Staged}
	if !d.PromotedAt.IsZero() {
		at := d.PromotedAt.Format(time.RFC3339)
		j.PromotedAt = &at
	}
	if d.FromVersion > 0 {
		v := d.FromVersion
		j.FromVersion = &v
	}
	return j
}

// DeployRequest is the body of a deploy. FromVersion is left out, not
// null, when the deploy is of the draft.
type DeployRequest struct {
	Message     string `json:"message"`
	FromVersion *int   `json:"fromVersion,omitempty"`
	// Force, with Reason, deploys past lint errors and failing
	// expected-outcome cases; AllowShrink past the shrink guard.
	Force       bool   `json:"force"`
	Reason      string `json:"reason"`
	AllowShrink bool   `json:"allowShrink"`
	// Stage stores the version without making it live; promote does.
	Stage bool `json:"stage"`
}

// CodeDeployBlocked is the error code of a deploy the gate refused.
const CodeDeployBlocked = "DEPLOY_BLOCKED"

// DeployBlocked is the 409 answer of a blocked deploy: the error, and the
// gate's report of why.
type DeployBlocked struct {
	Error string                `json:"error"`
	Code  string                `json:"code"`
	Gate  *redirects.GateReport `json:"gate"`
}

// TestsStored is the answer of a stored test file: its number of cases.
type TestsStored struct {
	Cases int `json:"cases"`
}

func parseDeploymentTime(s string) time.Time {
	t, _ := time.Parse(time.RFC3339Nano, s)
	return t
}
