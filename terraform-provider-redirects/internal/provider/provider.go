// Package provider is the OpenTofu/Terraform provider of redirects: it
// manages projects, their draft rule set, deployments and API keys through
// the management API. Its resources call the service layer
// (redirects.Services) that the main module's remote.Client implements
// over the API, the same code the command line runs with --api.
package provider

import (
	"context"
	"fmt"
	"os"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/function"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"redirects"
	"redirects/remote"
)

// Address is the provider's source address.
const Address = "registry.terraform.io/redirects/redirects"

// New returns the provider's factory.
func New(version string) func() provider.Provider {
	return func() provider.Provider { return &redirectsProvider{version: version} }
}

type redirectsProvider struct{ version string }

var _ provider.ProviderWithFunctions = (*redirectsProvider)(nil)

type providerModel struct {
	API   types.String `tfsdk:"api"`
	Token types.String `tfsdk:"token"`
}

func (p *redirectsProvider) Metadata(_ context.Context, _ provider.MetadataRequest, resp *provider.MetadataResponse) {
	resp.TypeName = "redirects"
	resp.Version = p.version
}

func (p *redirectsProvider) Schema(_ context.Context, _ provider.SchemaRequest, resp *provider.SchemaResponse) {
	resp.Schema = schema.Schema{
		Description: "Manages redirects projects, rule sets, deployments and API keys through the management API.",
		Attributes: map[string]schema.Attribute{
			"api": schema.StringAttribute{Optional: true,
				Description: "The management API's base URL (the --manage-addr listener), e.g. https://admin.example.com. Defaults to $REDIRECTS_API."},
			"token": schema.StringAttribute{Optional: true, Sensitive: true,
				Description: "A management token (redir_mgmt_...). Defaults to $REDIRECTS_TOKEN."},
		},
	}
}

func (p *redirectsProvider) Configure(ctx context.Context, req provider.ConfigureRequest, resp *provider.ConfigureResponse) {
	var m providerModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if m.API.IsUnknown() || m.Token.IsUnknown() {
		resp.Diagnostics.AddError("Provider configuration not known at plan time",
			"api and token must be known when planning (a variable or a literal, not another resource's attribute).")
		return
	}
	api, token := m.API.ValueString(), m.Token.ValueString()
	if api == "" {
		api = os.Getenv("REDIRECTS_API")
	}
	if token == "" {
		token = os.Getenv("REDIRECTS_TOKEN")
	}
	if api == "" {
		resp.Diagnostics.AddError("No management API", "Set the provider's api attribute or REDIRECTS_API to the management API's URL.")
	}
	if token == "" {
		resp.Diagnostics.AddError("No management token", "Set the provider's token attribute or REDIRECTS_TOKEN to a management token (redirects token create).")
	}
	if resp.Diagnostics.HasError() {
		return
	}
	c, err := remote.NewClient(api, token)
	if err != nil {
		resp.Diagnostics.AddError("Invalid provider configuration", err.Error())
		return
	}
	svc := c.Services()
	resp.ResourceData, resp.DataSourceData = svc, svc
}

func (p *redirectsProvider) Resources(context.Context) []func() resource.Resource {
	return []func() resource.Resource{newProjectResource, newRuleSetResource, newAPIKeyResource, newDeploymentResource, newWebhookResource}
}

func (p *redirectsProvider) Functions(context.Context) []func() function.Function {
	return []func() function.Function{newCanonicalRulesFunction}
}

func (p *redirectsProvider) DataSources(context.Context) []func() datasource.DataSource {
	return []func() datasource.DataSource{newOrganizationDataSource, newVersionsDataSource}
}

// servicesOf returns the configured services, or adds an error. Before
// the provider is configured (data nil) it returns the zero Services,
// whose methods the framework does not call yet.
func servicesOf(data any, d *diag.Diagnostics) redirects.Services {
	if data == nil {
		return redirects.Services{}
	}
	svc, ok := data.(redirects.Services)
	if !ok {
		d.AddError("Unexpected provider data", fmt.Sprintf("%T", data))
	}
	return svc
}

// notFound reports whether err is the API's 404.
func notFound(err error) bool {
	return redirects.ErrorCode(err) == redirects.ENOTFOUND
}
