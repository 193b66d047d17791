package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"redirects"
)

// lookupExportCommands are the commands that read a deployed version as
// the edge API does: lookup answers one path, export prints one export
// file.
var lookupExportCommands = []command{
	{
		name:     "lookup",
		synopsis: []string{"--project P --path PATH [--host H] [--version N] [--json]"},
		summary:  "look a path up in a deployed version, as the edge API would",
		about: "The rule that answers is printed as JSON. When no rule answers, one line on standard error\n" +
			"says so and the exit status is 0; with --json, standard output is null instead. --host is the\n" +
			"request's host, as the edge API's host parameter: rules scoped to it answer too.",
		example:  `redirects lookup --project "$PROJECT" --path /old`,
		readOnly: true,
		run:      (*cmd).lookup,
	},
	{
		name:     "export",
		synopsis: []string{"--project P --format FORMAT [--version N]"},
		summary:  "print an export file of a deployed version: CSV, nginx or HAProxy",
		example:  `redirects export --project "$PROJECT" --format nginx > redirects.map`,
		readOnly: true,
		run:      (*cmd).export,
	},
}

func (c *cmd) lookup(ctx context.Context, args []string) error {
	fs := c.flags("lookup")
	project := fs.String("project", "", "project ID")
	path := fs.String("path", "", "URL path to look up")
	host := fs.String("host", "", "the request's host: rules scoped to it answer too (default: none, only rules without a host)")
	version := fs.Int("version", 0, "deployment version (default: the latest)")
	asJSON := fs.Bool("json", false, "print JSON: the answer, or null when no rule answers")
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
	if *host != "" && !redirects.ValidLookupHost(*host) {
		return redirects.Errorf(redirects.EINVALID, "--host %q is not a host name (labels of letters, digits and '-', an optional :port)", *host)
	}
	// The path is matched decoded once (docs/contract.md#matching); an
	// escape that cannot decode is refused, as the API refuses it.
	if _, err := redirects.DecodePath(*path); err != nil {
		return err
	}
	svc, err := c.services(ctx)
	if err != nil {
		return err
	}
	spec := "live"
	if *version > 0 {
		spec = strconv.Itoa(*version)
	}
	// The service answers with the edge's engine; through --api, the
	// server's, so only the answer travels.
	res, err := svc.Deploys.Lookup(ctx, *project, spec, *host, *path)
	if err != nil {
		return err
	}
	switch {
	case res.Body != nil:
		fmt.Fprintf(c.m.Stdout, "%s\n", res.Body)
	case *asJSON:
		c.println("null")
	default:
		// A miss is an answer, not an error: the edge API's 404. Said on
		// standard error so that standard output stays empty, as scripts
		// that test it expect.
		c.infof("no rule answers %q in version %d of project %s", *path, res.Version, *project)
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
	svc, err := c.services(ctx)
	if err != nil {
		return err
	}
	// A version whose export files were pruned is rendered again, with the
	// deploy's builder, into the same bytes.
	_, e, err := svc.Deploys.Export(ctx, *project, *version, *format)
	if err != nil {
		return err
	}
	_, err = c.m.Stdout.Write(e.Body)
	return err
}
