package provider

import (
	"context"
	"fmt"
	"slices"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"redirects"
)

// ruleSetResource is a project's whole draft as one resource: applying it
// is one import with mode replace (all or nothing), reading it the draft
// rule set, which the API's client reads in one download of the draft's
// rules.csv.
type ruleSetResource struct{ svc redirects.Services }

func newRuleSetResource() resource.Resource { return &ruleSetResource{} }

type ruleSetModel struct {
	ID        types.String `tfsdk:"id"`
	ProjectID types.String `tfsdk:"project_id"`
	RulesCSV  rulesCSV     `tfsdk:"rules_csv"`
	Digest    types.String `tfsdk:"digest"`
	RuleCount types.Int64  `tfsdk:"rule_count"`
	Changes   types.String `tfsdk:"changes"`
}

func (r *ruleSetResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_rule_set"
}

func (r *ruleSetResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		Description: "A project's whole draft rule set, replaced atomically by one import (mode replace). Deploy it with redirects_deployment.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{Computed: true, Description: "The project's ID.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()}},
			"project_id": schema.StringAttribute{Required: true,
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()}},
			"rules_csv": schema.StringAttribute{Required: true, CustomType: rulesCSVType{}, Sensitive: true,
				Description: "The draft as the CSV of \"redirects rule import\" (usually file(\"rules.csv\")); texts holding the same rules are equal, whatever their formatting or order. " +
					"Marked sensitive so that a plan does not print it: tofu's line diff of a long text takes memory that grows with the square of its lines; changes summarizes the plan instead."},
			"changes": schema.StringAttribute{Computed: true,
				Description: "What the last plan changes in the draft: \"N added, N changed, N removed\" by match type, host and source."},
			"digest": schema.StringAttribute{Computed: true,
				Description: "SHA-256 of the rule set's canonical text: a redirects_deployment trigger."},
			"rule_count": schema.Int64Attribute{Computed: true},
		},
	}
}

func (r *ruleSetResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.svc = servicesOf(req.ProviderData, &resp.Diagnostics)
}

func (r *ruleSetResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var v rulesCSV
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("rules_csv"), &v)...)
	if v.IsNull() || v.IsUnknown() {
		return
	}
	if _, err := canonicalize(v.ValueString()); err != nil {
		resp.Diagnostics.AddAttributeError(path.Root("rules_csv"), "Invalid rule set", err.Error())
	}
}

// ModifyPlan plans the digest and count from the configured text, so that
// a deployment's trigger on the digest is known at plan time.
func (r *ruleSetResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() {
		return
	}
	var v rulesCSV
	resp.Diagnostics.Append(req.Plan.GetAttribute(ctx, path.Root("rules_csv"), &v)...)
	if v.IsUnknown() || v.IsNull() {
		return
	}
	c, err := canonicalize(v.ValueString())
	if err != nil {
		resp.Diagnostics.AddAttributeError(path.Root("rules_csv"), "Invalid rule set", err.Error())
		return
	}
	changes := summarize(nil, c.Rules)
	if !req.State.Raw.IsNull() {
		var old rulesCSV
		resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root("rules_csv"), &old)...)
		if o, err := canonicalize(old.ValueString()); err == nil {
			if o.Digest == c.Digest {
				// Nothing changes: keep what the state says.
				var prior types.String
				req.State.GetAttribute(ctx, path.Root("changes"), &prior)
				changes = prior.ValueString()
			} else {
				changes = summarize(o.Rules, c.Rules)
			}
		}
	}
	resp.Plan.SetAttribute(ctx, path.Root("changes"), types.StringValue(changes))
	resp.Plan.SetAttribute(ctx, path.Root("digest"), types.StringValue(c.Digest))
	resp.Plan.SetAttribute(ctx, path.Root("rule_count"), types.Int64Value(int64(len(c.Rules))))
}

func (r *ruleSetResource) replace(ctx context.Context, m *ruleSetModel) error {
	c, err := canonicalize(m.RulesCSV.ValueString())
	if err != nil {
		return err
	}
	if _, err := r.svc.Imports.Import(ctx, m.ProjectID.ValueString(), c.Rules, redirects.ImportOptions{Mode: redirects.ImportReplace}); err != nil {
		return err
	}
	m.ID = m.ProjectID
	if m.Changes.IsUnknown() {
		m.Changes = types.StringValue(summarize(nil, c.Rules))
	}
	m.Digest = types.StringValue(c.Digest)
	m.RuleCount = types.Int64Value(int64(len(c.Rules)))
	return nil
}

func (r *ruleSetResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var m ruleSetModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if err := r.replace(ctx, &m); err != nil {
		resp.Diagnostics.AddError("Importing the rule set", err.Error())
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, m)...)
}

// Update imports the rules again, unless the text changed and the rules
// did not (the same digest): then the refresh just before found the draft
// as it is, and only the text in the state changes.
func (r *ruleSetResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var m, old ruleSetModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &m)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &old)...)
	if resp.Diagnostics.HasError() {
		return
	}
	c, err := canonicalize(m.RulesCSV.ValueString())
	if err == nil && c.Digest == old.Digest.ValueString() && m.ProjectID.Equal(old.ProjectID) {
		m.ID, m.Digest, m.RuleCount = old.ID, old.Digest, types.Int64Value(int64(len(c.Rules)))
		resp.Diagnostics.Append(resp.State.Set(ctx, m)...)
		return
	}
	if err := r.replace(ctx, &m); err != nil {
		resp.Diagnostics.AddError("Importing the rule set", err.Error())
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, m)...)
}

// Read reads the draft, so that a change made elsewhere (the dashboard,
// the CLI) shows as drift. It asks the deploy service for the draft rule
// set rather than the rule service for the draft: the two hold the same
// rules, and the API's client reads the rule set from rules.csv in one
// download, where it reads the draft a page of rules at a time.
func (r *ruleSetResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var m ruleSetModel
	resp.Diagnostics.Append(req.State.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	draft, err := r.svc.Deploys.RuleSet(ctx, m.ID.ValueString(), "draft", false)
	if notFound(err) {
		resp.State.RemoveResource(ctx)
		return
	}
	if err == nil {
		var c *canonical
		if c, err = canonicalOf(draft.Rules); err == nil {
			m.ProjectID = m.ID
			m.RulesCSV = rulesCSV{StringValue: types.StringValue(c.Text)}
			m.Digest = types.StringValue(c.Digest)
			m.RuleCount = types.Int64Value(int64(len(c.Rules)))
			if m.Changes.IsNull() || m.Changes.IsUnknown() {
				m.Changes = types.StringValue("")
			}
		}
	}
	if err != nil {
		resp.Diagnostics.AddError("Reading the draft", err.Error())
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, m)...)
}

// Delete empties the draft (one replace import of no rules). What is
// deployed stays live until the next deployment.
func (r *ruleSetResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var m ruleSetModel
	resp.Diagnostics.Append(req.State.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	_, err := r.svc.Imports.Import(ctx, m.ID.ValueString(), nil, redirects.ImportOptions{Mode: redirects.ImportReplace})
	if err != nil && !notFound(err) {
		resp.Diagnostics.AddError("Emptying the draft", err.Error())
	}
}

func (r *ruleSetResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	resource.ImportStatePassthroughID(ctx, path.Root("id"), req, resp)
}

// ruleKey is what identifies a draft rule: its match type, host and
// source.
type ruleKey struct {
	match        redirects.MatchType
	host, source string
}

// summarize counts the rules that going from old to new adds, changes
// (another destination, status, priority or option) and removes.
func summarize(old, new []redirects.Rule) string {
	before := make(map[ruleKey]redirects.Rule, len(old))
	for _, r := range old {
		before[ruleKey{r.MatchType, r.Host, r.Source}] = r
	}
	added, changed := 0, 0
	for _, r := range new {
		k := ruleKey{r.MatchType, r.Host, r.Source}
		o, ok := before[k]
		switch {
		case !ok:
			added++
		case o.Destination != r.Destination || o.StatusCode != r.StatusCode || o.Priority != r.Priority ||
			o.PreservePath != r.PreservePath || o.PreserveQuery != r.PreserveQuery || o.QueryAfterFragment != r.QueryAfterFragment ||
			o.MergeQuery != r.MergeQuery ||
			!slices.Equal(o.ExceptHosts, r.ExceptHosts):
			changed++
		}
		delete(before, k)
	}
	return fmt.Sprintf("%d added, %d changed, %d removed", added, changed, len(before))
}
