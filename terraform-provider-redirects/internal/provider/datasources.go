package provider

import (
	"context"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"redirects"
)

// organizationDataSource reads an organization by ID.
type organizationDataSource struct{ svc redirects.Services }

func newOrganizationDataSource() datasource.DataSource { return &organizationDataSource{} }

type organizationModel struct {
	ID   types.String `tfsdk:"id"`
	Name types.String `tfsdk:"name"`
	Tier types.String `tfsdk:"tier"`
}

func (d *organizationDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_organization"
}

func (d *organizationDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = schema.Schema{
		Description: "An organization, by ID.",
		Attributes: map[string]schema.Attribute{
			"id":   schema.StringAttribute{Required: true},
			"name": schema.StringAttribute{Computed: true},
			"tier": schema.StringAttribute{Computed: true},
		},
	}
}

func (d *organizationDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	d.svc = servicesOf(req.ProviderData, &resp.Diagnostics)
}

func (d *organizationDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var m organizationModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	o, err := d.svc.Orgs.Org(ctx, m.ID.ValueString())
	if err != nil {
		resp.Diagnostics.AddError("Reading the organization", err.Error())
		return
	}
	m.Name, m.Tier = types.StringValue(o.Name), types.StringValue(string(o.Tier))
	resp.Diagnostics.Append(resp.State.Set(ctx, m)...)
}

// versionsDataSource lists a project's deployments, version 1 first as
// the API answers them.
type versionsDataSource struct{ svc redirects.Services }

func newVersionsDataSource() datasource.DataSource { return &versionsDataSource{} }

type versionModel struct {
	Version      types.Int64  `tfsdk:"version"`
	Message      types.String `tfsdk:"message"`
	CreatedAt    types.String `tfsdk:"created_at"`
	FromVersion  types.Int64  `tfsdk:"from_version"`
	ExactRules   types.Int64  `tfsdk:"exact_rules"`
	PrefixRules  types.Int64  `tfsdk:"prefix_rules"`
	PatternRules types.Int64  `tfsdk:"pattern_rules"`
	RegexRules   types.Int64  `tfsdk:"regex_rules"`
}

type versionsModel struct {
	ProjectID types.String   `tfsdk:"project_id"`
	Versions  []versionModel `tfsdk:"versions"`
}

func (d *versionsDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_versions"
}

func (d *versionsDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = schema.Schema{
		Description: "A project's deployed versions.",
		Attributes: map[string]schema.Attribute{
			"project_id": schema.StringAttribute{Required: true},
			"versions": schema.ListNestedAttribute{Computed: true, NestedObject: schema.NestedAttributeObject{
				Attributes: map[string]schema.Attribute{
					"version":       schema.Int64Attribute{Computed: true},
					"message":       schema.StringAttribute{Computed: true},
					"created_at":    schema.StringAttribute{Computed: true},
					"from_version":  schema.Int64Attribute{Computed: true, Description: "The version redeployed (a rollback), or 0."},
					"exact_rules":   schema.Int64Attribute{Computed: true},
					"prefix_rules":  schema.Int64Attribute{Computed: true, Description: "The version's starts_with rules."},
					"pattern_rules": schema.Int64Attribute{Computed: true},
					"regex_rules":   schema.Int64Attribute{Computed: true},
				}}},
		},
	}
}

func (d *versionsDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	d.svc = servicesOf(req.ProviderData, &resp.Diagnostics)
}

func (d *versionsDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var m versionsModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	ds, err := d.svc.Deploys.Deployments(ctx, m.ProjectID.ValueString())
	if err != nil {
		resp.Diagnostics.AddError("Reading the deployments", err.Error())
		return
	}
	m.Versions = make([]versionModel, len(ds))
	for i, x := range ds {
		m.Versions[i] = versionModel{Version: types.Int64Value(int64(x.Version)), Message: types.StringValue(x.Message),
			CreatedAt: types.StringValue(x.CreatedAt.UTC().Format(time.RFC3339)), FromVersion: types.Int64Value(int64(x.FromVersion)),
			ExactRules: types.Int64Value(int64(x.ExactCount)), PrefixRules: types.Int64Value(int64(x.PrefixCount)),
			PatternRules: types.Int64Value(int64(x.PatternCount)), RegexRules: types.Int64Value(int64(x.RegexCount))}
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, m)...)
}
