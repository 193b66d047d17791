// Command terraform-provider-redirects is the OpenTofu/Terraform provider
// of redirects: projects, their draft rule set, deployments and API keys
// through the management API (see README.md).
package main

import (
	"context"
	"flag"
	"log"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"

	"redirects/terraform-provider-redirects/internal/provider"
)

// version is set by the build (-ldflags "-X main.version=...").
var version = "dev"

func main() {
	debug := flag.Bool("debug", false, "run the provider for a debugger (prints TF_REATTACH_PROVIDERS)")
	flag.Parse()
	err := providerserver.Serve(context.Background(), provider.New(version), providerserver.ServeOpts{
		Address: provider.Address,
		Debug:   *debug,
	})
	if err != nil {
		log.Fatal(err)
	}
}
