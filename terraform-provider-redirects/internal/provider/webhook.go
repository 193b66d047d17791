package provider

import (
	"context"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/listdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/listplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"redirects"
)

// webhookResource is an organization's webhook endpoint (the audit log as
// a stream). The API changes only paused in place; any other change
// makes a new endpoint, with a new secret.
type webhookResource struct{ svc redirects.Services }

func newWebhookResource() resource.Resource { return &webhookResource{} }

type webhookModel struct {
	ID       types.String `tfsdk:"id"`
	OrgID    types.String `tfsdk:"org_id"`
	URL      types.String `tfsdk:"url"`
	Actions  types.List   `tfsdk:"actions"`
	Projects types.List   `tfsdk:"projects"`
	Paused   types.Bool   `tfsdk:"paused"`
	Secret   types.String `tfsdk:"secret"`
	Status   types.String `tfsdk:"status"`
}

func (r *webhookResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_webhook"
}

func (r *webhookResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	keep := []planmodifier.String{stringplanmodifier.UseStateForUnknown()}
	replace := []planmodifier.String{stringplanmodifier.RequiresReplace()}
	empty := listdefault.StaticValue(types.ListValueMust(types.StringType, []attr.Value{}))
	replaceList := []planmodifier.List{listplanmodifier.RequiresReplace()}
	resp.Schema = schema.Schema{
		Description: "A webhook endpoint of an organization (docs/manage.md, Webhooks). Only paused changes in place.",
		Attributes: map[string]schema.Attribute{
			"id":     schema.StringAttribute{Computed: true, PlanModifiers: keep, Description: "The endpoint's ID (whk_...)."},
			"org_id": schema.StringAttribute{Required: true, PlanModifiers: replace},
			"url":    schema.StringAttribute{Required: true, PlanModifiers: replace},
			"actions": schema.ListAttribute{ElementType: types.StringType, Optional: true, Computed: true, Default: empty,
				PlanModifiers: replaceList, Description: "Audit actions sent (rule.create, rule.*); none is every action."},
			"projects": schema.ListAttribute{ElementType: types.StringType, Optional: true, Computed: true, Default: empty,
				PlanModifiers: replaceList, Description: "Projects whose events are sent; none is every project."},
			"paused": schema.BoolAttribute{Optional: true, Computed: true, Default: booldefault.StaticBool(false)},
			"secret": schema.StringAttribute{Computed: true, Sensitive: true, PlanModifiers: keep,
				Description: "The signing secret, shown once when the endpoint is made (null after tofu import)."},
			"status": schema.StringAttribute{Computed: true, Description: "active, paused or disabled."},
		},
	}
}

func (r *webhookResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.svc = servicesOf(req.ProviderData, &resp.Diagnostics)
}

func (m *webhookModel) set(w *redirects.WebhookEndpoint) {
	list := func(ss []string) types.List {
		v := make([]attr.Value, len(ss))
		for i, s := range ss {
			v[i] = types.StringValue(s)
		}
		return types.ListValueMust(types.StringType, v)
	}
	m.ID, m.OrgID, m.URL = types.StringValue(w.ID), types.StringValue(w.OrgID), types.StringValue(w.URL)
	m.Actions, m.Projects = list(w.Actions), list(w.Projects)
	m.Paused, m.Status = types.BoolValue(w.Paused), types.StringValue(w.Status())
}

func (r *webhookResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var m webhookModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &m)...)
	var actions, projects []string
	resp.Diagnostics.Append(m.Actions.ElementsAs(ctx, &actions, false)...)
	resp.Diagnostics.Append(m.Projects.ElementsAs(ctx, &projects, false)...)
	if resp.Diagnostics.HasError() {
		return
	}
	w, err := r.svc.Webhooks.CreateWebhook(ctx, m.OrgID.ValueString(), m.URL.ValueString(), actions, projects)
	if err != nil {
		resp.Diagnostics.AddError("Creating the webhook", err.Error())
		return
	}
	paused := m.Paused.ValueBool()
	m.Secret = types.StringValue(w.Secret)
	m.set(w)
	resp.Diagnostics.Append(resp.State.Set(ctx, m)...)
	if paused {
		if w, err = r.svc.Webhooks.SetWebhookPaused(ctx, w.OrgID, w.ID, true); err != nil {
			resp.Diagnostics.AddError("Pausing the webhook", err.Error())
			return
		}
		m.set(w)
		resp.Diagnostics.Append(resp.State.Set(ctx, m)...)
	}
}

func (r *webhookResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var m webhookModel
	resp.Diagnostics.Append(req.State.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	w, err := r.svc.Webhooks.FindWebhook(ctx, m.OrgID.ValueString(), m.ID.ValueString())
	if notFound(err) {
		resp.State.RemoveResource(ctx)
		return
	}
	if err != nil {
		resp.Diagnostics.AddError("Reading the webhook", err.Error())
		return
	}
	m.set(w)
	resp.Diagnostics.Append(resp.State.Set(ctx, m)...)
}

func (r *webhookResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var m webhookModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	w, err := r.svc.Webhooks.SetWebhookPaused(ctx, m.OrgID.ValueString(), m.ID.ValueString(), m.Paused.ValueBool())
	if err != nil {
		resp.Diagnostics.AddError("Updating the webhook", err.Error())
		return
	}
	m.set(w)
	resp.Diagnostics.Append(resp.State.Set(ctx, m)...)
}

func (r *webhookResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var m webhookModel
	resp.Diagnostics.Append(req.State.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if err := r.svc.Webhooks.DeleteWebhook(ctx, m.OrgID.ValueString(), m.ID.ValueString()); err != nil && !notFound(err) {
		resp.Diagnostics.AddError("Deleting the webhook", err.Error())
	}
}

// ImportState takes ORG_ID/WEBHOOK_ID.
func (r *webhookResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	org, id, ok := strings.Cut(req.ID, "/")
	if !ok || org == "" || id == "" {
		resp.Diagnostics.AddError("Invalid import ID", "expected ORG_ID/WEBHOOK_ID, got "+req.ID)
		return
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("org_id"), org)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), id)...)
}
