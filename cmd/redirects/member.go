package main

import (
	"context"
	"fmt"
	"strings"
	"text/tabwriter"

	"redirects"
	"redirects/remote"
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
	_, s, err := c.start(ctx, fs, args, []string{"org", "user", "role"})
	if err != nil {
		return err
	}
	r, err := redirects.ParseRole(*role)
	if err != nil {
		return err
	}
	if rs, ok := s.(*remote.Store); ok {
		m, err := rs.AddMember(ctx, *org, *who, r)
		if err != nil {
			return err
		}
		c.infof("%s <%s> is %s of organization %s", m.UserID, m.Email, m.Role, *org)
		return nil
	}
	a, err := accounts(s)
	if err != nil {
		return err
	}
	u, err := findUser(ctx, a, *who)
	if err != nil {
		return err
	}
	if err := a.SetMember(ctx, &redirects.Membership{OrgID: *org, UserID: u.ID, Role: r}); err != nil {
		return err
	}
	c.infof("%s <%s> is %s of organization %s", u.ID, u.Email, r, *org)
	return nil
}

// memberJSON is the --json shape of a membership.
type memberJSON struct {
	UserID    string `json:"userId"`
	Email     string `json:"email"`
	Role      string `json:"role"`
	CreatedAt string `json:"createdAt"`
}

func (c *cmd) memberList(ctx context.Context, args []string) error {
	fs := c.flags("member list")
	org := fs.String("org", "", "organization ID")
	asJSON := fs.Bool("json", false, "print JSON")
	_, s, err := c.start(ctx, fs, args, []string{"org"})
	if err != nil {
		return err
	}
	a, err := readAccounts(s)
	if err != nil {
		return err
	}
	ms, err := a.FindMembers(ctx, *org)
	if err != nil {
		return err
	}
	if *asJSON {
		out := make([]memberJSON, 0, len(ms))
		for _, m := range ms {
			out = append(out, memberJSON{UserID: m.UserID, Email: m.Email, Role: string(m.Role), CreatedAt: m.CreatedAt.Format(timeFormat)})
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
	_, s, err := c.start(ctx, fs, args, []string{"org", "user"})
	if err != nil {
		return err
	}
	if rs, ok := s.(*remote.Store); ok {
		m, err := rs.RemoveMember(ctx, *org, *who)
		if err != nil {
			return err
		}
		c.infof("removed %s <%s> from organization %s; the tokens they created in it are revoked", m.UserID, m.Email, *org)
		return nil
	}
	a, err := accounts(s)
	if err != nil {
		return err
	}
	// A user who is no member, whether or not they exist, is named as
	// given, as through the API (which tells no more).
	noMember := func() error {
		ref := *who
		if e, err := redirects.NormalizeEmail(ref); err == nil && !strings.HasPrefix(ref, "usr_") {
			ref = e
		}
		return redirects.Errorf(redirects.ENOTFOUND, "user %q is no member of organization %q", ref, *org)
	}
	u, err := findUser(ctx, a, *who)
	if redirects.ErrorCode(err) == redirects.ENOTFOUND {
		if _, err := s.FindOrgByID(ctx, *org); err != nil {
			return err
		}
		return noMember()
	} else if err != nil {
		return err
	}
	if err := a.RemoveMember(ctx, *org, u.ID); err != nil {
		if redirects.ErrorCode(err) == redirects.ENOTFOUND && strings.Contains(redirects.ErrorMessage(err), "is no member") {
			return noMember()
		}
		return err
	}
	c.infof("removed %s <%s> from organization %s; the tokens they created in it are revoked", u.ID, u.Email, *org)
	return nil
}
