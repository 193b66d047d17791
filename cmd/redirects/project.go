package main

import (
	"context"
	"fmt"
	"strings"
	"text/tabwriter"

	"redirects"
	"redirects/api"
)

// projectCommands are the "project" commands.
var projectCommands = []command{
	{name: "project", summary: "projects of an organization"},
	{
		name:     "project create",
		synopsis: []string{"--org ORG_ID --name NAME [--host H]..."},
		summary:  "create a project in an organization and print its ID",
		example:  `PROJECT=$(redirects project create --org "$ORG" --name www)`,
		run:      (*cmd).projectCreate,
	},
	{
		name:     "project list",
		synopsis: []string{"[--org ORG_ID] [--json]"},
		summary:  "list the projects, of every organization or of one",
		example:  `redirects project list --org "$ORG" --json`,
		readOnly: true,
		run:      (*cmd).projectList,
	},
	{
		name:     "project rename",
		synopsis: []string{"--project P --name NAME"},
		summary:  "rename a project",
		example:  `redirects project rename --project "$PROJECT" --name shop`,
		run:      (*cmd).projectRename,
	},
	{
		name:     "project update",
		synopsis: []string{"--project P [--name NAME] [--host H]... [--clear-hosts] [--keep-exports N] [--shrink-limit PERCENT] [--case-sensitive=true|false] [--trailing-slash exact|ignore] [--require-stage[=false]]"},
		summary:  "change a project's settings: export retention, deploy shrink limit, case and trailing-slash matching",
		about: "--keep-exports N: how many of the latest deployments keep their export files (default 20); older\n" +
			"versions' files are rendered again when asked for, identical to the deploy's.\n" +
			"--shrink-limit is the percentage of the live rules a deploy may remove without --allow-shrink\n" +
			"(0 to 100; 10 for a new project).\n" +
			"--case-sensitive=false compares the ASCII letters of sources and paths without regard to case\n" +
			"(default true). --trailing-slash ignore lets an exact source match a path with and without one\n" +
			"trailing /, and a starts_with source ending in / match the path without it (default exact).\n" +
			"Both apply to the draft and go live with the next deploy. A change that would make two draft\n" +
			"rules of one match type clash (/a and /A, /a and /a/) changes nothing and lists them.\n" +
			"--require-stage refuses plain deploys: every version is staged (deploy --stage) and goes live\n" +
			"by \"redirects promote\"; --require-stage=false takes plain deploys again.",
		example: "redirects project update --project \"$PROJECT\" --keep-exports 50\n" +
			"redirects project update --project \"$PROJECT\" --require-stage\n" +
			"redirects project update --project \"$PROJECT\" --shrink-limit 25\n" +
			"redirects project update --project \"$PROJECT\" --case-sensitive=false --trailing-slash ignore",
		run: (*cmd).projectUpdate,
	},
	{
		name:     "project delete",
		synopsis: []string{"--project P --confirm NAME"},
		remark:   "deletes its rules, keys, deployments and exports",
		summary:  "delete a project with its rules, keys, deployments and exports",
		about:    "--confirm takes the project's name, typed back, so that a wrong ID deletes nothing.",
		example:  `redirects project delete --project "$PROJECT" --confirm www`,
		run:      (*cmd).projectDelete,
	},
}

func (c *cmd) projectCreate(ctx context.Context, args []string) error {
	fs := c.flags("project create")
	org := fs.String("org", "", "organization ID")
	name := fs.String("name", "", "project name")
	var hosts hostsFlag
	fs.Var(&hosts, "host", "a host name the project's site answers on (repeatable), such as www.example.com")
	if _, err := parse(fs, args); err != nil {
		return err
	}
	if err := required(fs, "org", "name"); err != nil {
		return err
	}
	svc, err := c.services(ctx)
	if err != nil {
		return err
	}
	p := &redirects.Project{OrgID: *org, Name: *name, Hosts: hosts}
	if err := svc.Projects.CreateProject(ctx, p); err != nil {
		return err
	}
	c.println(p.ID)
	return nil
}

func (c *cmd) projectList(ctx context.Context, args []string) error {
	fs := c.flags("project list")
	org := fs.String("org", "", "only this organization's projects")
	asJSON := fs.Bool("json", false, "print JSON")
	if _, err := parse(fs, args); err != nil {
		return err
	}
	svc, err := c.services(ctx)
	if err != nil {
		return err
	}
	projects, err := svc.Projects.Projects(ctx, *org)
	if err != nil {
		return err
	}
	if *asJSON {
		out := make([]api.ProjectRow, 0, len(projects))
		for _, p := range projects {
			out = append(out, api.ProjectRowOf(p))
		}
		return c.printJSON(out)
	}
	w := tabwriter.NewWriter(c.m.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "ID\tORG\tNAME\tCREATED\tCASE_SENSITIVE\tTRAILING_SLASH")
	for _, p := range projects {
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%t\t%s\n", p.ID, p.OrgID, p.Name, p.CreatedAt.Format(timeFormat), p.Settings.CaseSensitive(), p.Settings.TrailingSlash())
	}
	return w.Flush()
}

func (c *cmd) projectRename(ctx context.Context, args []string) error {
	fs := c.flags("project rename")
	project := fs.String("project", "", "project ID")
	name := fs.String("name", "", "new project name")
	if _, err := parse(fs, args); err != nil {
		return err
	}
	if err := required(fs, "project", "name"); err != nil {
		return err
	}
	svc, err := c.services(ctx)
	if err != nil {
		return err
	}
	p, err := svc.Projects.UpdateProject(ctx, *project, redirects.ProjectUpdate{Name: name})
	if err != nil {
		return err
	}
	c.infof("renamed %s to %q", p.ID, p.Name)
	return nil
}

// projectUpdate changes a project: its name, the hosts it declares (--host,
// repeatable, replaces the list; --clear-hosts empties it), how many of its
// latest deployments keep their export files, its deploy shrink limit, its
// matching settings and whether it takes staged deploys only. The service
// checks every value before it stores any, so a bad one changes nothing.
func (c *cmd) projectUpdate(ctx context.Context, args []string) error {
	fs := c.flags("project update")
	project := fs.String("project", "", "project ID")
	name := fs.String("name", "", "new project name")
	var hosts hostsFlag
	fs.Var(&hosts, "host", "a host name the project's site answers on (repeatable; replaces the list), such as www.example.com")
	clear := fs.Bool("clear-hosts", false, "declare no hosts")
	keep := fs.Int("keep-exports", 0, fmt.Sprintf("keep the export files of the last `N` deployments (1..%d)", redirects.MaxExportRetention))
	limit := fs.Int("shrink-limit", 0, "the `PERCENT` of the live rules a deploy may remove without --allow-shrink")
	caseSensitive := fs.Bool("case-sensitive", true, "compare the letters of sources and paths with regard to case; =false ignores it")
	slash := fs.String("trailing-slash", "", "trailing-slash matching `MODE`: exact (a trailing / counts) or ignore (a path matches with and without one)")
	requireStage := fs.Bool("require-stage", false, "take only staged deploys (deploy --stage, then promote); =false takes plain deploys again")
	if _, err := parse(fs, args); err != nil {
		return err
	}
	if err := required(fs, "project"); err != nil {
		return err
	}
	svc, err := c.services(ctx)
	if err != nil {
		return err
	}
	setHosts := isSet(fs, "host") || *clear
	var u redirects.ProjectUpdate
	if isSet(fs, "name") {
		u.Name = name
	}
	if setHosts {
		list := []string(hosts)
		if list == nil {
			list = []string{}
		}
		u.Hosts = &list
	}
	if isSet(fs, "keep-exports") {
		u.ExportRetention = keep
	}
	if isSet(fs, "shrink-limit") {
		u.ShrinkLimit = limit
	}
	if isSet(fs, "case-sensitive") {
		ci := !*caseSensitive
		u.CaseInsensitive = &ci
	}
	if isSet(fs, "require-stage") {
		u.RequireStage = requireStage
	}
	switch {
	case u.IsEmpty() && !isSet(fs, "trailing-slash"):
		return usagef("project update needs at least one of --name, --host, --clear-hosts, --keep-exports, --shrink-limit, --case-sensitive, --trailing-slash, --require-stage")
	case isSet(fs, "host") && *clear:
		return usagef("project update takes --host or --clear-hosts, not both")
	}
	if isSet(fs, "trailing-slash") {
		ignore, err := redirects.ParseTrailingSlash(*slash)
		if err != nil {
			return err
		}
		u.IgnoreTrailingSlash = &ignore
	}
	p, err := svc.Projects.UpdateProject(ctx, *project, u)
	if err != nil {
		return err
	}
	hostList := "none"
	if len(p.Hosts) > 0 {
		hostList = strings.Join(p.Hosts, " ")
	}
	staged := ""
	if p.RequireStage {
		staged = ", staged deploys required"
	}
	// The project as it now is: the command's outcome, on standard output.
	fmt.Fprintf(c.m.Stdout, "project %s: name %q, hosts %s, export files kept for the last %d deployments, shrink limit %d %%, %s%s\n",
		p.ID, p.Name, hostList, p.ExportRetention, p.ShrinkLimit, p.Settings, staged)
	return nil
}

func (c *cmd) projectDelete(ctx context.Context, args []string) error {
	fs := c.flags("project delete")
	project := fs.String("project", "", "project ID")
	confirm := fs.String("confirm", "", "the project's name, typed back")
	if _, err := parse(fs, args); err != nil {
		return err
	}
	if err := required(fs, "project", "confirm"); err != nil {
		return err
	}
	svc, err := c.services(ctx)
	if err != nil {
		return err
	}
	if err := svc.Projects.DeleteProject(ctx, *project, *confirm); err != nil {
		return err
	}
	c.infof("deleted project %s (%q) with its rules, keys, deployments and exports", *project, *confirm)
	return nil
}
