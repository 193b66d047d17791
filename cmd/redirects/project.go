package main

import (
	"context"
	"fmt"
	"strings"
	"text/tabwriter"

	"redirects"
)

func (c *cmd) projectCreate(ctx context.Context, args []string) error {
	fs := c.flags("project create")
	org := fs.String("org", "", "organization ID")
	name := fs.String("name", "", "project name")
	var hosts hostsFlag
	fs.Var(&hosts, "host", "a host name the project's site answers on (repeatable), such as www.example.com")
	_, s, err := c.start(ctx, fs, args, []string{"org", "name"})
	if err != nil {
		return err
	}
	p := &redirects.Project{OrgID: *org, Name: *name, Hosts: hosts}
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
	// Hosts are the host names the project declares, [] for none.
	Hosts []string `json:"hosts"`
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
			hosts := p.Hosts
			if hosts == nil {
				hosts = []string{}
			}
			out = append(out, projectJSON{ID: p.ID, OrgID: p.OrgID, Name: p.Name, CreatedAt: p.CreatedAt.Format(timeFormat), Hosts: hosts})
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

// projectUpdate renames a project or sets the hosts it declares: --host
// (repeatable) replaces the list, --clear-hosts empties it.
func (c *cmd) projectUpdate(ctx context.Context, args []string) error {
	fs := c.flags("project update")
	project := fs.String("project", "", "project ID")
	name := fs.String("name", "", "new project name")
	var hosts hostsFlag
	fs.Var(&hosts, "host", "a host name the project's site answers on (repeatable; replaces the list), such as www.example.com")
	clear := fs.Bool("clear-hosts", false, "declare no hosts")
	_, s, err := c.start(ctx, fs, args, []string{"project"})
	if err != nil {
		return err
	}
	setHosts := isSet(fs, "host") || *clear
	switch {
	case !isSet(fs, "name") && !setHosts:
		return usagef("project update needs at least one of --name, --host, --clear-hosts")
	case isSet(fs, "host") && *clear:
		return usagef("project update takes --host or --clear-hosts, not both")
	}
	if setHosts {
		// Checked first, so that a bad host changes nothing.
		if _, err := redirects.NormalizeHosts(hosts); err != nil {
			return err
		}
	}
	p, err := s.FindProjectByID(ctx, *project)
	if err != nil {
		return err
	}
	if isSet(fs, "name") {
		if p, err = s.UpdateProject(ctx, p.ID, *name); err != nil {
			return err
		}
	}
	if setHosts {
		if p, err = s.SetProjectHosts(ctx, p.ID, hosts); err != nil {
			return err
		}
	}
	hostList := "none"
	if len(p.Hosts) > 0 {
		hostList = strings.Join(p.Hosts, " ")
	}
	c.infof("project %s: name %q, hosts %s", p.ID, p.Name, hostList)
	return nil
}
