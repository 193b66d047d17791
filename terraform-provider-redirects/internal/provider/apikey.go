package provider

import (
	"context"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/boolplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"redirects"
)

// apiKeyResource is an edge API key; its secret is known once, when it is
// made, and kept in the state (sensitive).
type apiKeyResource struct{ svc redirects.Services }

func newAPIKeyResource() resource.Resource { return &apiKeyResource{} }

type apiKeyModel struct {
	ID        types.String `tfsdk:"id"`
	ProjectID types.String `tfsdk:"project_id"`
	Name      types.String `tfsdk:"name"`
	Test      types.Bool   `tfsdk:"test"`
	Secret    types.String `tfsdk:"secret"`
	Last4     types.String `tfsdk:"last4"`
}

func (r *apiKeyResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_api_key"
}

func (r *apiKeyResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	keep := []planmodifier.String{stringplanmodifier.UseStateForUnknown()}
	replace := []planmodifier.String{stringplanmodifier.RequiresReplace()}
	resp.Schema = schema.Schema{
		Description: "An edge API key of a project. Changing any argument makes a new key and revokes the old one; destroying it revokes it.",
		Attributes: map[string]schema.Attribute{
			"id":         schema.StringAttribute{Computed: true, PlanModifiers: keep, Description: "The key's ID (key_...)."},
			"project_id": schema.StringAttribute{Required: true, PlanModifiers: replace},
			"name":       schema.StringAttribute{Required: true, PlanModifiers: replace},
			"test": schema.BoolAttribute{Optional: true, Computed: true, Default: booldefault.StaticBool(false),
				PlanModifiers: []planmodifier.Bool{boolplanmodifier.RequiresReplace()},
				Description:   "A test key (redir_test_...) instead of a live one."},
			"secret": schema.StringAttribute{Computed: true, Sensitive: true, PlanModifiers: keep,
				Description: "The key's secret, known only to the resource that made it (null after tofu import)."},
			"last4": schema.StringAttribute{Computed: true, PlanModifiers: keep},
		},
	}
}

func (r *apiKeyResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.svc = servicesOf(req.ProviderData, &resp.Diagnostics)
}

func (r *apiKeyResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var m apiKeyModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	k, secret, err := r.svc.Keys.CreateKey(ctx, m.ProjectID.ValueString(), m.Name.ValueString(), m.Test.ValueBool())
	if err != nil {
		resp.Diagnostics.AddError("Creating the key", err.Error())
		return
	}
	m.ID, m.Secret, m.Last4 = types.StringValue(k.ID), types.StringValue(secret), types.StringValue(k.Last4)
	resp.Diagnostics.Append(resp.State.Set(ctx, m)...)
}

func (r *apiKeyResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var m apiKeyModel
	resp.Diagnostics.Append(req.State.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	keys, err := r.svc.Keys.FindKeys(ctx, m.ProjectID.ValueString())
	if notFound(err) {
		resp.State.RemoveResource(ctx)
		return
	}
	if err != nil {
		resp.Diagnostics.AddError("Reading the keys", err.Error())
		return
	}
	for _, k := range keys.Keys {
		if k.ID == m.ID.ValueString() && k.RevokedAt == nil {
			m.Name, m.Test, m.Last4 = types.StringValue(k.Name), types.BoolValue(k.Test), types.StringValue(k.Last4)
			resp.Diagnostics.Append(resp.State.Set(ctx, m)...)
			return
		}
	}
	// Revoked or gone: a new key is planned.
	resp.State.RemoveResource(ctx)
}

func (r *apiKeyResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	// Every argument forces a new key; nothing to update in place.
	var m apiKeyModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &m)...)
	resp.Diagnostics.Append(resp.State.Set(ctx, m)...)
}

func (r *apiKeyResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var m apiKeyModel
	resp.Diagnostics.Append(req.State.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if _, _, err := r.svc.Keys.RevokeKey(ctx, m.ProjectID.ValueString(), m.ID.ValueString()); err != nil && !notFound(err) {
		resp.Diagnostics.AddError("Revoking the key", err.Error())
	}
}

// ImportState takes PROJECT_ID/KEY_ID.
func (r *apiKeyResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	project, key, ok := strings.Cut(req.ID, "/")
	if !ok || project == "" || key == "" {
		resp.Diagnostics.AddError("Invalid import ID", "expected PROJECT_ID/KEY_ID, got "+req.ID)
		return
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("project_id"), project)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), key)...)
}
