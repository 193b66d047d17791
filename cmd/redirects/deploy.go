package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"text/tabwriter"

	"redirects"
)

func (c *cmd) deploy(ctx context.Context, args []string) error {
	fs := c.flags("deploy")
	project := fs.String("project", "", "project ID")
	message := fs.String("message", "", "what this deployment changes")
	from := fs.Int("from-version", 0, "deploy the rules of this earlier version again (rollback)")
	if _, err := parse(fs, args); err != nil {
		return err
	}
	if err := required(fs, "project"); err != nil {
		return err
	}
	if isSet(fs, "from-version") && *from <= 0 {
		return redirects.Errorf(redirects.EINVALID, "--from-version %d is not a positive version number", *from)
	}
	s, err := c.open(ctx)
	if err != nil {
		return err
	}
	d, err := s.Deploy(ctx, *project, redirects.DeployOptions{Message: *message, FromVersion: *from}, builder)
	if err != nil {
		return err
	}
	c.println(strconv.Itoa(d.Version))
	what := "draft rules"
	if d.FromVersion > 0 {
		what = fmt.Sprintf("rules of version %d", d.FromVersion)
	}
	c.infof("deployed version %d of %s: %d exact and %d prefix rules (%s)", d.Version, d.ProjectID, d.ExactCount, d.PrefixCount, what)
	if r := strings.TrimSpace(d.Report); r != "" {
		c.infof("%s", r)
	}
	return nil
}

// deploymentJSON is the --json shape of a deployment.
type deploymentJSON struct {
	Version     int    `json:"version"`
	CreatedAt   string `json:"createdAt"`
	ExactRules  int    `json:"exactRules"`
	PrefixRules int    `json:"prefixRules"`
	Message     string `json:"message"`
	FromVersion *int   `json:"fromVersion"`
	Report      string `json:"report"`
}

func (c *cmd) deployments(ctx context.Context, args []string) error {
	fs := c.flags("deployments")
	project := fs.String("project", "", "project ID")
	asJSON := fs.Bool("json", false, "print JSON")
	_, s, err := c.start(ctx, fs, args, []string{"project"})
	if err != nil {
		return err
	}
	ds, err := s.FindDeployments(ctx, *project)
	if err != nil {
		return err
	}
	if *asJSON {
		out := make([]deploymentJSON, 0, len(ds))
		for _, d := range ds {
			j := deploymentJSON{Version: d.Version, CreatedAt: d.CreatedAt.Format(timeFormat), ExactRules: d.ExactCount,
				PrefixRules: d.PrefixCount, Message: d.Message, Report: d.Report}
			if d.FromVersion > 0 {
				v := d.FromVersion
				j.FromVersion = &v
			}
			out = append(out, j)
		}
		return c.printJSON(out)
	}
	w := tabwriter.NewWriter(c.m.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "VERSION\tCREATED\tEXACT\tPREFIX\tMESSAGE")
	for _, d := range ds {
		msg := d.Message
		if d.FromVersion > 0 {
			msg = strings.TrimSpace(fmt.Sprintf("(rollback to v%d) %s", d.FromVersion, msg))
		}
		fmt.Fprintf(w, "%d\t%s\t%d\t%d\t%s\n", d.Version, d.CreatedAt.Format(timeFormat), d.ExactCount, d.PrefixCount, msg)
	}
	return w.Flush()
}

func (c *cmd) lookup(ctx context.Context, args []string) error {
	fs := c.flags("lookup")
	project := fs.String("project", "", "project ID")
	path := fs.String("path", "", "URL path to look up")
	version := fs.Int("version", 0, "deployment version (default: the latest)")
	if _, err := parse(fs, args); err != nil {
		return err
	}
	if err := required(fs, "project", "path"); err != nil {
		return err
	}
	if isSet(fs, "version") && *version <= 0 {
		return redirects.Errorf(redirects.EINVALID, "--version %d is not a positive version number", *version)
	}
	if (*path)[0] != '/' || len(*path) > redirects.MaxSourceLen {
		return redirects.Errorf(redirects.EINVALID, "--path %q must start with / and be at most %d bytes, as the API requires", *path, redirects.MaxSourceLen)
	}
	// The path is matched decoded once (docs/contract.md#matching); an
	// escape that cannot decode is refused, as the API refuses it.
	if _, err := redirects.DecodePath(*path); err != nil {
		return err
	}
	s, err := c.open(ctx)
	if err != nil {
		return err
	}
	_, rules, err := s.FindDeployment(ctx, *project, *version)
	if err != nil {
		return err
	}
	m, ok := redirects.Compile(rules).Lookup(*path)
	if ok {
		fmt.Fprintf(c.m.Stdout, "%s\n", m.JSON())
	}
	return nil
}

func (c *cmd) export(ctx context.Context, args []string) error {
	fs := c.flags("export")
	project := fs.String("project", "", "project ID")
	format := fs.String("format", "", "one of "+strings.Join(redirects.Formats, ", "))
	version := fs.Int("version", 0, "deployment version (default: the latest)")
	if _, err := parse(fs, args); err != nil {
		return err
	}
	if err := required(fs, "project", "format"); err != nil {
		return err
	}
	if redirects.FormatExtension(*format) == "" {
		return redirects.Errorf(redirects.EINVALID, "format %q is not one of %s", *format, strings.Join(redirects.Formats, ", "))
	}
	if isSet(fs, "version") && *version <= 0 {
		return redirects.Errorf(redirects.EINVALID, "--version %d is not a positive version number", *version)
	}
	s, err := c.open(ctx)
	if err != nil {
		return err
	}
	_, e, err := s.FindExport(ctx, *project, *version, *format)
	if err != nil {
		return err
	}
	_, err = c.m.Stdout.Write(e.Body)
	return err
}
