package main

import (
	"context"

	"redirects"
	"redirects/api"
)

// agentCommands are the "agents" commands: the sync agents' reports of
// which version each server applied.
var agentCommands = []command{
	{name: "agents", summary: "the sync agents' reports of which version each server applied"},
	{
		name:     "agents list",
		synopsis: []string{"--project P"},
		summary:  "print which servers have which version, as JSON: the live version and each agent's last report",
		about: "What GET .../agents answers (docs/delivery.md): {\"agents\": [{\"agent\", \"format\", \"appliedVersion\",\n" +
			"\"seenAt\", \"behind\"}], \"liveVersion\": N}; behind is true for an agent older than the live version.",
		example:  `redirects agents list --project "$PROJECT"`,
		readOnly: true,
		run:      (*cmd).agentsList,
	},
	{
		name:     "agents delete",
		synopsis: []string{"--project P [--agent NAME] [--format F]"},
		summary:  "forget sync agents' reports: one agent's, one format's, or all of a project's",
		about: "An agent that reports again is listed again. Reports also go by themselves: the store keeps the\n" +
			"100 seen last per project and format, for 30 days (docs/delivery.md).",
		example: `redirects agents delete --project "$PROJECT" --agent "web-1 /etc/nginx/redirects.conf"`,
		run:     (*cmd).agentsDelete,
	},
}

func (c *cmd) agentsList(ctx context.Context, args []string) error {
	fs := c.flags("agents list")
	project := fs.String("project", "", "project ID")
	if _, err := parse(fs, args); err != nil {
		return err
	}
	if err := required(fs, "project"); err != nil {
		return err
	}
	a, err := runOp(ctx, c, api.AgentsOp, *project, api.None{})
	if err != nil {
		return err
	}
	return c.printJSON(a)
}

func (c *cmd) agentsDelete(ctx context.Context, args []string) error {
	fs := c.flags("agents delete")
	project := fs.String("project", "", "project ID")
	var f redirects.AgentFilter
	fs.StringVar(&f.Agent, "agent", "", "only the agent named `NAME`, as listed")
	fs.StringVar(&f.Format, "format", "", "only the reports of export format `F`")
	if _, err := parse(fs, args); err != nil {
		return err
	}
	if err := required(fs, "project"); err != nil {
		return err
	}
	if err := f.Validate(); err != nil {
		return err
	}
	svc, err := c.services(ctx)
	if err != nil {
		return err
	}
	n, err := svc.Insight.DeleteAgents(ctx, *project, f)
	if err != nil {
		return err
	}
	c.infof("forgot %s of project %s", plural(n, "agent report", "agent reports"), *project)
	return nil
}
