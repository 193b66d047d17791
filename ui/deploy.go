package ui

import (
	"errors"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"redirects"
	"redirects/export"
	"redirects/safety"
)

// diffListMax caps each list of the deploy page: the counts are whole.
const diffListMax = 100

// deployPathsShown is how many of the paths that answer differently the
// deploy page lists; its count is whole, and "redirects diff" lists more.
const deployPathsShown = 20

// deploySeenMisses is how many of the project's most frequent missed paths
// the deploy page reads for sample paths (safety.DiffOptions.Seen).
const deploySeenMisses = 1000

type deployData struct {
	Diff       safety.DiffResult
	Draft      int
	CanDeploy  bool
	Added      []safety.RuleRef
	Removed    []safety.RuleRef
	Changed    []safety.RuleChange
	MoreAdded  int
	MoreRemove int
	MoreChange int
	Changes    int
	// Settings are the matching settings the deploy changes against the
	// live version (Deployment.Settings against Project.Settings).
	Settings []settingChange
	// DraftRules and LiveRules are the listed rules by ID, for their
	// options.
	DraftRules, LiveRules map[int64]redirects.Rule
	// ShowOptions is true when a listed rule has an option: the tables
	// then have a column for them.
	ShowOptions bool
	// Next is the version a deploy makes.
	Next int
	// Gate is the deploy gate's report on deploying the draft now: lint
	// findings, failing expected-outcome cases, the shrink guard.
	Gate         *safety.GateResult
	Errors       []safety.Finding
	Warnings     []safety.Finding
	MoreErrors   int
	MoreWarnings int
	NeedsForce   bool
	// ExportReport is what the deploy's report will say the export files
	// answer otherwise than the lookup API (export.Report), "" for nothing;
	// ExportKinds is the same, each kind of difference once with the
	// formats it concerns, and ExportFormats those formats.
	ExportReport  string
	ExportKinds   []export.ReportKind
	ExportFormats []string
	// MorePaths is how many changed paths the page does not list.
	MorePaths int
	// FirstErrors are the errors listed above the button (at most
	// attentionShown), LaterErrors the others listed, below it.
	FirstErrors, LaterErrors []safety.Finding
	// FirstCases and LaterCases split the failing expected-outcome cases
	// likewise.
	FirstCases, LaterCases []safety.CaseResult
}

// attentionShown is how many blocking errors the deploy page lists above
// its button: what needs attention first, the rest below.
const attentionShown = 3

// deployPage is the Deploy tab: what deploying the draft changes against
// the live version (safety.Diff), a message, and the button.
func (h *handler) deployPage(w http.ResponseWriter, r *http.Request) error {
	ph, o, err := h.project(r, redirects.ActionRead)
	if err != nil {
		return err
	}
	ctx := r.Context()
	draftSet, err := h.svc.Deploys.RuleSet(ctx, ph.ID, "draft", false)
	if err != nil {
		return err
	}
	draft := draftSet.Rules
	var live []redirects.Rule
	if ph.Live != nil {
		if _, live, err = h.svc.Deploys.Version(ctx, ph.ID, ph.Live.Version); err != nil {
			return err
		}
	}
	var liveSettings redirects.Settings // nothing live: the default
	if ph.Live != nil {
		liveSettings = ph.Live.Settings
	}
	// The paths visitors asked for that no rule answered give the sample
	// paths below starts_with sources their rests: a changed path the
	// page lists is then one people ask for.
	misses, err := h.svc.Insight.FindMisses(ctx, ph.ID, deploySeenMisses)
	if err != nil {
		return err
	}
	seen := make([]string, 0, len(misses))
	for _, m := range misses {
		seen = append(seen, m.Path)
	}
	diff := safety.Diff(live, draft, safety.DiffOptions{MaxPaths: deployPathsShown, From: liveSettings, To: ph.Settings, Seen: seen})
	gate, err := h.svc.Deploys.CheckDeploy(ctx, ph.ID, redirects.DeployOptions{})
	if err != nil {
		return err
	}
	d := deployData{Diff: diff, Draft: len(draft), CanDeploy: may(r, o.ID, redirects.ActionDeploy),
		Changes: len(diff.Added) + len(diff.Removed) + len(diff.Changed)}
	d.Settings = settingChanges(liveSettings, ph.Settings)
	d.Changes += len(d.Settings)
	// The next version follows the newest, staged and discarded ones
	// included.
	d.Next = ph.NewestVersion + 1
	d.Gate = gate
	// The same lines the deploy's report will hold (docs/contract.md,
	// "Export shapes"): the rules the export files answer otherwise.
	d.ExportReport = export.Report(draft, ph.Settings)
	d.ExportKinds = export.ReportKinds(d.ExportReport)
	d.ExportFormats = export.ReportFormats(d.ExportKinds)
	d.MorePaths = diff.PathsChanged - len(diff.Impact)
	d.NeedsForce = gate.Errors > 0 || len(gate.FailingCases) > 0
	for _, f := range gate.Findings {
		if f.Severity == safety.SeverityError {
			d.Errors = append(d.Errors, f)
		} else {
			d.Warnings = append(d.Warnings, f)
		}
	}
	d.Errors, d.MoreErrors = capped(d.Errors)
	d.Warnings, d.MoreWarnings = capped(d.Warnings)
	n := min(attentionShown, len(d.Errors))
	d.FirstErrors, d.LaterErrors = d.Errors[:n], d.Errors[n:]
	n = min(attentionShown, len(gate.FailingCases))
	d.FirstCases, d.LaterCases = gate.FailingCases[:n], gate.FailingCases[n:]
	d.Added, d.MoreAdded = capped(diff.Added)
	d.Removed, d.MoreRemove = capped(diff.Removed)
	d.Changed, d.MoreChange = capped(diff.Changed)
	d.DraftRules, d.LiveRules = listedRules(draft, d.Added, d.Changed, false), listedRules(live, d.Removed, d.Changed, true)
	for _, m := range []map[int64]redirects.Rule{d.DraftRules, d.LiveRules} {
		for _, r := range m {
			d.ShowOptions = d.ShowOptions || len(optionWords(r)) > 0
		}
	}
	return h.render(w, r, http.StatusOK, "deploy", &page{Title: "Deploy · " + ph.Name, Org: o, Project: ph, Tab: "deploy", Data: d})
}

// listedRules returns the rules of rules that the page lists (refs, and
// the draft or live side of changed), by ID: at most 2*diffListMax, however
// large the project.
func listedRules(rules []redirects.Rule, refs []safety.RuleRef, changed []safety.RuleChange, live bool) map[int64]redirects.Rule {
	want := make(map[int64]bool, len(refs)+len(changed))
	for _, r := range refs {
		want[r.ID] = true
	}
	for _, c := range changed {
		if live {
			want[c.From.ID] = true
		} else {
			want[c.To.ID] = true
		}
	}
	out := make(map[int64]redirects.Rule, len(want))
	for _, r := range rules {
		if want[r.ID] {
			out[r.ID] = r
		}
	}
	return out
}

// capped returns the first diffListMax of s and how many more there are.
func capped[T any](s []T) ([]T, int) {
	if len(s) <= diffListMax {
		return s, 0
	}
	return s[:diffListMax], len(s) - diffListMax
}

// deploy makes the draft rules live as the next version, through the
// deploy service's gate, as the API and the command line do: lint
// errors and failing cases need "force" and a reason, a large shrink needs
// "allow-shrink".
func (h *handler) deploy(w http.ResponseWriter, r *http.Request) error {
	ph, _, err := h.project(r, redirects.ActionDeploy)
	if err != nil {
		return err
	}
	opts := redirects.DeployOptions{Message: r.PostFormValue("message"), Stage: r.PostFormValue("stage") != "", Override: redirects.DeployOverride{
		Force: r.PostFormValue("force") != "", Reason: strings.TrimSpace(r.PostFormValue("reason")), AllowShrink: r.PostFormValue("allow-shrink") != ""}}
	if !opts.Override.Force {
		opts.Override.Reason = ""
	}
	d, _, err := h.svc.Deploys.Deploy(r.Context(), ph.ID, opts)
	if err != nil {
		var be *redirects.DeployBlockedError
		if errors.As(err, &be) {
			return h.redirect(w, r, "/projects/"+ph.ID+"/deploy", flashErr, "Nothing was deployed: "+strings.Join(be.Result.Blocked, "; ")+".")
		}
		if statusOf(err) < 500 {
			return h.redirect(w, r, "/projects/"+ph.ID+"/deploy", flashErr, "Nothing was deployed: "+message(err))
		}
		return err
	}
	if d.Staged {
		return h.redirect(w, r, "/projects/"+ph.ID+"/history", flashOK, "Staged version "+itoa(d.Version)+" ("+
			ruleKinds(d)+"). It is not live: lookups with version="+itoa(d.Version)+
			" answer with it until you promote it.")
	}
	return h.redirect(w, r, "/projects/"+ph.ID+"/history", flashOK, "Deployed version "+itoa(d.Version)+" ("+
		ruleKinds(d)+"). It is live: edge nodes answer with it within a second.")
}

// ruleKinds says how many rules of each match type version d holds,
// naming pattern and regex rules only when it has some.
func ruleKinds(d *redirects.Deployment) string {
	s := plural(d.ExactCount, "exact rule") + ", " + plural(d.PrefixCount, "starts_with rule")
	if d.PatternCount > 0 {
		s += ", " + plural(d.PatternCount, "pattern rule")
	}
	if d.RegexCount > 0 {
		s += ", " + plural(d.RegexCount, "regex rule")
	}
	return s
}

type historyRow struct {
	*redirects.Deployment
	By   string
	Live bool
}

type historyData struct {
	Rows []historyRow
	// Kinds shows the pattern and regex columns: a version has such rules.
	Kinds     bool
	Formats   []string
	CanDeploy bool
	// LiveVersion and Servers are which servers have which version: the
	// sync agents' last reports (docs/delivery.md#which-servers-have-which-version).
	LiveVersion int
	Servers     []serverRow
	// Behind counts the servers on an older version than the live one.
	Behind int
	// CanForget shows the buttons that forget servers' reports.
	CanForget bool
	// Stage compares the live version with the newest staged one; nil
	// when none is staged.
	Stage *stagedView
}

// serverRow is one sync agent's last report on the History tab.
type serverRow struct {
	redirects.AgentReport
	Behind bool
}

// historyPage is the History tab: every deployment, newest first, with its
// message, author, counts, export files and a rollback.
func (h *handler) historyPage(w http.ResponseWriter, r *http.Request) error {
	ph, o, err := h.project(r, redirects.ActionRead)
	if err != nil {
		return err
	}
	ds, err := h.svc.Deploys.Deployments(r.Context(), ph.ID)
	if err != nil {
		return err
	}
	authors, err := h.deployAuthors(r, ph.Project, len(ds))
	if err != nil {
		return err
	}
	d := historyData{Formats: redirects.Formats, CanDeploy: may(r, o.ID, redirects.ActionDeploy)}
	if d.Stage, err = h.stagedComparison(r, ph.ID, ds); err != nil {
		return err
	}
	for _, dep := range slices.Backward(ds) {
		d.Rows = append(d.Rows, historyRow{Deployment: dep, By: authors[dep.Version], Live: ph.Live != nil && dep.Version == ph.Live.Version})
		d.Kinds = d.Kinds || dep.PatternCount > 0 || dep.RegexCount > 0
	}
	live, reports, err := h.svc.Insight.FindAgents(r.Context(), ph.ID)
	if err != nil {
		return err
	}
	d.LiveVersion = live
	d.CanForget = may(r, o.ID, redirects.ActionEditRules)
	for _, a := range reports {
		behind := a.Behind(live)
		if behind {
			d.Behind++
		}
		d.Servers = append(d.Servers, serverRow{AgentReport: a, Behind: behind})
	}
	return h.render(w, r, http.StatusOK, "history", &page{Title: "History · " + ph.Name, Org: o, Project: ph, Tab: "history", Data: d})
}

// version reads the path's {version}.
func version(r *http.Request) (int, error) {
	v, err := strconv.Atoi(r.PathValue("version"))
	if err != nil || v <= 0 {
		return 0, errNotFound("version")
	}
	return v, nil
}

type rollbackData struct {
	Target *redirects.Deployment
	Next   int
	// Settings are the matching settings the rollback changes: a
	// rollback deploys its version's settings with its rules.
	Settings []settingChange
}

// rollbackPage asks before the rules of an earlier version are deployed
// again.
func (h *handler) rollbackPage(w http.ResponseWriter, r *http.Request) error {
	ph, o, err := h.project(r, redirects.ActionDeploy)
	if err != nil {
		return err
	}
	v, err := version(r)
	if err != nil {
		return err
	}
	target, _, err := h.svc.Deploys.Version(r.Context(), ph.ID, v)
	if err != nil {
		return err
	}
	d := rollbackData{Target: target, Next: ph.NewestVersion + 1}
	if ph.Live != nil {
		d.Settings = settingChanges(ph.Live.Settings, target.Settings)
	}
	return h.render(w, r, http.StatusOK, "rollback", &page{Title: "Roll back to version " + itoa(v), Org: o, Project: ph, Tab: "history", Data: d})
}

// rollback deploys the rules of an earlier version as the next version.
func (h *handler) rollback(w http.ResponseWriter, r *http.Request) error {
	ph, _, err := h.project(r, redirects.ActionDeploy)
	if err != nil {
		return err
	}
	v, err := version(r)
	if err != nil {
		return err
	}
	msg := r.PostFormValue("message")
	if msg == "" {
		msg = "Roll back to version " + itoa(v)
	}
	opts := redirects.DeployOptions{Message: msg, FromVersion: v}
	d, _, err := h.svc.Deploys.Deploy(r.Context(), ph.ID, opts)
	if err != nil {
		var be *redirects.DeployBlockedError
		if errors.As(err, &be) {
			return h.redirect(w, r, "/projects/"+ph.ID+"/history", flashErr, "Nothing was rolled back: "+strings.Join(be.Result.Blocked, "; ")+
				". Roll back past them with: redirects deploy --project "+ph.ID+" --from-version "+itoa(v)+" --force --reason TEXT")
		}
		if statusOf(err) < 500 {
			return h.redirect(w, r, "/projects/"+ph.ID+"/history", flashErr, "Nothing was rolled back: "+message(err))
		}
		return err
	}
	return h.redirect(w, r, "/projects/"+ph.ID+"/history", flashOK, "Rolled back: version "+itoa(d.Version)+" is live with the rules of version "+itoa(v)+
		". The draft is unchanged; deploy it again when it is fixed.")
}

// exportFile serves one export file of a version, as the API's exports.
func (h *handler) exportFile(w http.ResponseWriter, r *http.Request) error {
	ph, _, err := h.project(r, redirects.ActionRead)
	if err != nil {
		return err
	}
	v, err := version(r)
	if err != nil {
		return err
	}
	format := r.PathValue("format")
	if !slices.Contains(redirects.Formats, format) {
		return errNotFound("export format")
	}
	// A version whose files the retention pruned is rendered again, as
	// the CLI and the edge do.
	_, e, err := h.svc.Deploys.Export(r.Context(), ph.ID, v, format)
	if err != nil {
		return err
	}
	name := ph.Name + "-v" + itoa(v) + "-" + format + "." + redirects.FormatExtension(format)
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	if format == "csv" {
		w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	}
	w.Header().Set("Content-Disposition", "attachment; filename="+strconv.Quote(safeFilename(name)))
	w.Header().Set("ETag", e.ETag)
	w.Write(e.Body)
	return nil
}

// safeFilename keeps letters, digits and ".-_" of a download's name.
func safeFilename(s string) string {
	b := []byte(s)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '-' || c == '_') {
			b[i] = '_'
		}
	}
	return string(b)
}

// forgetServers forgets sync agents' reports from the History tab's
// Servers section: one agent's in one format (the form's agent and
// format), or every one of the project's (neither).
func (h *handler) forgetServers(w http.ResponseWriter, r *http.Request) error {
	ph, _, err := h.project(r, redirects.ActionEditRules)
	if err != nil {
		return err
	}
	back := "/projects/" + ph.ID + "/history#servers"
	f := redirects.AgentFilter{Agent: r.PostFormValue("agent"), Format: r.PostFormValue("format")}
	n, err := h.svc.Insight.DeleteAgents(r.Context(), ph.ID, f)
	if err != nil {
		if statusOf(err) < 500 {
			return h.redirect(w, r, back, flashErr, "Nothing was forgotten: "+message(err))
		}
		return err
	}
	what := "Forgot " + plural(n, "server report")
	if f.Agent != "" {
		what += " of " + f.Agent
	}
	return h.redirect(w, r, back, flashOK, what+". A server that reports again is listed again.")
}
