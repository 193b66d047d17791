package main

import (
	"context"
	"fmt"
	"text/tabwriter"

	"redirects"
)

func (c *cmd) projectCreate(ctx context.Context, args []string) error {
	fs := c.flags("project create")
	org := fs.String("org", "", "organization ID")
	name := fs.String("name", "", "project name")
	_, s, err := c.start(ctx, fs, args, []string{"org", "name"})
	if err != nil {
		return err
	}
	p := &redirects.Project{OrgID: *org, Name: *name}
	if err := s.CreateProject(ctx, p); err != nil {
		return err
	}
	c.println(p.ID)
	return nil
}

// projectJSON is the --json shape of a project.
type projectJSON struct {
	ID        string `json:"id"`
	OrgID     string `json:"orgId"`
	Name      string `json:"name"`
	CreatedAt string `json:"createdAt"`
	// KeepExports is how many of the latest deployments keep their export
	// files (Project.ExportRetention).
	KeepExports int `json:"keepExports"`
}

func (c *cmd) projectList(ctx context.Context, args []string) error {
	fs := c.flags("project list")
	org := fs.String("org", "", "only this organization's projects")
	asJSON := fs.Bool("json", false, "print JSON")
	if _, err := parse(fs, args); err != nil {
		return err
	}
	s, err := c.open(ctx)
	if err != nil {
		return err
	}
	projects, err := s.FindProjects(ctx, *org)
	if err != nil {
		return err
	}
	if *asJSON {
		out := make([]projectJSON, 0, len(projects))
		for _, p := range projects {
			out = append(out, projectJSON{ID: p.ID, OrgID: p.OrgID, Name: p.Name, CreatedAt: p.CreatedAt.Format(timeFormat), KeepExports: p.ExportRetention})
		}
		return c.printJSON(out)
	}
	w := tabwriter.NewWriter(c.m.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "ID\tORG\tNAME\tCREATED")
	for _, p := range projects {
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", p.ID, p.OrgID, p.Name, p.CreatedAt.Format(timeFormat))
	}
	return w.Flush()
}

// projectUpdate changes a project's settings: how many of its latest
// deployments keep their export files. Older ones keep their rules, and
// `redirects export` and the edge render their files again on demand.
func (c *cmd) projectUpdate(ctx context.Context, args []string) error {
	fs := c.flags("project update")
	project := fs.String("project", "", "project ID")
	keep := fs.Int("keep-exports", 0, fmt.Sprintf("keep the export files of the last `N` deployments (1..%d)", redirects.MaxExportRetention))
	limit := fs.Int("shrink-limit", 0, "the `PERCENT` of the live rules a deploy may remove without --allow-shrink")
	if _, err := parse(fs, args); err != nil {
		return err
	}
	if err := required(fs, "project"); err != nil {
		return err
	}
	setKeep, setLimit := isSet(fs, "keep-exports"), isSet(fs, "shrink-limit")
	if !setKeep && !setLimit {
		return usagef("project update needs --keep-exports or --shrink-limit")
	}
	// Both values are checked before either is stored, so a bad one
	// changes nothing.
	if setKeep {
		if err := redirects.ValidateExportRetention(*keep); err != nil {
			return err
		}
	}
	if setLimit {
		if err := redirects.ValidateShrinkLimit(*limit); err != nil {
			return err
		}
	}
	s, err := c.open(ctx)
	if err != nil {
		return err
	}
	if setKeep {
		p, err := s.SetExportRetention(ctx, *project, *keep)
		if err != nil {
			return err
		}
		c.infof("project %s keeps the export files of its last %d deployments", p.ID, p.ExportRetention)
	}
	if setLimit {
		p, err := s.SetProjectShrinkLimit(ctx, *project, *limit)
		if err != nil {
			return err
		}
		c.infof("%s: a deploy may remove up to %d %% of the live rules without --allow-shrink", p.ID, p.ShrinkLimit)
	}
	return nil
}
