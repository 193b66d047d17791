package main

import (
	"context"
	"fmt"
	"text/tabwriter"

	"redirects"
	"redirects/remote"
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
	k, secret := redirects.NewKey(*project, *name, *test, c.m.Clock.Now())
	if err := k.Validate(); err != nil {
		return err
	}
	s, err := c.open(ctx)
	if err != nil {
		return err
	}
	if rs, ok := s.(*remote.Store); ok {
		// Through the management API, the server makes the secret.
		if k, secret, err = rs.NewKey(ctx, *project, *name, *test); err != nil {
			return err
		}
	} else if err := s.CreateKey(ctx, k); err != nil {
		return err
	}
	c.println(secret)
	c.infof("created key %s; the full key is shown only now: store it safely", k.ID)
	return nil
}

// keyJSON is the --json shape of an API key: never the key itself.
type keyJSON struct {
	ID        string  `json:"id"`
	Name      string  `json:"name"`
	Mode      string  `json:"mode"`
	Last4     string  `json:"last4"`
	CreatedAt string  `json:"createdAt"`
	RevokedAt *string `json:"revokedAt"`
}

func (c *cmd) keyList(ctx context.Context, args []string) error {
	fs := c.flags("key list")
	project := fs.String("project", "", "project ID")
	asJSON := fs.Bool("json", false, "print JSON")
	_, s, err := c.start(ctx, fs, args, []string{"project"})
	if err != nil {
		return err
	}
	keys, err := s.FindKeys(ctx, *project)
	if err != nil {
		return err
	}
	if *asJSON {
		out := make([]keyJSON, 0, len(keys))
		for _, k := range keys {
			j := keyJSON{ID: k.ID, Name: k.Name, Mode: k.Mode(), Last4: k.Last4, CreatedAt: k.CreatedAt.Format(timeFormat)}
			if k.RevokedAt != nil {
				r := k.RevokedAt.Format(timeFormat)
				j.RevokedAt = &r
			}
			out = append(out, j)
		}
		return c.printJSON(out)
	}
	w := tabwriter.NewWriter(c.m.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "ID\tNAME\tMODE\tLAST4\tCREATED\tREVOKED")
	for _, k := range keys {
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
	pos, s, err := c.start(ctx, fs, args, []string{"project"}, "KEY_ID_OR_FULL_KEY")
	if err != nil {
		return err
	}
	ref := pos[0]
	// Revoking a revoked key changes nothing and succeeds, so that scripts
	// may repeat it; the operator is told, since it may be the wrong key.
	keys, _ := s.FindKeys(ctx, *project)
	k, err := s.RevokeKey(ctx, *project, ref)
	if err != nil {
		return err
	}
	// The key as it was (found by the ID the store answers: through the
	// management API a key's hash is not known here).
	var before *redirects.Key
	for _, old := range keys {
		if old.ID == k.ID {
			before = old
		}
	}
	if before != nil && before.RevokedAt != nil {
		c.infof("redirects: key %s was already revoked on %s", k.ID, before.RevokedAt.Format(timeFormat))
		return nil
	}
	c.infof("revoked key %s (...%s)", k.ID, k.Last4)
	return nil
}
