package main

import (
	"context"
	"fmt"
	"text/tabwriter"

	"redirects"
	"redirects/api"
)

// memberCommands are the "member" commands.
var memberCommands = []command{
	{name: "member", summary: "the members of an organization and their roles"},
	{
		name:     "member add",
		synopsis: []string{"--org ORG_ID --user EMAIL --role owner|editor|viewer"},
		summary:  "add a user to an organization with a role",
		example:  `redirects member add --org "$ORG" --user ada@example.com --role editor`,
		run:      (*cmd).memberAdd,
	},
	{
		name:     "member list",
		synopsis: []string{"--org ORG_ID [--json]"},
		summary:  "list the members of an organization",
		example:  `redirects member list --org "$ORG"`,
		readOnly: true,
		run:      (*cmd).memberList,
	},
	{
		name:     "member remove",
		synopsis: []string{"--org ORG_ID --user EMAIL"},
		summary:  "remove a user from an organization",
		example:  `redirects member remove --org "$ORG" --user ada@example.com`,
		run:      (*cmd).memberRemove,
	},
}

func (c *cmd) memberAdd(ctx context.Context, args []string) error {
	fs := c.flags("member add")
	org := fs.String("org", "", "organization ID")
	who := fs.String("user", "", "the user's email address or ID")
	role := fs.String("role", "", "owner, editor or viewer")
	if _, err := parse(fs, args); err != nil {
		return err
	}
	if err := required(fs, "org", "user", "role"); err != nil {
		return err
	}
	svc, err := c.services(ctx)
	if err != nil {
		return err
	}
	r, err := redirects.ParseRole(*role)
	if err != nil {
		return err
	}
	m, err := svc.Members.AddMember(ctx, *org, *who, r)
	if err != nil {
		return err
	}
	c.infof("%s <%s> is %s of organization %s", m.UserID, m.Email, m.Role, *org)
	return nil
}

func (c *cmd) memberList(ctx context.Context, args []string) error {
	fs := c.flags("member list")
	org := fs.String("org", "", "organization ID")
	asJSON := fs.Bool("json", false, "print JSON")
	if _, err := parse(fs, args); err != nil {
		return err
	}
	if err := required(fs, "org"); err != nil {
		return err
	}
	svc, err := c.services(ctx)
	if err != nil {
		return err
	}
	ms, err := svc.Members.Members(ctx, *org)
	if err != nil {
		return err
	}
	if *asJSON {
		out := make([]api.Member, 0, len(ms))
		for _, m := range ms {
			out = append(out, api.MemberOf(m))
		}
		return c.printJSON(out)
	}
	w := tabwriter.NewWriter(c.m.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "USER\tEMAIL\tROLE\tADDED")
	for _, m := range ms {
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", m.UserID, m.Email, m.Role, m.CreatedAt.Format(timeFormat))
	}
	return w.Flush()
}

func (c *cmd) memberRemove(ctx context.Context, args []string) error {
	fs := c.flags("member remove")
	org := fs.String("org", "", "organization ID")
	who := fs.String("user", "", "the user's email address or ID")
	if _, err := parse(fs, args); err != nil {
		return err
	}
	if err := required(fs, "org", "user"); err != nil {
		return err
	}
	svc, err := c.services(ctx)
	if err != nil {
		return err
	}
	m, err := svc.Members.RemoveMember(ctx, *org, *who)
	if err != nil {
		return err
	}
	c.infof("removed %s <%s> from organization %s; the tokens they created in it are revoked", m.UserID, m.Email, *org)
	return nil
}
