package main

import (
	"cmp"
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"

	"redirects"
	"redirects/service"
)

// quickstartCommands is "quickstart": demo data, then serve.
var quickstartCommands = []command{
	{
		name:     "quickstart",
		needsDB:  true,
		synopsis: []string{"[--addr HOST:PORT] [--admin-addr HOST:PORT] [--manage-addr HOST:PORT [--tls-cert FILE --tls-key FILE]] [--log-format text|json]"},
		remark:   "demo data in a local database, then serve",
		summary:  "create demo data in a local database, then serve it",
		example:  "redirects quickstart",
		run:      (*cmd).quickstart,
	},
}

// demoRules are the quickstart project's rules: exact and prefix, 301 and
// 302, a broad prefix with an exact exception.
var demoRules = []redirects.Rule{
	{Source: "/old-home", Destination: "/", StatusCode: 301, MatchType: redirects.Exact},
	{Source: "/about-us", Destination: "/about", StatusCode: 301, MatchType: redirects.Exact},
	{Source: "/contact.html", Destination: "/contact", StatusCode: 301, MatchType: redirects.Exact},
	{Source: "/pricing/2023", Destination: "/pricing", StatusCode: 301, MatchType: redirects.Exact},
	{Source: "/summer-sale", Destination: "/offers/summer?utm_source=redirect", StatusCode: 302, MatchType: redirects.Exact},
	{Source: "/docs/v1/install", Destination: "/docs/v2/getting-started", StatusCode: 301, MatchType: redirects.Exact},
	{Source: "/support", Destination: "https://help.example.com/", StatusCode: 302, MatchType: redirects.Exact},
	{Source: "/blog/", Destination: "https://blog.example.com/", StatusCode: 301, MatchType: redirects.StartsWith, Priority: 100},
	{Source: "/blog/2019/", Destination: "https://blog.example.com/archive/2019", StatusCode: 301, MatchType: redirects.StartsWith, Priority: 10},
	{Source: "/docs/v1/", Destination: "/docs/v2/", StatusCode: 301, MatchType: redirects.StartsWith, Priority: 50},
	{Source: "/shop/", Destination: "https://store.example.com/", StatusCode: 302, MatchType: redirects.StartsWith, Priority: 100},
	{Source: "/careers", Destination: "https://jobs.example.com/", StatusCode: 301, MatchType: redirects.StartsWith, Priority: 100},
}

const (
	demoOrg     = "Demo"
	demoProject = "demo"
)

func (c *cmd) quickstart(ctx context.Context, args []string) error {
	fs := c.flags("quickstart")
	cf := &c.cfg
	fs.StringVar(&cf.addr, "addr", cmp.Or(cf.addr, "127.0.0.1:8080"), "edge API address (or REDIRECTS_ADDR)")
	fs.StringVar(&cf.adminAddr, "admin-addr", cmp.Or(cf.adminAddr, "127.0.0.1:8081"), "admin address for /metrics")
	fs.StringVar(&cf.logFormat, "log-format", cmp.Or(cf.logFormat, "text"), "log lines as text (key=value) or json (or REDIRECTS_LOG_FORMAT)")
	c.manage = c.manageFlags(fs, "127.0.0.1:8082")
	c.manage.lenient = true
	if _, err := parse(fs, args); err != nil {
		return err
	}
	if err := checkLogFormat(cf.logFormat); err != nil {
		return err
	}
	if err := c.manage.check(); err != nil {
		return err
	}
	s, err := c.open(ctx)
	if err != nil {
		return err
	}
	p, err := demoProjectOf(ctx, s)
	if err != nil {
		return err
	}
	// A project left without a deployment (a first run that stopped early)
	// gets its rules and deployment now.
	deps, err := s.FindDeployments(ctx, p.ID)
	if err != nil {
		return err
	}
	if len(deps) == 0 {
		if _, err := s.ImportRules(ctx, p.ID, demoRules, true); err != nil {
			return err
		}
		if _, err := service.DeployUnchecked(ctx, s, p.ID, redirects.DeployOptions{Message: "quickstart"}, builder); err != nil {
			return err
		}
	}
	// Each run prints a fresh key; the keys earlier runs printed are
	// revoked, so a demo database does not gather live keys.
	svc, err := c.services(ctx)
	if err != nil {
		return err
	}
	keys, err := svc.Keys.FindKeys(ctx, p.ID)
	if err != nil {
		return err
	}
	for _, old := range keys.Keys {
		if old.Name == "quickstart" && old.RevokedAt == nil {
			if _, _, err := svc.Keys.RevokeKey(ctx, p.ID, old.ID); err != nil {
				return err
			}
		}
	}
	_, secret, err := svc.Keys.CreateKey(ctx, p.ID, "quickstart", false)
	if err != nil {
		return err
	}
	var login string
	if *c.manage.addr != "" {
		if login, err = demoOperator(ctx, s, p.OrgID); err != nil {
			return err
		}
	}
	// The demo serves on its own: no shared limits, the default log level
	// and engine, whatever the environment says.
	return c.runServer(ctx, cf.addr, cf.adminAddr, "", "info", cf.logFormat, "evhttp", func(edgeAddr string) {
		host, port, _ := net.SplitHostPort(edgeAddr)
		if host == "" || host == "::" || host == "0.0.0.0" {
			host = "127.0.0.1"
		}
		base := "http://" + net.JoinHostPort(host, port)
		var b strings.Builder
		fmt.Fprintf(&b, "\nredirects is serving project %s (%q) on %s\n", p.ID, demoProject, base)
		fmt.Fprintf(&b, "API key (shown once): %s\n\n", secret)
		fmt.Fprintf(&b, "# a redirect (200 with JSON):\ncurl -i -H 'X-API-Key: %s' '%s/v1/lookup?project=%s&path=/blog/2019/hello'\n\n", secret, base, p.ID)
		fmt.Fprintf(&b, "# no rule for the path (204):\ncurl -i -H 'X-API-Key: %s' '%s/v1/lookup?project=%s&path=/nowhere'\n\n", secret, base, p.ID)
		fmt.Fprintf(&b, "# the rules as an nginx config:\ncurl -H 'X-API-Key: %s' '%s/v1/export?project=%s&format=nginx'\n\n", secret, base, p.ID)
		if c.manage.bound != "" {
			printManageLogin(&b, c.manage.bound, c.manage.tls != nil, login)
		}
		exe, _ := os.Executable()
		fmt.Fprintf(&b, "Press Ctrl-C to stop. Manage rules with: %s rule add --project %s ...\n", commandHint(c.m.Getenv, exe, os.Args[0]), p.ID)
		fmt.Fprint(c.m.Stdout, b.String())
	})
}

// demoProjectOf returns the demo project, creating the demo organization and
// project if they are not there yet.
func demoProjectOf(ctx context.Context, s redirects.Store) (*redirects.Project, error) {
	orgs, err := s.FindOrgs(ctx)
	if err != nil {
		return nil, err
	}
	for _, o := range orgs {
		if o.Name != demoOrg {
			continue
		}
		projects, err := s.FindProjects(ctx, o.ID)
		if err != nil {
			return nil, err
		}
		for _, p := range projects {
			if p.Name == demoProject {
				return p, nil
			}
		}
	}
	o := &redirects.Org{Name: demoOrg, Tier: redirects.TierPro}
	if err := s.CreateOrg(ctx, o); err != nil {
		return nil, err
	}
	p := &redirects.Project{OrgID: o.ID, Name: demoProject}
	if err := s.CreateProject(ctx, p); err != nil {
		return nil, err
	}
	return p, nil
}

// demoOperatorEmail is the quickstart's login to the management API.
const demoOperatorEmail = "admin@example.com"

// demoOperator makes admin@example.com (an operator, created if missing)
// owner of the demo organization, gives it a fresh one-time password and
// returns it. A reset ends the user's earlier sessions.
func demoOperator(ctx context.Context, a redirects.AccountStore, orgID string) (string, error) {
	pw := redirects.NewPassword()
	hash, err := redirects.HashPassword(pw)
	if err != nil {
		return "", err
	}
	u, err := a.FindUserByEmail(ctx, demoOperatorEmail)
	switch {
	case redirects.ErrorCode(err) == redirects.ENOTFOUND:
		u = &redirects.User{Email: demoOperatorEmail, PasswordHash: hash, Operator: true, MustChangePassword: true}
		if err := a.CreateUser(ctx, u); err != nil {
			return "", err
		}
	case err != nil:
		return "", err
	case u.Disabled():
		return "", redirects.Errorf(redirects.EINVALID, "%s is disabled in this database; the quickstart cannot sign in with it", demoOperatorEmail)
	default:
		if err := a.SetUserPassword(ctx, u.ID, hash); err != nil {
			return "", err
		}
		if err := a.RequirePasswordChange(ctx, u.ID); err != nil {
			return "", err
		}
	}
	if err := a.SetMember(ctx, &redirects.Membership{OrgID: orgID, UserID: u.ID, Role: redirects.RoleOwner}); err != nil {
		return "", err
	}
	return pw, nil
}

// printManageLogin prints the dashboard's and the management API's
// addresses and a login for both, with https addresses when the listener
// serves TLS.
func printManageLogin(b *strings.Builder, addr string, tls bool, password string) {
	host, port, _ := net.SplitHostPort(addr)
	if host == "" || host == "::" || host == "0.0.0.0" {
		host = "127.0.0.1"
	}
	scheme := "http://"
	if tls {
		scheme = "https://"
	}
	root := scheme + net.JoinHostPort(host, port)
	base := root + "/manage/v1"
	fmt.Fprintf(b, "Dashboard: %s/  (sign in with the login below)\n", root)
	fmt.Fprintf(b, "Management API: %s/\n", base)
	fmt.Fprintf(b, "Login: %s  one-time password (shown once): %s\n\n", demoOperatorEmail, password)
	fmt.Fprintf(b, "# sign in (keeps the session cookie in cookies.txt; the answer holds the csrfToken for changes):\n")
	fmt.Fprintf(b, "curl -c cookies.txt -H 'Content-Type: application/json' -d '{\"email\":\"%s\",\"password\":\"%s\"}' '%s/session'\n\n", demoOperatorEmail, password, base)
	fmt.Fprintf(b, "# your organizations:\ncurl -b cookies.txt '%s/orgs'\n\n", base)
}

// commandHint returns how to run this program again, for the line that
// suggests a next command: "redirects" when a redirects binary is on
// PATH, "go run ./cmd/redirects" when the program runs under go run (a
// binary in go's build cache folder exe), else the path it was started by
// (exe, the executable, when arg0 is a bare name).
func commandHint(getenv func(string) string, exe, arg0 string) string {
	for _, dir := range filepath.SplitList(getenv("PATH")) {
		if dir == "" {
			continue
		}
		for _, name := range []string{"redirects", "redirects.exe"} {
			if fi, err := os.Stat(filepath.Join(dir, name)); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
				return "redirects"
			}
		}
	}
	if exe != "" && strings.Contains(exe, string(filepath.Separator)+"go-build") && filepath.Base(filepath.Dir(exe)) == "exe" {
		return "go run ./cmd/redirects"
	}
	hint := exe
	if strings.ContainsRune(arg0, filepath.Separator) || exe == "" {
		hint = arg0
	}
	if hint == "" {
		return "redirects"
	}
	if strings.ContainsAny(hint, " \t'\"$\\") {
		return "'" + strings.ReplaceAll(hint, "'", `'\''`) + "'"
	}
	return hint
}
