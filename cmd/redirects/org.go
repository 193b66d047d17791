package main

import (
	"context"
	"fmt"
	"text/tabwriter"
	"time"

	"redirects"
	"redirects/api"
)

// orgsWhyDB is why creating, changing and deleting organizations needs
// the database.
const orgsWhyDB = "creating, changing and deleting organizations is the operators', and a management token is never an operator"

// orgCommands are the "org" commands: organizations, their tier and limits.
var orgCommands = []command{
	{name: "org", summary: "organizations: their tier and limits"},
	{
		name:     "org create",
		synopsis: []string{"--name NAME --tier free|pro|enterprise [--rate-limit N|unlimited] [--monthly-quota N|unlimited]"},
		summary:  "create an organization and print its ID",
		about: "The tier sets the default limits: free 100 requests a minute and 10000 a month, pro 1000 and\n" +
			"1000000, enterprise unlimited. --rate-limit and --monthly-quota override them.",
		example: `redirects org create --name "Acme Inc" --tier pro`,
		needsDB: true,
		whyDB:   orgsWhyDB,
		run:     (*cmd).orgCreate,
	},
	{
		name:     "org update",
		synopsis: []string{"ORG_ID [--name NAME] [--tier T] [--rate-limit N|unlimited|default] [--monthly-quota N|unlimited|default]"},
		summary:  "change an organization's name, tier or limits",
		about:    "Limits set to default follow the tier again.",
		example: "redirects org update \"$ORG\" --tier enterprise\n" +
			"redirects org update \"$ORG\" --rate-limit default",
		needsDB: true,
		whyDB:   orgsWhyDB,
		run:     (*cmd).orgUpdate,
	},
	{
		name:     "org list",
		synopsis: []string{"[--json]"},
		summary:  "list the organizations with their tiers and limits",
		example:  "redirects org list --json",
		readOnly: true,
		run:      (*cmd).orgList,
	},
	{
		name:     "org delete",
		synopsis: []string{"ORG_ID --confirm NAME"},
		remark:   "deletes its projects and everything of theirs",
		summary:  "delete an organization with its projects and everything of theirs",
		about:    "--confirm takes the organization's name, typed back, so that a wrong ID deletes nothing.",
		example:  `redirects org delete "$ORG" --confirm "Acme Inc"`,
		needsDB:  true,
		whyDB:    orgsWhyDB,
		run:      (*cmd).orgDelete,
	},
}

const timeFormat = time.RFC3339

// limitFlag is a --rate-limit or --monthly-quota value: a number,
// "unlimited", or (for updates) "default" to drop an override.
type limitFlag struct {
	name       string
	set        bool
	clear      bool
	value      redirects.Limit
	allowClear bool
}

func (f *limitFlag) String() string {
	if !f.set {
		return ""
	}
	if f.clear {
		return "default"
	}
	return f.value.String()
}

func (f *limitFlag) Set(s string) error {
	if f.allowClear && s == "default" {
		f.set, f.clear = true, true
		return nil
	}
	l, err := redirects.ParseLimit(f.name, s)
	if err != nil {
		return fmt.Errorf("%s", redirects.ErrorMessage(err))
	}
	f.set, f.clear, f.value = true, false, l
	return nil
}

func (c *cmd) orgCreate(ctx context.Context, args []string) error {
	fs := c.flags("org create")
	name := fs.String("name", "", "organization name")
	tier := fs.String("tier", "", "free, pro or enterprise")
	rate := &limitFlag{name: "rate-limit"}
	quota := &limitFlag{name: "monthly-quota"}
	fs.Var(rate, "rate-limit", "requests per minute, overriding the tier's (`N` or unlimited)")
	fs.Var(quota, "monthly-quota", "requests per month, overriding the tier's (`N` or unlimited)")
	if _, err := parse(fs, args); err != nil {
		return err
	}
	if err := required(fs, "name", "tier"); err != nil {
		return err
	}
	t, err := redirects.ParseTier(*tier)
	if err != nil {
		return err
	}
	o := &redirects.Org{Name: *name, Tier: t}
	if rate.set {
		o.RateLimitOverride = &rate.value
	}
	if quota.set {
		o.QuotaOverride = &quota.value
	}
	svc, err := c.services(ctx)
	if err != nil {
		return err
	}
	if err := svc.Orgs.CreateOrg(ctx, o); err != nil {
		return err
	}
	c.println(o.ID)
	return nil
}

func (c *cmd) orgUpdate(ctx context.Context, args []string) error {
	fs := c.flags("org update")
	name := fs.String("name", "", "new organization name")
	tier := fs.String("tier", "", "free, pro or enterprise")
	rate := &limitFlag{name: "rate-limit", allowClear: true}
	quota := &limitFlag{name: "monthly-quota", allowClear: true}
	fs.Var(rate, "rate-limit", "requests per minute (`N`, unlimited, or default for the tier's)")
	fs.Var(quota, "monthly-quota", "requests per month (`N`, unlimited, or default for the tier's)")
	pos, err := parse(fs, args, "ORG_ID")
	if err != nil {
		return err
	}
	var u redirects.OrgUpdate
	if !isSet(fs, "name", "tier", "rate-limit", "monthly-quota") {
		return usagef("org update needs at least one of --name, --tier, --rate-limit, --monthly-quota")
	}
	if isSet(fs, "name") {
		u.Name = name
	}
	if isSet(fs, "tier") {
		t, err := redirects.ParseTier(*tier)
		if err != nil {
			return err
		}
		u.Tier = &t
	}
	if rate.set {
		u.ClearRateLimit = rate.clear
		if !rate.clear {
			u.RateLimit = &rate.value
		}
	}
	if quota.set {
		u.ClearQuota = quota.clear
		if !quota.clear {
			u.MonthlyQuota = &quota.value
		}
	}
	svc, err := c.services(ctx)
	if err != nil {
		return err
	}
	o, err := svc.Orgs.UpdateOrg(ctx, pos[0], u)
	if err != nil {
		return err
	}
	c.infof("updated %s: tier %s, rate limit %s/min, monthly quota %s", o.ID, o.Tier, o.RateLimit(), o.MonthlyQuota())
	return nil
}

func (c *cmd) orgList(ctx context.Context, args []string) error {
	fs := c.flags("org list")
	asJSON := fs.Bool("json", false, "print JSON")
	if _, err := parse(fs, args); err != nil {
		return err
	}
	svc, err := c.services(ctx)
	if err != nil {
		return err
	}
	orgs, err := svc.Orgs.Orgs(ctx)
	if err != nil {
		return err
	}
	if *asJSON {
		out := make([]api.Org, 0, len(orgs))
		for _, o := range orgs {
			out = append(out, api.OrgOf(o))
		}
		return c.printJSON(out)
	}
	w := tabwriter.NewWriter(c.m.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "ID\tNAME\tTIER\tRATE/MIN\tQUOTA/MONTH\tCREATED")
	for _, o := range orgs {
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\n", o.ID, o.Name, o.Tier, o.RateLimit(), o.MonthlyQuota(), o.CreatedAt.Format(timeFormat))
	}
	return w.Flush()
}

func (c *cmd) orgDelete(ctx context.Context, args []string) error {
	fs := c.flags("org delete")
	confirm := fs.String("confirm", "", "the organization's name, typed back")
	pos, err := parse(fs, args, "ORG_ID")
	if err != nil {
		return err
	}
	if err := required(fs, "confirm"); err != nil {
		return err
	}
	svc, err := c.services(ctx)
	if err != nil {
		return err
	}
	if err := svc.Orgs.DeleteOrg(ctx, pos[0], *confirm); err != nil {
		return err
	}
	c.infof("deleted organization %s (%q) with its projects", pos[0], *confirm)
	return nil
}
