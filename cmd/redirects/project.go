package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"text/tabwriter"

	"redirects"
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
	// KeepExports is how many of the latest deployments keep their export
	// files (Project.ExportRetention).
	KeepExports int `json:"keepExports"`
	// Hosts are the host names the project declares, [] for none.
	Hosts []string `json:"hosts"`
	// CaseSensitive and TrailingSlash are the project's matching settings
	// for its draft (redirects.Settings).
	CaseSensitive bool   `json:"caseSensitive"`
	TrailingSlash string `json:"trailingSlash"`
	// LiveVersion is the version the edge answers without one (0: none);
	// RequireStage says deploys must be staged
	// (docs/contract.md#staged-deploys).
	LiveVersion  int  `json:"liveVersion"`
	RequireStage bool `json:"requireStage"`
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
			out = append(out, projectJSON{ID: p.ID, OrgID: p.OrgID, Name: p.Name, CreatedAt: p.CreatedAt.Format(timeFormat), Hosts: hosts, KeepExports: p.ExportRetention,
				CaseSensitive: p.Settings.CaseSensitive(), TrailingSlash: p.Settings.TrailingSlash(), LiveVersion: p.LiveVersion, RequireStage: p.RequireStage})
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
	_, s, err := c.start(ctx, fs, args, []string{"project", "name"})
	if err != nil {
		return err
	}
	p, err := s.UpdateProject(ctx, *project, *name)
	if err != nil {
		return err
	}
	c.infof("renamed %s to %q", p.ID, p.Name)
	return nil
}

// projectUpdate changes a project: its name, the hosts it declares (--host,
// repeatable, replaces the list; --clear-hosts empties it), how many of its
// latest deployments keep their export files, its deploy shrink limit and
// its matching settings. Every value is checked before anything is stored,
// so a bad one changes nothing: settings under which draft rules would
// clash are refused with the list of them, and stored first, so that the
// store's own refusal (a rule added meanwhile) leaves the rest unchanged
// too.
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
	_, s, err := c.start(ctx, fs, args, []string{"project"})
	if err != nil {
		return err
	}
	setHosts := isSet(fs, "host") || *clear
	setName, setKeep, setLimit := isSet(fs, "name"), isSet(fs, "keep-exports"), isSet(fs, "shrink-limit")
	setCase, setSlash, setStage := isSet(fs, "case-sensitive"), isSet(fs, "trailing-slash"), isSet(fs, "require-stage")
	switch {
	case !setName && !setHosts && !setKeep && !setLimit && !setCase && !setSlash && !setStage:
		return usagef("project update needs at least one of --name, --host, --clear-hosts, --keep-exports, --shrink-limit, --case-sensitive, --trailing-slash, --require-stage")
	case isSet(fs, "host") && *clear:
		return usagef("project update takes --host or --clear-hosts, not both")
	}
	if setHosts {
		if _, err := redirects.NormalizeHosts(hosts); err != nil {
			return err
		}
	}
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
	var ignoreSlash bool
	if setSlash {
		if ignoreSlash, err = redirects.ParseTrailingSlash(*slash); err != nil {
			return err
		}
	}
	p, err := s.FindProjectByID(ctx, *project)
	if err != nil {
		return err
	}
	settings := p.Settings
	if setCase {
		settings.CaseInsensitive = !*caseSensitive
	}
	if setSlash {
		settings.IgnoreTrailingSlash = ignoreSlash
	}
	if settings != p.Settings {
		rules, err := s.FindRules(ctx, p.ID)
		if err != nil {
			return err
		}
		if clashes := redirects.Clashes(rules, settings, 0); len(clashes) > 0 {
			return clashList(settings, clashes)
		}
		if p, err = s.SetProjectSettings(ctx, p.ID, settings); err != nil {
			return err
		}
	}
	if setName {
		if p, err = s.UpdateProject(ctx, p.ID, *name); err != nil {
			return err
		}
	}
	if setHosts {
		if p, err = s.SetProjectHosts(ctx, p.ID, hosts); err != nil {
			return err
		}
	}
	if setKeep {
		if p, err = s.SetExportRetention(ctx, p.ID, *keep); err != nil {
			return err
		}
	}
	if setLimit {
		if p, err = s.SetProjectShrinkLimit(ctx, p.ID, *limit); err != nil {
			return err
		}
	}
	if setStage {
		if p, err = s.SetProjectRequireStage(ctx, p.ID, *requireStage); err != nil {
			return err
		}
	}
	hostList := "none"
	if len(p.Hosts) > 0 {
		hostList = strings.Join(p.Hosts, " ")
	}
	staged := ""
	if p.RequireStage {
		staged = ", staged deploys required"
	}
	c.infof("project %s: name %q, hosts %s, export files kept for the last %d deployments, shrink limit %d %%, %s%s",
		p.ID, p.Name, hostList, p.ExportRetention, p.ShrinkLimit, p.Settings, staged)
	return nil
}

// clashList returns the ECONFLICT error that refuses settings s: the pairs
// of draft rules that would clash under them, one pair a line (the first
// maxShownErrors, and how many more).
func clashList(s redirects.Settings, clashes []redirects.Clash) error {
	var b strings.Builder
	pairs := "a pair"
	if len(clashes) > 1 {
		pairs = strconv.Itoa(len(clashes)) + " pairs"
	}
	fmt.Fprintf(&b, "the settings %s would make %s of draft rules clash (sources of one match type that they compare as one); nothing changed:", s, pairs)
	for i, c := range clashes {
		if i == maxShownErrors {
			fmt.Fprintf(&b, "\n  ... and %d more", len(clashes)-maxShownErrors)
			break
		}
		fmt.Fprintf(&b, "\n  %s rule %d %q and rule %d %q", c.A.MatchType, c.A.ID, c.A.Source, c.B.ID, c.B.Source)
	}
	return redirects.Errorf(redirects.ECONFLICT, "%s", b.String())
}

func (c *cmd) projectDelete(ctx context.Context, args []string) error {
	fs := c.flags("project delete")
	project := fs.String("project", "", "project ID")
	confirm := fs.String("confirm", "", "the project's name, typed back")
	_, s, err := c.start(ctx, fs, args, []string{"project", "confirm"})
	if err != nil {
		return err
	}
	p, err := s.FindProjectByID(ctx, *project)
	if err != nil {
		return err
	}
	if err := redirects.ConfirmName("project", p.ID, p.Name, *confirm); err != nil {
		return err
	}
	if err := s.DeleteProject(ctx, p.ID); err != nil {
		return err
	}
	c.infof("deleted project %s (%q) with its rules, keys, deployments and exports", p.ID, p.Name)
	return nil
}
