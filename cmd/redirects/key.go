package main

import (
	"context"
	"fmt"
	"text/tabwriter"

	"redirects/api"
)

// keyCommands are the "key" commands: API keys of a project.
var keyCommands = []command{
	{name: "key", summary: "API keys of a project, for the edge API"},
	{
		name:     "key create",
		synopsis: []string{"--project P [--test] [--name LABEL]"},
		summary:  "create an API key and print it, the only time it is shown",
		about: "A test key (redir_test_...) answers like a live one, with a per-minute limit of its own and no\n" +
			"monthly quota.",
		example: `redirects key create --project "$PROJECT" --name edge`,
		run:     (*cmd).keyCreate,
	},
	{
		name:     "key list",
		synopsis: []string{"--project P [--json]"},
		summary:  "list a project's API keys, never the keys themselves",
		example:  `redirects key list --project "$PROJECT"`,
		readOnly: true,
		run:      (*cmd).keyList,
	},
	{
		name:     "key revoke",
		synopsis: []string{"--project P KEY_ID_OR_FULL_KEY"},
		summary:  "revoke an API key, by its ID or the full key",
		about:    "Revoking a key that is already revoked changes nothing, says so, and exits 0.",
		example:  `redirects key revoke --project "$PROJECT" key_1a2b3c4d5e6f7g8h`,
		run:      (*cmd).keyRevoke,
	},
}

func (c *cmd) keyCreate(ctx context.Context, args []string) error {
	fs := c.flags("key create")
	project := fs.String("project", "", "project ID")
	test := fs.Bool("test", false, "create a test-mode key (redir_test_...)")
	name := fs.String("name", "", "label for the key")
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
	k, secret, err := svc.Keys.CreateKey(ctx, *project, *name, *test)
	if err != nil {
		return err
	}
	c.println(secret)
	c.infof("created key %s; the full key is shown only now: store it safely", k.ID)
	return nil
}

func (c *cmd) keyList(ctx context.Context, args []string) error {
	fs := c.flags("key list")
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
	l, err := svc.Keys.FindKeys(ctx, *project)
	if err != nil {
		return err
	}
	if *asJSON {
		// The list's shape without lastUsedAt, which the table does not
		// show either.
		out := make([]api.Key, 0, len(l.Keys))
		for _, k := range l.Keys {
			out = append(out, api.KeyOf(k))
		}
		return c.printJSON(out)
	}
	w := tabwriter.NewWriter(c.m.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "ID\tNAME\tMODE\tLAST4\tCREATED\tREVOKED")
	for _, k := range l.Keys {
		revoked := "-"
		if k.RevokedAt != nil {
			revoked = k.RevokedAt.Format(timeFormat)
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\n", k.ID, k.Name, k.Mode(), k.Last4, k.CreatedAt.Format(timeFormat), revoked)
	}
	return w.Flush()
}

func (c *cmd) keyRevoke(ctx context.Context, args []string) error {
	fs := c.flags("key revoke")
	project := fs.String("project", "", "project ID")
	pos, err := parse(fs, args, "KEY_ID_OR_FULL_KEY")
	if err != nil {
		return err
	}
	if err := required(fs, "project"); err != nil {
		return err
	}
	svc, err := c.services(ctx)
	if err != nil {
		return err
	}
	// Revoking a revoked key changes nothing and succeeds, so that scripts
	// may repeat it; the operator is told, since it may be the wrong key.
	k, revoked, err := svc.Keys.RevokeKey(ctx, *project, pos[0])
	if err != nil {
		return err
	}
	if !revoked {
		c.infof("redirects: key %s was already revoked on %s", k.ID, k.RevokedAt.Format(timeFormat))
		return nil
	}
	c.infof("revoked key %s (...%s)", k.ID, k.Last4)
	return nil
}
