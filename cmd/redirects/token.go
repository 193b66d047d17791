package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"redirects"
	"redirects/remote"
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
// user who ran the command) and lives until it expires or is revoked.
func (c *cmd) tokenCreate(ctx context.Context, args []string) error {
	fs := c.flags("token create")
	org := fs.String("org", "", "organization ID")
	role := fs.String("role", "", "owner, editor or viewer")
	name := fs.String("name", "", "label for the token")
	var expires durationFlag
	fs.Var(&expires, "expires", "lifetime, a `DURATION` such as 720h or 30d (default: never expires)")
	who := fs.String("user", "", "the user (email or ID) the token is created by and for")
	_, s, err := c.start(ctx, fs, args, []string{"org", "role"})
	if err != nil {
		return err
	}
	r, err := redirects.ParseRole(*role)
	if err != nil {
		return err
	}
	a, err := accounts(s)
	if err != nil {
		return err
	}
	createdBy := ""
	if *who != "" {
		u, err := findUser(ctx, a, *who)
		if err != nil {
			return err
		}
		ms, err := a.FindMemberships(ctx, u.ID)
		if err != nil {
			return err
		}
		if err := redirects.Authorize(redirects.UserPrincipal(u, ms), *org, redirects.CreateTokenAction(r)); err != nil {
			return redirects.Errorf(redirects.ErrorCode(err), "%s: %s", u.Email, redirects.ErrorMessage(err))
		}
		createdBy = u.ID
	}
	t, secret := redirects.NewManagementToken(*org, r, *name, createdBy, c.m.Clock.Now(), expires.d)
	if err := a.CreateToken(ctx, t); err != nil {
		return err
	}
	c.println(secret)
	c.infof("created management token %s (%s of organization %s); the full token is shown only now: store it safely", t.ID, r, *org)
	return nil
}

// tokenJSON is the --json shape of a management token: never the token
// itself or its hash.
type tokenJSON struct {
	ID         string  `json:"id"`
	Label      string  `json:"label"`
	Role       string  `json:"role"`
	Last4      string  `json:"last4"`
	CreatedBy  *string `json:"createdBy"`
	CreatedAt  string  `json:"createdAt"`
	ExpiresAt  *string `json:"expiresAt"`
	LastUsedAt *string `json:"lastUsedAt"`
	RevokedAt  *string `json:"revokedAt"`
}

func (c *cmd) tokenList(ctx context.Context, args []string) error {
	fs := c.flags("token list")
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
	ts, err := a.FindTokens(ctx, *org)
	if err != nil {
		return err
	}
	// Creators are named by email; the tokens of one org have few. The
	// management API names them by email already.
	emails := map[string]string{}
	users, _ := a.(redirects.AccountStore)
	for _, t := range ts {
		if _, ok := emails[t.CreatedBy]; t.CreatedBy != "" && !ok {
			emails[t.CreatedBy] = t.CreatedBy
			if users == nil {
				continue
			}
			if u, err := users.FindUserByID(ctx, t.CreatedBy); err == nil {
				emails[t.CreatedBy] = u.Email
			}
		}
	}
	if *asJSON {
		out := make([]tokenJSON, 0, len(ts))
		for _, t := range ts {
			j := tokenJSON{ID: t.ID, Label: t.Label, Role: string(t.Role), Last4: t.Last4, CreatedAt: t.CreatedAt.Format(timeFormat),
				ExpiresAt: formatTimePtr(t.ExpiresAt), LastUsedAt: formatTimePtr(t.LastUsedAt), RevokedAt: formatTimePtr(t.RevokedAt)}
			if t.CreatedBy != "" {
				e := emails[t.CreatedBy]
				j.CreatedBy = &e
			}
			out = append(out, j)
		}
		return c.printJSON(out)
	}
	w := tabwriter.NewWriter(c.m.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "ID\tLABEL\tROLE\tLAST4\tCREATED BY\tCREATED\tEXPIRES\tLAST USED\tREVOKED")
	for _, t := range ts {
		by := "-"
		if t.CreatedBy != "" {
			by = emails[t.CreatedBy]
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", t.ID, orDash(&t.Label), t.Role, t.Last4, by, t.CreatedAt.Format(timeFormat),
			orDash(formatTimePtr(t.ExpiresAt)), orDash(formatTimePtr(t.LastUsedAt)), orDash(formatTimePtr(t.RevokedAt)))
	}
	return w.Flush()
}

func (c *cmd) tokenRevoke(ctx context.Context, args []string) error {
	fs := c.flags("token revoke")
	org := fs.String("org", "", "organization ID")
	pos, s, err := c.start(ctx, fs, args, []string{"org"}, "TOKEN_ID")
	if err != nil {
		return err
	}
	if rs, ok := s.(*remote.Store); ok {
		if redirects.WellFormedManagementToken(pos[0]) {
			return redirects.Errorf(redirects.EINVALID, "through the management API, token revoke takes the token's ID (tok_..., see \"redirects token list\"), not the full token, which the API takes in no URL")
		}
		before, err := rs.RevokeToken(ctx, *org, pos[0])
		if err != nil {
			return err
		}
		if before.RevokedAt != nil {
			c.infof("redirects: management token %s was already revoked on %s", before.ID, before.RevokedAt.Format(timeFormat))
			return nil
		}
		c.infof("revoked management token %s (...%s)", before.ID, before.Last4)
		return nil
	}
	a, err := accounts(s)
	if err != nil {
		return err
	}
	ref := pos[0]
	if redirects.WellFormedManagementToken(ref) {
		// A full token names itself; the error never repeats it.
		t, err := a.FindTokenByHash(ctx, redirects.HashKey(ref))
		if err != nil {
			return redirects.Errorf(redirects.ENOTFOUND, "the token ending in %q is not an active management token", ref[len(ref)-4:])
		}
		ref = t.ID
	}
	var before *redirects.ManagementToken
	if ts, err := a.FindTokens(ctx, *org); err == nil {
		for _, t := range ts {
			if t.ID == ref {
				before = t
			}
		}
	}
	t, err := a.RevokeToken(ctx, *org, ref)
	if err != nil {
		return err
	}
	if before != nil && before.RevokedAt != nil {
		c.infof("redirects: management token %s was already revoked on %s", t.ID, before.RevokedAt.Format(timeFormat))
		return nil
	}
	c.infof("revoked management token %s (...%s)", t.ID, t.Last4)
	return nil
}
