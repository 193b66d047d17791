package provider

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/mapplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"redirects"
)

// deploymentResource is one deploy of the draft. Versions are immutable:
// a change of any argument (the triggers above all) deploys again, and
// destroying it only forgets it; the version stays in the history and
// stays live until another deploy.
type deploymentResource struct{ svc redirects.Services }

func newDeploymentResource() resource.Resource { return &deploymentResource{} }

type deploymentModel struct {
	ID          types.String `tfsdk:"id"`
	ProjectID   types.String `tfsdk:"project_id"`
	Message     types.String `tfsdk:"message"`
	Triggers    types.Map    `tfsdk:"triggers"`
	AllowShrink types.Bool   `tfsdk:"allow_shrink"`
	Version     types.Int64  `tfsdk:"version"`
	CreatedAt   types.String `tfsdk:"created_at"`
	ExactRules  types.Int64  `tfsdk:"exact_rules"`
	PrefixRules types.Int64  `tfsdk:"prefix_rules"`
	// PatternRules and RegexRules count the version's rules of those match
	// types (prefix_rules counts its starts_with rules).
	PatternRules types.Int64 `tfsdk:"pattern_rules"`
	RegexRules   types.Int64 `tfsdk:"regex_rules"`
}

func (r *deploymentResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_deployment"
}

func (r *deploymentResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	keep := []planmodifier.String{stringplanmodifier.UseStateForUnknown()}
	keepInt := []planmodifier.Int64{int64planmodifier.UseStateForUnknown()}
	resp.Schema = schema.Schema{
		Description: "A deploy of the project's draft (through the deploy gate). Any change of its arguments deploys again; destroy only forgets the deployment, since versions are immutable.",
		Attributes: map[string]schema.Attribute{
			"id":         schema.StringAttribute{Computed: true, PlanModifiers: keep, Description: "PROJECT_ID/VERSION."},
			"project_id": schema.StringAttribute{Required: true, PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()}},
			"message": schema.StringAttribute{Optional: true, Computed: true, Default: stringdefault.StaticString(""),
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()}},
			"triggers": schema.MapAttribute{ElementType: types.StringType, Optional: true,
				PlanModifiers: []planmodifier.Map{mapplanmodifier.RequiresReplace()},
				Description:   "Values whose change deploys again, e.g. { rules = redirects_rule_set.www.digest }."},
			"allow_shrink": schema.BoolAttribute{Optional: true, Computed: true, Default: booldefault.StaticBool(false),
				Description: "Let the deploy remove more of the live rules than the project's shrink_limit."},
			"version":       schema.Int64Attribute{Computed: true, PlanModifiers: keepInt},
			"created_at":    schema.StringAttribute{Computed: true, PlanModifiers: keep},
			"exact_rules":   schema.Int64Attribute{Computed: true, PlanModifiers: keepInt},
			"prefix_rules":  schema.Int64Attribute{Computed: true, PlanModifiers: keepInt, Description: "The version's starts_with rules."},
			"pattern_rules": schema.Int64Attribute{Computed: true, PlanModifiers: keepInt, Description: "The version's pattern rules."},
			"regex_rules":   schema.Int64Attribute{Computed: true, PlanModifiers: keepInt, Description: "The version's regex rules."},
		},
	}
}

func (r *deploymentResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.svc = servicesOf(req.ProviderData, &resp.Diagnostics)
}

func (m *deploymentModel) set(d *redirects.Deployment) {
	m.ID = types.StringValue(d.ProjectID + "/" + strconv.Itoa(d.Version))
	m.ProjectID = types.StringValue(d.ProjectID)
	m.Message = types.StringValue(d.Message)
	m.Version = types.Int64Value(int64(d.Version))
	m.CreatedAt = types.StringValue(d.CreatedAt.UTC().Format(time.RFC3339))
	m.ExactRules = types.Int64Value(int64(d.ExactCount))
	m.PrefixRules = types.Int64Value(int64(d.PrefixCount))
	m.PatternRules = types.Int64Value(int64(d.PatternCount))
	m.RegexRules = types.Int64Value(int64(d.RegexCount))
}

func (r *deploymentResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var m deploymentModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	d, _, err := r.svc.Deploys.Deploy(ctx, m.ProjectID.ValueString(), redirects.DeployOptions{Message: m.Message.ValueString(),
		Override: redirects.DeployOverride{AllowShrink: m.AllowShrink.ValueBool()}})
	if err != nil {
		resp.Diagnostics.AddError("Deploying", err.Error())
		return
	}
	m.set(d)
	resp.Diagnostics.Append(resp.State.Set(ctx, m)...)
}

func (r *deploymentResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var m deploymentModel
	resp.Diagnostics.Append(req.State.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	project, version, err := splitDeploymentID(m.ID.ValueString())
	if err != nil {
		resp.Diagnostics.AddError("Invalid deployment ID", err.Error())
		return
	}
	ds, err := r.svc.Deploys.Deployments(ctx, project)
	if notFound(err) {
		resp.State.RemoveResource(ctx)
		return
	}
	if err != nil {
		resp.Diagnostics.AddError("Reading the deployments", err.Error())
		return
	}
	for _, d := range ds {
		if d.Version == version {
			m.set(d)
			if m.AllowShrink.IsNull() {
				m.AllowShrink = types.BoolValue(false)
			}
			resp.Diagnostics.Append(resp.State.Set(ctx, m)...)
			return
		}
	}
	resp.State.RemoveResource(ctx)
}

func splitDeploymentID(id string) (string, int, error) {
	project, v, ok := strings.Cut(id, "/")
	n, err := strconv.Atoi(v)
	if !ok || project == "" || err != nil || n < 1 {
		return "", 0, redirects.Errorf(redirects.EINVALID, "deployment ID %q is not PROJECT_ID/VERSION", id)
	}
	return project, n, nil
}

func (r *deploymentResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	// Only allow_shrink changes in place; it matters at the next deploy.
	var m deploymentModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &m)...)
	resp.Diagnostics.Append(resp.State.Set(ctx, m)...)
}

// Delete forgets the deployment: versions are immutable.
func (r *deploymentResource) Delete(context.Context, resource.DeleteRequest, *resource.DeleteResponse) {
}

// ImportState takes PROJECT_ID/VERSION.
func (r *deploymentResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	if _, _, err := splitDeploymentID(req.ID); err != nil {
		resp.Diagnostics.AddError("Invalid import ID", err.Error())
		return
	}
	resource.ImportStatePassthroughID(ctx, path.Root("id"), req, resp)
}
