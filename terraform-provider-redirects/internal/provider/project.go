package provider

import (
	"context"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64default"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/listdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"redirects"
)

type projectResource struct{ svc redirects.Services }

func newProjectResource() resource.Resource { return &projectResource{} }

type projectModel struct {
	ID            types.String `tfsdk:"id"`
	OrgID         types.String `tfsdk:"org_id"`
	Name          types.String `tfsdk:"name"`
	Hosts         types.List   `tfsdk:"hosts"`
	CaseSensitive types.Bool   `tfsdk:"case_sensitive"`
	TrailingSlash types.String `tfsdk:"trailing_slash"`
	ShrinkLimit   types.Int64  `tfsdk:"shrink_limit"`
	KeepExports   types.Int64  `tfsdk:"keep_exports"`
}

func (r *projectResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_project"
}

func (r *projectResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		Description: "A project: one site's redirect rules, its settings and its deployments.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{Computed: true, Description: "The project's ID (prj_...).",
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()}},
			"org_id": schema.StringAttribute{Required: true, Description: "The organization's ID; changing it replaces the project.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()}},
			"name": schema.StringAttribute{Required: true},
			"hosts": schema.ListAttribute{ElementType: types.StringType, Optional: true, Computed: true,
				Default:     listdefault.StaticValue(types.ListValueMust(types.StringType, []attr.Value{})),
				Description: "Host names the site answers on, lower-case, each once; an import reads a full URL on one of them as its path."},
			"case_sensitive": schema.BoolAttribute{Optional: true, Computed: true, Default: booldefault.StaticBool(true),
				Description: "Whether sources match paths with regard to ASCII case (default true)."},
			"trailing_slash": schema.StringAttribute{Optional: true, Computed: true, Default: stringdefault.StaticString(redirects.TrailingSlashExact),
				Description: "\"exact\" (default) or \"ignore\"."},
			"shrink_limit": schema.Int64Attribute{Optional: true, Computed: true, Default: int64default.StaticInt64(redirects.DefaultShrinkLimit),
				Description: "Percentage of the live rules a deploy may remove without allow_shrink."},
			"keep_exports": schema.Int64Attribute{Optional: true, Computed: true, Default: int64default.StaticInt64(redirects.DefaultExportRetention),
				Description: "How many of the latest deployments keep their export files."},
		},
	}
}

func (r *projectResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.svc = servicesOf(req.ProviderData, &resp.Diagnostics)
}

func (r *projectResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var m projectModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	var hosts []string
	resp.Diagnostics.Append(m.Hosts.ElementsAs(ctx, &hosts, false)...)
	if resp.Diagnostics.HasError() {
		return
	}
	p := &redirects.Project{OrgID: m.OrgID.ValueString(), Name: m.Name.ValueString(), Hosts: hosts,
		ExportRetention: int(m.KeepExports.ValueInt64())}
	if err := r.svc.Projects.CreateProject(ctx, p); err != nil {
		resp.Diagnostics.AddError("Creating the project", err.Error())
		return
	}
	// The state holds the project from here on, so that a failure below
	// leaves no project the state does not know.
	m.ID = types.StringValue(p.ID)
	resp.Diagnostics.Append(resp.State.Set(ctx, projectModelOf(p))...)
	got, err := r.apply(ctx, p, m)
	if err != nil {
		resp.Diagnostics.AddError("Setting the project's settings", err.Error())
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, projectModelOf(got))...)
}

// apply changes what differs between the project p and the model m, in
// one update (the service checks every field before it stores any), and
// returns the project as stored.
func (r *projectResource) apply(ctx context.Context, p *redirects.Project, m projectModel) (*redirects.Project, error) {
	u, err := projectUpdateOf(ctx, p, m)
	if err != nil {
		return nil, err
	}
	if u.IsEmpty() {
		return p, nil
	}
	return r.svc.Projects.UpdateProject(ctx, p.ID, u)
}

// projectUpdateOf returns the change that makes project p what model m
// says: the fields that differ, and no other.
func projectUpdateOf(ctx context.Context, p *redirects.Project, m projectModel) (redirects.ProjectUpdate, error) {
	var u redirects.ProjectUpdate
	ts := m.TrailingSlash.ValueString()
	if ts != redirects.TrailingSlashExact && ts != redirects.TrailingSlashIgnore {
		return u, redirects.Errorf(redirects.EINVALID, "trailing_slash %q must be \"exact\" or \"ignore\"", ts)
	}
	if name := m.Name.ValueString(); p.Name != name {
		u.Name = &name
	}
	var hosts []string
	m.Hosts.ElementsAs(ctx, &hosts, false)
	if !equalStrings(p.Hosts, hosts) {
		u.Hosts = &hosts
	}
	if ci := !m.CaseSensitive.ValueBool(); p.Settings.CaseInsensitive != ci {
		u.CaseInsensitive = &ci
	}
	if ignore := ts == redirects.TrailingSlashIgnore; p.Settings.IgnoreTrailingSlash != ignore {
		u.IgnoreTrailingSlash = &ignore
	}
	if n := int(m.ShrinkLimit.ValueInt64()); p.ShrinkLimit != n {
		u.ShrinkLimit = &n
	}
	if n := int(m.KeepExports.ValueInt64()); p.ExportRetention != n {
		u.ExportRetention = &n
	}
	return u, nil
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func projectModelOf(p *redirects.Project) projectModel {
	hosts := make([]attr.Value, len(p.Hosts))
	for i, h := range p.Hosts {
		hosts[i] = types.StringValue(h)
	}
	ts := redirects.TrailingSlashExact
	if p.Settings.IgnoreTrailingSlash {
		ts = redirects.TrailingSlashIgnore
	}
	return projectModel{ID: types.StringValue(p.ID), OrgID: types.StringValue(p.OrgID), Name: types.StringValue(p.Name),
		Hosts: types.ListValueMust(types.StringType, hosts), CaseSensitive: types.BoolValue(!p.Settings.CaseInsensitive),
		TrailingSlash: types.StringValue(ts), ShrinkLimit: types.Int64Value(int64(p.ShrinkLimit)),
		KeepExports: types.Int64Value(int64(p.ExportRetention))}
}

func (r *projectResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var m projectModel
	resp.Diagnostics.Append(req.State.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	p, err := r.svc.Projects.Project(ctx, m.ID.ValueString())
	if notFound(err) {
		resp.State.RemoveResource(ctx)
		return
	}
	if err != nil {
		resp.Diagnostics.AddError("Reading the project", err.Error())
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, projectModelOf(p))...)
}

func (r *projectResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var m projectModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	p, err := r.svc.Projects.Project(ctx, m.ID.ValueString())
	if err == nil {
		p, err = r.apply(ctx, p, m)
	}
	if err != nil {
		resp.Diagnostics.AddError("Updating the project", err.Error())
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, projectModelOf(p))...)
}

func (r *projectResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var m projectModel
	resp.Diagnostics.Append(req.State.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	// The service deletes a project when its name is typed back: the
	// name as stored, which a rename elsewhere may have changed since the
	// state was written.
	p, err := r.svc.Projects.Project(ctx, m.ID.ValueString())
	if err == nil {
		err = r.svc.Projects.DeleteProject(ctx, p.ID, p.Name)
	}
	if err != nil && !notFound(err) {
		resp.Diagnostics.AddError("Deleting the project", err.Error())
	}
}

func (r *projectResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	resource.ImportStatePassthroughID(ctx, path.Root("id"), req, resp)
}

// ValidateConfig checks the settings at plan time with the service's own
// checks, so that a bad value fails the plan and changes nothing.
func (r *projectResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var m projectModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if ts := m.TrailingSlash; !ts.IsNull() && !ts.IsUnknown() &&
		ts.ValueString() != redirects.TrailingSlashExact && ts.ValueString() != redirects.TrailingSlashIgnore {
		resp.Diagnostics.AddAttributeError(path.Root("trailing_slash"), "Invalid trailing_slash",
			"trailing_slash "+ts.String()+" must be \"exact\" or \"ignore\"")
	}
	if v := m.ShrinkLimit; !v.IsNull() && !v.IsUnknown() {
		if err := redirects.ValidateShrinkLimit(int(v.ValueInt64())); err != nil {
			resp.Diagnostics.AddAttributeError(path.Root("shrink_limit"), "Invalid shrink_limit", err.Error())
		}
	}
	if v := m.KeepExports; !v.IsNull() && !v.IsUnknown() {
		if err := redirects.ValidateExportRetention(int(v.ValueInt64())); err != nil {
			resp.Diagnostics.AddAttributeError(path.Root("keep_exports"), "Invalid keep_exports", err.Error())
		}
	}
	if m.Hosts.IsNull() || m.Hosts.IsUnknown() {
		return
	}
	var hosts []string
	if d := m.Hosts.ElementsAs(ctx, &hosts, true); d.HasError() {
		return // an unknown element: checked at apply
	}
	norm, err := redirects.NormalizeHosts(hosts)
	if err != nil {
		resp.Diagnostics.AddAttributeError(path.Root("hosts"), "Invalid hosts", err.Error())
	} else if !equalStrings(norm, hosts) {
		// The API stores hosts normalized; a configuration that differs
		// would plan a change at every run.
		resp.Diagnostics.AddAttributeError(path.Root("hosts"), "Hosts not in normal form",
			"write hosts lower-case, without a trailing dot, each once: ["+strings.Join(quoteAll(norm), ", ")+"]")
	}
}

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = `"` + s + `"`
	}
	return out
}
