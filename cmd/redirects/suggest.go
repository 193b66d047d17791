package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"strings"
	"text/tabwriter"

	"redirects"
	"redirects/api"
	sitemaps "redirects/suggest"
)

// suggestCommands are "suggest" and its subcommands: rules proposed for
// the most missed paths (docs/suggest.md).
var suggestCommands = []command{
	{
		name:     "suggest",
		synopsis: []string{"--project P [--sitemap URL|FILE] [--limit N] [--json]"},
		remark:   "propose rules for the most missed paths",
		summary:  "propose rules for the project's most missed paths, each with its evidence and a confidence",
		about: "Computes suggestions from the miss log and the draft, and from the new site's sitemap when given\n" +
			"one (docs/suggest.md): a rule's source differing only in case or a trailing slash (and the setting\n" +
			"that would answer it), the rules of the path's folder rewriting it the same way, or the sitemap's\n" +
			"page whose slug matches best. Computing again replaces the open suggestions; accepted and dismissed\n" +
			"ones are not proposed again. --sitemap takes a sitemap.xml, a sitemap index, or a list of URLs one\n" +
			"a line, gzipped or not, at most 50 MB decompressed and 50,000 URLs: a URL (http or https) is\n" +
			"fetched by the server (with --db, by this process) and refused on a private, loopback or link-local\n" +
			"address, as webhooks are; a FILE is read here. Nothing changes the draft until \"suggest accept\".",
		example: `redirects suggest --project "$PROJECT" --sitemap https://new.example.com/sitemap.xml --limit 100`,
		run:     (*cmd).suggest,
	},
	{
		name:     "suggest list",
		synopsis: []string{"--project P [--json]"},
		summary:  "list the stored suggestions: open ones first, then accepted and dismissed ones",
		example:  `redirects suggest list --project "$PROJECT"`,
		readOnly: true,
		run:      (*cmd).suggestList,
	},
	{
		name:     "suggest accept",
		synopsis: []string{"--project P --id ID [--json]"},
		summary:  "add an open suggestion's rule to the draft (nothing is live until a deploy)",
		example:  `redirects suggest accept --project "$PROJECT" --id sg_0123456789abcdef`,
		run:      (*cmd).suggestAccept,
	},
	{
		name:     "suggest dismiss",
		synopsis: []string{"--project P --id ID [--json]"},
		summary:  "dismiss an open suggestion: it is not proposed again",
		example:  `redirects suggest dismiss --project "$PROJECT" --id sg_0123456789abcdef`,
		run:      (*cmd).suggestDismiss,
	},
}

func (c *cmd) suggest(ctx context.Context, args []string) error {
	fs := c.flags("suggest")
	project := fs.String("project", "", "project ID")
	sitemap := fs.String("sitemap", "", "the new site's sitemap: a `URL` (http, https) or a FILE")
	limit := fs.Int("limit", redirects.DefaultSuggestions, fmt.Sprintf("suggest for at most `N` of the most missed paths (1..%d)", redirects.MaxSuggestions))
	asJSON := fs.Bool("json", false, "print JSON")
	if _, err := parse(fs, args); err != nil {
		return err
	}
	if err := required(fs, "project"); err != nil {
		return err
	}
	if *limit < 1 || *limit > redirects.MaxSuggestions {
		return usagef("--limit %d is out of range: give 1 to %d", *limit, redirects.MaxSuggestions)
	}
	opts := redirects.SuggestOptions{Limit: *limit}
	if s := *sitemap; strings.HasPrefix(s, "http://") || strings.HasPrefix(s, "https://") {
		opts.SitemapURL = s
	} else if s != "" {
		f, err := os.Open(s)
		if err != nil {
			return redirects.Errorf(redirects.EINVALID, "--sitemap: %v", err)
		}
		defer f.Close()
		// An index read from a file names sitemaps fetched under the
		// webhooks' address rules, as the server fetches them.
		if opts.Sitemap, err = sitemaps.ReadSitemap(ctx, f, (&sitemaps.Fetcher{}).Open); err != nil {
			return err
		}
	}
	svc, err := c.services(ctx)
	if err != nil {
		return err
	}
	gs, err := svc.Suggestions.Suggest(ctx, *project, opts)
	if err != nil {
		return err
	}
	return c.printSuggestions(gs, *asJSON)
}

func (c *cmd) suggestList(ctx context.Context, args []string) error {
	fs := c.flags("suggest list")
	project := fs.String("project", "", "project ID")
	asJSON := fs.Bool("json", false, "print JSON")
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
	gs, err := svc.Suggestions.FindSuggestions(ctx, *project)
	if err != nil {
		return err
	}
	return c.printSuggestions(gs, *asJSON)
}

// printSuggestions prints gs as a table (or JSON: api.Suggestions).
func (c *cmd) printSuggestions(gs []redirects.Suggestion, asJSON bool) error {
	if asJSON {
		return c.printJSON(api.SuggestionsOf(gs))
	}
	bw := bufio.NewWriter(c.m.Stdout)
	w := tabwriter.NewWriter(bw, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "ID\tSTATE\tCONFIDENCE\tKIND\tMISSES\tHOST\tPATH\tDESTINATION\tSTATUS\tWHY")
	for _, g := range gs {
		host := printable(g.Host)
		fmt.Fprintf(w, "%s\t%s\t%d\t%s\t%d\t%s\t%s\t%s\t%d\t%s\n", g.ID, g.State, g.Confidence, g.Kind, g.Misses, orDash(&host),
			printable(g.Path), printable(g.Destination), g.StatusCode, printable(g.Reason))
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	c.infof("%s", plural(len(gs), "suggestion", "suggestions"))
	return nil
}

func (c *cmd) suggestDone(ctx context.Context, name string, args []string) error {
	fs := c.flags(name)
	project := fs.String("project", "", "project ID")
	id := fs.String("id", "", "the suggestion's `ID`, as suggest lists it")
	asJSON := fs.Bool("json", false, "print JSON")
	if _, err := parse(fs, args); err != nil {
		return err
	}
	if err := required(fs, "project", "id"); err != nil {
		return err
	}
	svc, err := c.services(ctx)
	if err != nil {
		return err
	}
	done := api.SuggestionDone{ID: *id}
	if name == "suggest accept" {
		r, err := svc.Suggestions.AcceptSuggestion(ctx, *project, *id)
		if err != nil {
			return err
		}
		j := api.RuleOf(r)
		done.State, done.Rule = redirects.SuggestionAccepted, &j
	} else {
		if err := svc.Suggestions.DismissSuggestion(ctx, *project, *id); err != nil {
			return err
		}
		done.State = redirects.SuggestionDismissed
	}
	if *asJSON {
		return c.printJSON(done)
	}
	if done.Rule != nil {
		fmt.Fprintf(c.m.Stdout, "accepted %s: %s -> %s (%d) is in the draft; deploy to make it live\n", *id, printable(done.Rule.Source), printable(done.Rule.Destination), done.Rule.StatusCode)
		return nil
	}
	fmt.Fprintf(c.m.Stdout, "dismissed %s\n", *id)
	return nil
}

func (c *cmd) suggestAccept(ctx context.Context, args []string) error {
	return c.suggestDone(ctx, "suggest accept", args)
}

func (c *cmd) suggestDismiss(ctx context.Context, args []string) error {
	return c.suggestDone(ctx, "suggest dismiss", args)
}
