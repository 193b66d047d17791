package main

import (
	"context"
	"flag"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"redirects"
)

// webhookCommands are the "webhook" commands: the audit log sent as a
// stream to an organization's endpoints (docs/delivery.md#webhooks).
var webhookCommands = []command{
	{name: "webhook", summary: "webhook endpoints of an organization: the audit log as a stream"},
	{
		name:     "webhook create",
		synopsis: []string{"--org ORG_ID --url URL [--action ACTION]... [--project PROJECT_ID]..."},
		summary:  "register an endpoint; print its ID, then its signing secret, the only time it is shown",
		about: "--action takes an audit action (rule.create) or every action of an object (rule.*); none takes every action. " +
			"--project limits the entries of projects to those named (the organization's own entries still go).",
		example: `redirects webhook create --org "$ORG" --url https://ci.example.com/hooks/redirects --action deployment.create --action 'rule.*'`,
		run:     (*cmd).webhookCreate,
	},
	{
		name:     "webhook list",
		synopsis: []string{"--org ORG_ID [--json]"},
		summary:  "list an organization's endpoints and their status (active, paused, disabled)",
		example:  `redirects webhook list --org "$ORG"`,
		readOnly: true,
		run:      (*cmd).webhookList,
	},
	{
		name:     "webhook pause",
		synopsis: []string{"WEBHOOK_ID"},
		summary:  "stop sending to an endpoint; its deliveries queue until it resumes",
		example:  `redirects webhook pause whk_1a2b3c4d5e6f7g8h`,
		run:      (*cmd).webhookPause,
	},
	{
		name:     "webhook resume",
		synopsis: []string{"WEBHOOK_ID"},
		summary:  "send to a paused or disabled endpoint again, its queue first",
		example:  `redirects webhook resume whk_1a2b3c4d5e6f7g8h`,
		run:      (*cmd).webhookResume,
	},
	{
		name:     "webhook delete",
		synopsis: []string{"WEBHOOK_ID"},
		summary:  "delete an endpoint and its deliveries",
		example:  `redirects webhook delete whk_1a2b3c4d5e6f7g8h`,
		run:      (*cmd).webhookDelete,
	},
	{
		name:     "webhook test",
		synopsis: []string{"WEBHOOK_ID"},
		summary:  "send a test event (action webhook.test) and print its delivery ID",
		example:  `redirects webhook test whk_1a2b3c4d5e6f7g8h`,
		run:      (*cmd).webhookTest,
	},
	{
		name:     "webhook deliveries",
		synopsis: []string{"WEBHOOK_ID [--limit N] [--json]"},
		summary:  "an endpoint's last deliveries, newest first, with each attempt's status, latency and answer",
		readOnly: true,
		example:  `redirects webhook deliveries whk_1a2b3c4d5e6f7g8h --limit 5`,
		run:      (*cmd).webhookDeliveries,
	},
	{
		name:     "webhook redeliver",
		synopsis: []string{"DELIVERY_ID"},
		summary:  "send a delivery again (same delivery ID), with 24 hours of retries from now",
		example:  `redirects webhook redeliver whd_1a2b3c4d5e6f7g8h9i0j`,
		run:      (*cmd).webhookRedeliver,
	},
	{
		name:     "webhook rotate-secret",
		synopsis: []string{"WEBHOOK_ID [--overlap DURATION]"},
		summary:  "give an endpoint a new secret and print it; the old one also signs for the overlap (default 24h)",
		example:  `redirects webhook rotate-secret whk_1a2b3c4d5e6f7g8h --overlap 1h`,
		run:      (*cmd).webhookRotate,
	},
}

// webhookStart parses a webhook command's flags and returns its one
// positional argument and the webhook service.
func (c *cmd) webhookStart(ctx context.Context, name string, args []string, setup func(fs *flag.FlagSet)) (string, redirects.WebhookService, error) {
	fs := c.flags(name)
	if setup != nil {
		setup(fs)
	}
	what := "WEBHOOK_ID"
	if name == "webhook redeliver" {
		what = "DELIVERY_ID"
	}
	pos, err := parse(fs, args, what)
	if err != nil {
		return "", nil, err
	}
	svc, err := c.services(ctx)
	if err != nil {
		return "", nil, err
	}
	return pos[0], svc.Webhooks, nil
}

func (c *cmd) webhookCreate(ctx context.Context, args []string) error {
	fs := c.flags("webhook create")
	org := fs.String("org", "", "organization ID")
	u := fs.String("url", "", "the endpoint's http or https URL")
	var actions, projects hostsFlag
	fs.Var(&actions, "action", "an audit `ACTION` (rule.create) or an object's actions (rule.*); repeatable; none: every action")
	fs.Var(&projects, "project", "a `PROJECT_ID` whose entries to send (repeatable); none: every project")
	if _, err := parse(fs, args); err != nil {
		return err
	}
	if err := required(fs, "org", "url"); err != nil {
		return err
	}
	svc, err := c.services(ctx)
	if err != nil {
		return err
	}
	e, err := svc.Webhooks.CreateWebhook(ctx, *org, *u, actions, projects)
	if err != nil {
		return err
	}
	c.println(e.ID)
	c.println(e.Secret)
	c.infof("created webhook %s to %s; its signing secret (second line) is shown only now: store it safely", e.ID, e.URL)
	return nil
}

func (c *cmd) webhookList(ctx context.Context, args []string) error {
	fs := c.flags("webhook list")
	org := fs.String("org", "", "organization ID")
	asJSON := fs.Bool("json", false, "print JSON")
	if _, err := parse(fs, args); err != nil {
		return err
	}
	if err := required(fs, "org"); err != nil {
		return err
	}
	svc, err := c.services(ctx)
	if err != nil {
		return err
	}
	// An unknown organization is not found, as member list and token
	// list say, not an empty list.
	es, err := svc.Webhooks.FindWebhooks(ctx, *org)
	if err != nil {
		return err
	}
	if *asJSON {
		if es == nil {
			es = []*redirects.WebhookEndpoint{}
		}
		return c.printJSON(es)
	}
	tw := tabwriter.NewWriter(c.m.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSTATUS\tURL\tACTIONS\tPROJECTS\tLAST SUCCESS")
	for _, e := range es {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", e.ID, e.Status(), e.URL, orAll(e.Actions), orAll(e.Projects), e.LastSuccessAt.Format(timeFormat))
	}
	return tw.Flush()
}

func orAll(xs []string) string {
	if len(xs) == 0 {
		return "all"
	}
	return strings.Join(xs, ",")
}

func (c *cmd) webhookPause(ctx context.Context, args []string) error {
	return c.webhookSetPaused(ctx, "webhook pause", args, true)
}

func (c *cmd) webhookResume(ctx context.Context, args []string) error {
	return c.webhookSetPaused(ctx, "webhook resume", args, false)
}

func (c *cmd) webhookSetPaused(ctx context.Context, name string, args []string, paused bool) error {
	id, w, err := c.webhookStart(ctx, name, args, nil)
	if err != nil {
		return err
	}
	e, err := w.SetWebhookPaused(ctx, "", id, paused)
	if err != nil {
		return err
	}
	c.infof("webhook %s is %s", e.ID, e.Status())
	return nil
}

func (c *cmd) webhookDelete(ctx context.Context, args []string) error {
	id, w, err := c.webhookStart(ctx, "webhook delete", args, nil)
	if err != nil {
		return err
	}
	if err := w.DeleteWebhook(ctx, "", id); err != nil {
		return err
	}
	c.infof("deleted webhook %s and its deliveries", id)
	return nil
}

func (c *cmd) webhookTest(ctx context.Context, args []string) error {
	id, w, err := c.webhookStart(ctx, "webhook test", args, nil)
	if err != nil {
		return err
	}
	did, err := w.SendWebhookTest(ctx, "", id)
	if err != nil {
		return err
	}
	c.println(did)
	c.infof("queued a test event for webhook %s; a running serve sends it", id)
	return nil
}

func (c *cmd) webhookDeliveries(ctx context.Context, args []string) error {
	var limit *int
	var asJSON *bool
	id, w, err := c.webhookStart(ctx, "webhook deliveries", args, func(fs *flag.FlagSet) {
		limit = fs.Int("limit", 20, "at most `N` deliveries")
		asJSON = fs.Bool("json", false, "print JSON")
	})
	if err != nil {
		return err
	}
	ds, err := w.FindWebhookDeliveries(ctx, "", id, *limit)
	if err != nil {
		return err
	}
	if *asJSON {
		if ds == nil {
			ds = []*redirects.WebhookDelivery{}
		}
		return c.printJSON(ds)
	}
	tw := tabwriter.NewWriter(c.m.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "DELIVERY\tACTION\tSTATE\tATTEMPTS\tLAST STATUS\tLATENCY\tANSWER")
	for _, d := range ds {
		status, latency, answer := "-", "-", "-"
		if n := len(d.Attempts); n > 0 {
			a := d.Attempts[n-1]
			status, latency = fmt.Sprint(a.Status), a.Latency.Round(time.Millisecond).String()
			answer = excerptCell(a.Error + a.Excerpt)
			if a.Status == 0 {
				status = "none"
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%s\t%s\n", d.ID, d.Action, d.State, len(d.Attempts), status, latency, answer)
	}
	return tw.Flush()
}

// excerptCell returns s on one line of at most 60 characters, for a
// table.
func excerptCell(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 60 {
		s = string(r[:59]) + "…"
	}
	if s == "" {
		return "-"
	}
	return s
}

func (c *cmd) webhookRedeliver(ctx context.Context, args []string) error {
	id, w, err := c.webhookStart(ctx, "webhook redeliver", args, nil)
	if err != nil {
		return err
	}
	d, err := w.Redeliver(ctx, "", "", id)
	if err != nil {
		return err
	}
	c.infof("delivery %s of webhook %s is due again", d.ID, d.EndpointID)
	return nil
}

func (c *cmd) webhookRotate(ctx context.Context, args []string) error {
	var overlap *time.Duration
	id, w, err := c.webhookStart(ctx, "webhook rotate-secret", args, func(fs *flag.FlagSet) {
		overlap = fs.Duration("overlap", 24*time.Hour, "how long the old secret also signs")
	})
	if err != nil {
		return err
	}
	e, err := w.RotateWebhookSecret(ctx, "", id, *overlap)
	if err != nil {
		return err
	}
	c.println(e.Secret)
	c.infof("webhook %s has a new secret (shown only now); the old one also signs until %s", e.ID, e.OldSecretUntil.Format(timeFormat))
	return nil
}
