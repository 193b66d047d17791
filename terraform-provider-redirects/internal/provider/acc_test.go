package provider

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"redirects/remote"
)

// server is a real "redirects serve" on a temporary SQLite database, with
// an organization and an owner token made by the CLI.
type server struct {
	bin, db, api, token, org string
}

// cli runs the redirects binary on the server's database.
func (s *server) cli(t *testing.T, args ...string) string {
	t.Helper()
	cmd := exec.Command(s.bin, args...)
	cmd.Env = append(os.Environ(), "REDIRECTS_DB="+s.db)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("redirects %s: %v\n%s%s", strings.Join(args, " "), err, out, stderr.String())
	}
	return strings.TrimSpace(string(out))
}

func startServer(t *testing.T) *server {
	t.Helper()
	dir := t.TempDir()
	s := &server{bin: filepath.Join(dir, "redirects"), db: "sqlite:" + filepath.Join(dir, "r.db")}
	build := exec.Command("go", "build", "-o", s.bin, "./cmd/redirects")
	build.Dir = "../../.."
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building redirects: %v\n%s", err, out)
	}
	s.org = s.cli(t, "org", "create", "--name", "Acme", "--tier", "pro")
	s.token = s.cli(t, "token", "create", "--org", s.org, "--role", "owner", "--name", "tofu")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	srv := exec.Command(s.bin, "serve", "--addr", "127.0.0.1:0", "--admin-addr", "", "--engine", "net/http", "--manage-addr", addr)
	srv.Env = append(os.Environ(), "REDIRECTS_DB="+s.db)
	logf, _ := os.Create(filepath.Join(dir, "serve.log"))
	srv.Stdout, srv.Stderr = logf, logf
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		srv.Process.Signal(os.Interrupt)
		done := make(chan error, 1)
		go func() { done <- srv.Wait() }()
		select {
		case <-done:
		case <-time.After(15 * time.Second):
			srv.Process.Kill()
		}
	})
	s.api = "http://" + addr
	deadline := time.Now().Add(20 * time.Second)
	for {
		res, err := http.Get(s.api + "/manage/v1/orgs")
		if err == nil {
			res.Body.Close()
			if res.StatusCode == 401 {
				break
			}
		}
		if time.Now().After(deadline) {
			log, _ := os.ReadFile(filepath.Join(dir, "serve.log"))
			t.Fatalf("the management API did not answer: %v\n%s", err, log)
		}
		time.Sleep(100 * time.Millisecond)
	}
	return s
}

func factories() map[string]func() (tfprotov6.ProviderServer, error) {
	return map[string]func() (tfprotov6.ProviderServer, error){
		"redirects": providerserver.NewProtocol6WithError(New("test")()),
	}
}

// quietCLIConfig points TF_CLI_CONFIG_FILE at an empty file: a missing
// one makes tofu print a warning before its version, which the test
// framework then cannot read.
func quietCLIConfig(t *testing.T) {
	f := filepath.Join(t.TempDir(), "tofurc")
	if err := os.WriteFile(f, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TF_CLI_CONFIG_FILE", f)
	// OpenTofu's default registry host: the address under which the test
	// framework reattaches the provider must be the one tofu resolves
	// "redirects" to.
	if os.Getenv("TF_ACC_PROVIDER_HOST") == "" {
		t.Setenv("TF_ACC_PROVIDER_HOST", "registry.opentofu.org")
	}
	if os.Getenv("TF_ACC_PROVIDER_NAMESPACE") == "" {
		t.Setenv("TF_ACC_PROVIDER_NAMESPACE", "hashicorp")
	}
}

// needTofu skips an acceptance test without a tofu (or terraform) binary.
func needTofu(t *testing.T) {
	if os.Getenv("TF_ACC_TERRAFORM_PATH") == "" || os.Getenv("TF_ACC") == "" {
		t.Skip("acceptance test: set TF_ACC=1 and TF_ACC_TERRAFORM_PATH to a tofu binary (see ci.sh)")
	}
}

// config is the test's configuration: the project, its rule set from
// rules, a deployment triggered by the rule set's digest, a key and both
// data sources.
func config(org, settings, rules string) string {
	return fmt.Sprintf(`
resource "redirects_project" "www" {
  org_id = %q
  name   = "www"
  %s
}

resource "redirects_rule_set" "www" {
  project_id = redirects_project.www.id
  rules_csv  = <<-EOT
%sEOT
}

resource "redirects_deployment" "www" {
  project_id = redirects_project.www.id
  message    = "from tofu"
  triggers   = { rules = redirects_rule_set.www.digest }
  allow_shrink = true
}

resource "redirects_api_key" "edge" {
  project_id = redirects_project.www.id
  name       = "edge"
}

data "redirects_organization" "acme" {
  id = %q
}

data "redirects_versions" "www" {
  project_id = redirects_deployment.www.project_id
  depends_on = [redirects_deployment.www]
}
`, org, settings, rules, org)
}

// lookup asks the real binary, on the database, where path goes in the
// live deployment of the project in the state.
func (s *server) lookup(t *testing.T, path, want string) resource.TestCheckFunc {
	return func(st *terraform.State) error {
		p := st.RootModule().Resources["redirects_project.www"].Primary.ID
		cmd := exec.Command(s.bin, "lookup", "--project", p, "--path", path)
		cmd.Env = append(os.Environ(), "REDIRECTS_DB="+s.db)
		out, _ := cmd.CombinedOutput()
		if !strings.Contains(string(out), want) {
			return fmt.Errorf("lookup %s: want %s, got %s", path, want, out)
		}
		return nil
	}
}

// TestAccProvider runs the provider with a real tofu against a real serve:
// create, a plan without changes (also with the rules written otherwise),
// update, import of every resource, drift of the draft, destroy.
func TestAccProvider(t *testing.T) {
	needTofu(t)
	s := startServer(t)
	t.Setenv("REDIRECTS_API", s.api)
	t.Setenv("REDIRECTS_TOKEN", s.token)
	quietCLIConfig(t)

	rules1 := "source,destination,statusCode,matchType\n/old,/new,301,exact\n/docs/,https://docs.example.com/,308,starts_with\n"
	// The same rules: other separator, column order, case, spacing, order.
	rules1b := "Match Type ; Status Code ; Destination ; Source\nStarts With ; 308 ; https://docs.example.com/ ; /docs/\nexact;301;/new;/old\n"
	rules2 := "source,destination,statusCode,matchType,priority\n/old,/newer,302,exact,100\n/docs/,https://docs.example.com/,308,starts_with,100\n/added,/here,301,exact,100\n"
	settings2 := "case_sensitive = false\n  trailing_slash = \"ignore\"\n  hosts = [\"www.example.com\"]\n  shrink_limit = 50\n  keep_exports = 5"

	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: factories(),
		CheckDestroy: func(*terraform.State) error {
			c, _ := remote.NewClient(s.api, s.token)
			ps, err := c.Projects(context.Background(), s.org)
			if err != nil {
				return err
			}
			if len(ps) != 0 {
				return fmt.Errorf("after destroy, %d projects remain", len(ps))
			}
			return nil
		},
		Steps: []resource.TestStep{
			{ // bad input fails the plan, naming what is wrong
				Config:      config(s.org, "", rules1+"/gone,/x,999,exact\n"),
				ExpectError: regexp.MustCompile(`line 4`),
			},
			{
				Config:      config(s.org, `trailing_slash = "sometimes"`, rules1),
				ExpectError: regexp.MustCompile(`must be "exact" or "ignore"`),
			},
			{
				Config:      config(s.org, `hosts = ["WWW.example.com"]`, rules1),
				ExpectError: regexp.MustCompile(`write hosts lower-case`),
			},
			{ // create
				PreConfig: func() {
					// ... and changes nothing.
					c, _ := remote.NewClient(s.api, s.token)
					if ps, err := c.Projects(context.Background(), s.org); err != nil || len(ps) != 0 {
						t.Errorf("after the failed plans: %d projects, %v", len(ps), err)
					}
				},
				Config: config(s.org, "", rules1),
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttrSet("redirects_project.www", "id"),
					resource.TestCheckResourceAttr("redirects_project.www", "case_sensitive", "true"),
					resource.TestCheckResourceAttr("redirects_project.www", "trailing_slash", "exact"),
					resource.TestCheckResourceAttr("redirects_project.www", "shrink_limit", "10"),
					resource.TestCheckResourceAttr("redirects_rule_set.www", "rule_count", "2"),
					resource.TestCheckResourceAttr("redirects_rule_set.www", "changes", "2 added, 0 changed, 0 removed"),
					resource.TestCheckResourceAttr("redirects_deployment.www", "version", "1"),
					resource.TestCheckResourceAttr("redirects_deployment.www", "exact_rules", "1"),
					resource.TestCheckResourceAttr("redirects_deployment.www", "prefix_rules", "1"),
					resource.TestCheckResourceAttr("redirects_deployment.www", "pattern_rules", "0"),
					resource.TestCheckResourceAttr("redirects_deployment.www", "regex_rules", "0"),
					resource.TestCheckResourceAttr("data.redirects_versions.www", "versions.0.pattern_rules", "0"),
					resource.TestMatchResourceAttr("redirects_api_key.edge", "secret", keySecret),
					resource.TestCheckResourceAttr("data.redirects_organization.acme", "name", "Acme"),
					resource.TestCheckResourceAttr("data.redirects_organization.acme", "tier", "pro"),
					resource.TestCheckResourceAttr("data.redirects_versions.www", "versions.#", "1"),
					resource.TestCheckResourceAttr("data.redirects_versions.www", "versions.0.message", "from tofu"),
					s.lookup(t, "/old", `"destination":"/new"`),
					s.lookup(t, "/docs/x", `https://docs.example.com/`),
				),
			},
			{Config: config(s.org, "", rules1), PlanOnly: true}, // no changes
			{ // the same rules written otherwise: the text changes in the
				// state, the draft and the digest do not (no deploy)
				Config: config(s.org, "", rules1b),
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr("redirects_rule_set.www", "rule_count", "2"),
					resource.TestCheckResourceAttr("redirects_deployment.www", "version", "1"),
				),
			},
			// The refresh reads the draft in canonical form: no drift.
			{Config: config(s.org, "", rules1b), PlanOnly: true},
			{ // update: rules and settings; the digest changes, so it deploys again
				Config: config(s.org, settings2, rules2),
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr("redirects_project.www", "case_sensitive", "false"),
					resource.TestCheckResourceAttr("redirects_project.www", "trailing_slash", "ignore"),
					resource.TestCheckResourceAttr("redirects_project.www", "hosts.0", "www.example.com"),
					resource.TestCheckResourceAttr("redirects_project.www", "shrink_limit", "50"),
					resource.TestCheckResourceAttr("redirects_project.www", "keep_exports", "5"),
					resource.TestCheckResourceAttr("redirects_rule_set.www", "rule_count", "3"),
					resource.TestCheckResourceAttr("redirects_rule_set.www", "changes", "1 added, 1 changed, 0 removed"),
					resource.TestCheckResourceAttr("redirects_deployment.www", "version", "2"),
					s.lookup(t, "/OLD/", `"destination":"/newer"`),
					s.lookup(t, "/added", `"destination":"/here"`),
				),
			},
			{ResourceName: "redirects_project.www", ImportState: true, ImportStateVerify: true},
			{ResourceName: "redirects_rule_set.www", ImportState: true, ImportStateVerify: true,
				// The imported text is the canonical one; the digest says
				// it holds the same rules.
				ImportStateVerifyIgnore: []string{"rules_csv", "changes"}},
			{ResourceName: "redirects_api_key.edge", ImportState: true, ImportStateVerify: true,
				ImportStateIdFunc: func(st *terraform.State) (string, error) {
					r := st.RootModule().Resources["redirects_api_key.edge"].Primary
					return r.Attributes["project_id"] + "/" + r.ID, nil
				},
				ImportStateVerifyIgnore: []string{"secret"}},
			{ResourceName: "redirects_deployment.www", ImportState: true, ImportStateVerify: true,
				ImportStateVerifyIgnore: []string{"triggers", "allow_shrink"}},
			{ // drift: a rule added to the draft elsewhere shows in the plan
				PreConfig: func() {
					p := s.cli(t, "project", "list", "--org", s.org)
					id := strings.Fields(p)[0]
					if !strings.HasPrefix(id, "prj_") {
						for _, f := range strings.Fields(p) {
							if strings.HasPrefix(f, "prj_") {
								id = f
							}
						}
					}
					s.cli(t, "rule", "add", "--project", id, "--source", "/drift", "--destination", "/x")
				},
				Config:             config(s.org, settings2, rules2),
				PlanOnly:           true,
				ExpectNonEmptyPlan: true,
			},
			{ // apply puts the draft back as configured; no new deploy
				Config: config(s.org, settings2, rules2),
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr("redirects_rule_set.www", "rule_count", "3"),
					resource.TestCheckResourceAttr("redirects_rule_set.www", "changes", "0 added, 0 changed, 1 removed"),
					resource.TestCheckResourceAttr("redirects_deployment.www", "version", "2"),
				),
			},
			{Config: config(s.org, settings2, rules2), PlanOnly: true},
		},
	})
}

var keySecret = regexp.MustCompile(`^redir_live_`)

// TestAccCanonicalRules: with rules_csv = provider::redirects::canonical_rules(...),
// a change of the text's formatting and order plans nothing, and an
// imported rule set equals the configured one, text and all.
func TestAccCanonicalRules(t *testing.T) {
	needTofu(t)
	s := startServer(t)
	t.Setenv("REDIRECTS_API", s.api)
	t.Setenv("REDIRECTS_TOKEN", s.token)
	quietCLIConfig(t)
	cfg := func(rules string) string {
		return fmt.Sprintf(`
terraform {
  required_providers {
    redirects = { source = "registry.opentofu.org/hashicorp/redirects" }
  }
}

resource "redirects_project" "www" {
  org_id = %q
  name   = "canon"
}

resource "redirects_rule_set" "www" {
  project_id = redirects_project.www.id
  rules_csv  = provider::redirects::canonical_rules(<<-EOT
%sEOT
  )
}
`, s.org, rules)
	}
	a := "source,destination,statusCode,matchType\n/b,/y,302,exact\n/a,/x,301,exact\n"
	b := "Match;Status;Destination;Source\r\nEXACT ; 301 ; /x ; /a\r\nexact;302;/y;/b\r\n"
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: factories(),
		Steps: []resource.TestStep{
			{Config: cfg(a + "/c,/z,999,exact\n"), ExpectError: regexp.MustCompile(`line 4`)},
			{Config: cfg(a), Check: resource.TestCheckResourceAttr("redirects_rule_set.www", "rules_csv",
				"source,destination,statusCode,matchType,priority\n/a,/x,301,exact,100\n/b,/y,302,exact,100\n")},
			{Config: cfg(b), PlanOnly: true},
			{ResourceName: "redirects_rule_set.www", ImportState: true, ImportStateVerify: true,
				ImportStateVerifyIgnore: []string{"changes"}},
		},
	})
}

// TestAccWebhook: an endpoint made, paused in place, imported, destroyed.
func TestAccWebhook(t *testing.T) {
	needTofu(t)
	s := startServer(t)
	t.Setenv("REDIRECTS_API", s.api)
	t.Setenv("REDIRECTS_TOKEN", s.token)
	quietCLIConfig(t)
	cfg := func(paused bool) string {
		return fmt.Sprintf(`
resource "redirects_webhook" "audit" {
  org_id  = %q
  url     = "https://hooks.example.com/redirects"
  actions = ["rule.*"]
  paused  = %t
}
`, s.org, paused)
	}
	var id string
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: factories(),
		CheckDestroy: func(*terraform.State) error {
			c, _ := remote.NewClient(s.api, s.token)
			if _, err := c.FindWebhook(context.Background(), s.org, id); !notFound(err) {
				return fmt.Errorf("after destroy, webhook %s: %v", id, err)
			}
			return nil
		},
		Steps: []resource.TestStep{
			{Config: cfg(false), Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestMatchResourceAttr("redirects_webhook.audit", "secret", regexp.MustCompile(`^whsec_`)),
				resource.TestCheckResourceAttr("redirects_webhook.audit", "status", "active"),
				resource.TestCheckResourceAttr("redirects_webhook.audit", "actions.0", "rule.*"),
				func(st *terraform.State) error {
					id = st.RootModule().Resources["redirects_webhook.audit"].Primary.ID
					return nil
				},
			)},
			{Config: cfg(true), Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckResourceAttr("redirects_webhook.audit", "status", "paused"),
				func(st *terraform.State) error {
					if got := st.RootModule().Resources["redirects_webhook.audit"].Primary.ID; got != id {
						return fmt.Errorf("pausing made a new endpoint: %s, was %s", got, id)
					}
					return nil
				},
			)},
			{ResourceName: "redirects_webhook.audit", ImportState: true, ImportStateVerify: true,
				ImportStateIdFunc:       func(*terraform.State) (string, error) { return s.org + "/" + id, nil },
				ImportStateVerifyIgnore: []string{"secret"}},
		},
	})
}
