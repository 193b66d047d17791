package main

import (
	"context"

	"redirects"
)

// agentCommands are the "agents" commands: the sync agents' reports of
// which version each server applied.
var agentCommands = []command{
	{name: "agents", summary: "the sync agents' reports of which version each server applied"},
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
