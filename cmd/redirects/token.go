package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"redirects"
	"redirects/api"
)

// tokenCommands are the "token" commands: management API tokens.
var tokenCommands = []command{
	{name: "token", summary: "management API tokens of an organization"},
	{
		name:     "token create",
		synopsis: []string{"--org ORG_ID --role owner|editor|viewer [--name LABEL] [--expires DURATION] [--user EMAIL]"},
		summary:  "create a management API token and print it, the only time it is shown",
		example:  `redirects token create --org "$ORG" --role editor --name ci --expires 30d`,
		needsDB:  true,
		whyDB:    "a management token cannot make another, so that a leaked token cannot outlive its revocation (a signed-in user makes tokens in the dashboard)",
		run:      (*cmd).tokenCreate,
	},
	{
		name:     "token list",
		synopsis: []string{"--org ORG_ID [--json]"},
		summary:  "list an organization's management tokens",
		example:  `redirects token list --org "$ORG"`,
		readOnly: true,
		run:      (*cmd).tokenList,
	},
	{
		name:     "token revoke",
		synopsis: []string{"--org ORG_ID TOKEN_ID"},
		summary:  "revoke a management token, by its ID or the full token",
		about:    "Revoking a token that is already revoked changes nothing, says so, and exits 0.",
		example:  `redirects token revoke --org "$ORG" tok_1a2b3c4d5e6f7g8h`,
		run:      (*cmd).tokenRevoke,
	},
}

// durationFlag is a --expires value: a Go duration ("720h", "90m") or a
// whole number of days ("30d"), above zero.
type durationFlag struct{ d time.Duration }

func (f *durationFlag) String() string {
	if f.d == 0 {
		return ""
	}
	return f.d.String()
}

func (f *durationFlag) Set(s string) error {
	var d time.Duration
	if n, ok := strings.CutSuffix(s, "d"); ok {
		days, err := strconv.Atoi(n)
		if err != nil || days > 100*366 {
			return fmt.Errorf("%q is not a whole number of days such as 30d", s)
		}
		d = time.Duration(days) * 24 * time.Hour
	} else {
		var err error
		if d, err = time.ParseDuration(s); err != nil {
			return fmt.Errorf("%q is not a duration such as 720h or 30d", s)
		}
	}
	if d <= 0 {
		return fmt.Errorf("%q is not above zero", s)
	}
	f.d = d
	return nil
}

// tokenCreate makes a management token. With --user, the token is that
// user's: they must be a member of the organization with a role at least
// the token's, and the token is revoked when they lose that role. Without
// it, the token has no creator (the audit log names the operating-system
// user who ran it) and lives until it expires or is revoked.
func (c *cmd) tokenCreate(ctx context.Context, args []string) error {
	fs := c.flags("token create")
	org := fs.String("org", "", "organization ID")
	role := fs.String("role", "", "owner, editor or viewer")
	name := fs.String("name", "", "label for the token")
	var expires durationFlag
	fs.Var(&expires, "expires", "lifetime, a `DURATION` such as 720h or 30d (default: never expires)")
	who := fs.String("user", "", "the user (email or ID) the token is created by and for")
	if _, err := parse(fs, args); err != nil {
		return err
	}
	if err := required(fs, "org", "role"); err != nil {
		return err
	}
	svc, err := c.local(ctx)
	if err != nil {
		return err
	}
	t, secret, err := svc.Issuer.CreateToken(ctx, redirects.TokenRequest{OrgID: *org, Role: redirects.Role(*role), Label: *name, TTL: expires.d, User: *who})
	if err != nil {
		return err
	}
	c.println(secret)
	c.infof("created management token %s (%s of organization %s); the full token is shown only now: store it safely", t.ID, t.Role, *org)
	return nil
}

func (c *cmd) tokenList(ctx context.Context, args []string) error {
	fs := c.flags("token list")
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
	ts, err := svc.Tokens.FindTokens(ctx, *org)
	if err != nil {
		return err
	}
	if *asJSON {
		return c.printJSON(api.TokensOf(ts))
	}
	w := tabwriter.NewWriter(c.m.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "ID\tLABEL\tROLE\tLAST4\tCREATED BY\tCREATED\tEXPIRES\tLAST USED\tREVOKED")
	for _, t := range ts {
		by := "-"
		if t.Creator != "" {
			by = t.Creator
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", t.ID, orDash(&t.Label), t.Role, t.Last4, by, t.CreatedAt.Format(timeFormat),
			orDash(formatTimePtr(t.ExpiresAt)), orDash(formatTimePtr(t.LastUsedAt)), orDash(formatTimePtr(t.RevokedAt)))
	}
	return w.Flush()
}

func (c *cmd) tokenRevoke(ctx context.Context, args []string) error {
	fs := c.flags("token revoke")
	org := fs.String("org", "", "organization ID")
	pos, err := parse(fs, args, "TOKEN_ID")
	if err != nil {
		return err
	}
	if err := required(fs, "org"); err != nil {
		return err
	}
	svc, err := c.services(ctx)
	if err != nil {
		return err
	}
	t, revoked, err := svc.Tokens.RevokeToken(ctx, *org, pos[0])
	if err != nil {
		return err
	}
	if !revoked {
		c.infof("redirects: management token %s was already revoked on %s", t.ID, t.RevokedAt.Format(timeFormat))
		return nil
	}
	c.infof("revoked management token %s (...%s)", t.ID, t.Last4)
	return nil
}
