package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os/user"
	"strings"
	"text/tabwriter"
	"time"

	"redirects"
	"redirects/api"
)

// usersWhyDB is why the user commands need the database.
const usersWhyDB = "users are the operators', and the management API, which a management token calls, has no route for them"

// userCommands are the "user" commands.
var userCommands = []command{
	{name: "user", summary: "users of the management API and dashboard"},
	{
		name:     "user create",
		synopsis: []string{"--email EMAIL [--operator] [--password-stdin]"},
		summary:  "create a user and print its ID (and a one-time password on stderr)",
		example:  "redirects user create --email ada@example.com --operator",
		needsDB:  true,
		whyDB:    usersWhyDB,
		run:      (*cmd).userCreate,
	},
	{
		name:     "user list",
		synopsis: []string{"[--json]"},
		summary:  "list the users",
		example:  "redirects user list --json",
		readOnly: true,
		needsDB:  true,
		whyDB:    usersWhyDB,
		run:      (*cmd).userList,
	},
	{
		name:     "user disable",
		synopsis: []string{"EMAIL_OR_ID"},
		summary:  "disable a user: their sessions end and the tokens they created are revoked",
		example:  "redirects user disable ada@example.com",
		needsDB:  true,
		whyDB:    usersWhyDB,
		run:      (*cmd).userDisable,
	},
	{
		name:     "user reset-password",
		synopsis: []string{"EMAIL_OR_ID [--password-stdin]"},
		summary:  "give a user a new password (a one-time one on stderr, or read)",
		example:  `printf '%s' "$PASSWORD" | redirects user reset-password ada@example.com --password-stdin`,
		needsDB:  true,
		whyDB:    usersWhyDB,
		run:      (*cmd).userResetPassword,
	},
}

// cliActor returns the actor of every command: the operating-system user
// who runs it, as the audit log names them. The name comes from the
// process's user ID (os/user), else $USER; under sudo, the invoking user
// is added, so "root (sudo from alice)" says who it really was.
func cliActor(cf *config) redirects.Actor {
	name := ""
	if u, err := user.Current(); err == nil {
		name = u.Username
	}
	if name == "" {
		name = cf.user
	}
	if name == "" {
		name = "unknown"
	}
	if s := cf.sudoUser; s != "" && s != name {
		name += " (sudo from " + s + ")"
	}
	return redirects.Actor{Kind: redirects.ActorCLI, Label: name}
}

// readPassword reads a password from standard input: the first line, less
// its line ending, so `echo "$PW" | redirects ...` and a file both work.
func (c *cmd) readPassword() (string, error) {
	line, err := bufio.NewReader(io.LimitReader(c.m.Stdin, redirects.MaxPasswordLength+3)).ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return "", fmt.Errorf("read the password from standard input: %w", err)
	}
	line = strings.TrimSuffix(strings.TrimSuffix(line, "\n"), "\r")
	if line == "" {
		return "", redirects.Errorf(redirects.EINVALID, "--password-stdin: standard input holds no password")
	}
	return line, nil
}

// newPassword returns the password a command sets: read from standard input
// with --password-stdin, else a fresh one-time password that the caller
// prints once on stderr.
func (c *cmd) newPassword(fromStdin bool) (pw string, generated bool, err error) {
	if fromStdin {
		pw, err = c.readPassword()
		return pw, false, err
	}
	return redirects.NewPassword(), true, nil
}

func (c *cmd) userCreate(ctx context.Context, args []string) error {
	fs := c.flags("user create")
	email := fs.String("email", "", "the user's email address")
	operator := fs.Bool("operator", false, "the user operates the service (organizations, tiers, limits, users)")
	stdin := fs.Bool("password-stdin", false, "read the password from standard input instead of printing a one-time password")
	if _, err := parse(fs, args); err != nil {
		return err
	}
	if err := required(fs, "email"); err != nil {
		return err
	}
	e, err := redirects.NormalizeEmail(*email)
	if err != nil {
		return err
	}
	pw, generated, err := c.newPassword(*stdin)
	if err != nil {
		return err
	}
	hash, err := redirects.HashPassword(pw)
	if err != nil {
		return err
	}
	svc, err := c.local(ctx)
	if err != nil {
		return err
	}
	// A printed one-time password is the user's to replace at their first
	// sign-in on the dashboard.
	u := &redirects.User{Email: e, PasswordHash: hash, Operator: *operator, MustChangePassword: generated}
	if err := svc.Users.CreateUser(ctx, u); err != nil {
		return err
	}
	c.println(u.ID)
	kind := "user"
	if u.Operator {
		kind = "operator"
	}
	if generated {
		c.infof("created %s %s <%s>; one-time password (shown only now): %s", kind, u.ID, u.Email, pw)
	} else {
		c.infof("created %s %s <%s>", kind, u.ID, u.Email)
	}
	return nil
}

func (c *cmd) userList(ctx context.Context, args []string) error {
	fs := c.flags("user list")
	asJSON := fs.Bool("json", false, "print JSON")
	if _, err := parse(fs, args); err != nil {
		return err
	}
	svc, err := c.local(ctx)
	if err != nil {
		return err
	}
	users, err := svc.Users.Users(ctx)
	if err != nil {
		return err
	}
	if *asJSON {
		out := make([]api.UserRow, 0, len(users))
		for _, u := range users {
			out = append(out, api.UserRowOf(u))
		}
		return c.printJSON(out)
	}
	w := tabwriter.NewWriter(c.m.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "ID\tEMAIL\tOPERATOR\tCREATED\tDISABLED")
	for _, u := range users {
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\n", u.ID, u.Email, yesNo(u.Operator), u.CreatedAt.Format(timeFormat), orDash(formatTimePtr(u.DisabledAt)))
	}
	return w.Flush()
}

func (c *cmd) userDisable(ctx context.Context, args []string) error {
	fs := c.flags("user disable")
	pos, err := parse(fs, args, "EMAIL_OR_ID")
	if err != nil {
		return err
	}
	svc, err := c.local(ctx)
	if err != nil {
		return err
	}
	u, already, err := svc.Users.DisableUser(ctx, pos[0])
	if err != nil {
		return err
	}
	if already {
		c.infof("user %s <%s> was already disabled", u.ID, u.Email)
		return nil
	}
	c.infof("disabled user %s <%s>: their sessions are ended and the tokens they created revoked", u.ID, u.Email)
	return nil
}

func (c *cmd) userResetPassword(ctx context.Context, args []string) error {
	fs := c.flags("user reset-password")
	stdin := fs.Bool("password-stdin", false, "read the new password from standard input instead of printing a one-time password")
	pos, err := parse(fs, args, "EMAIL_OR_ID")
	if err != nil {
		return err
	}
	pw, generated, err := c.newPassword(*stdin)
	if err != nil {
		return err
	}
	hash, err := redirects.HashPassword(pw)
	if err != nil {
		return err
	}
	svc, err := c.local(ctx)
	if err != nil {
		return err
	}
	u, err := svc.Users.SetUserPassword(ctx, pos[0], hash, generated)
	if err != nil {
		return err
	}
	if generated {
		c.infof("reset the password of %s <%s>; one-time password (shown only now): %s", u.ID, u.Email, pw)
	} else {
		c.infof("reset the password of %s <%s>", u.ID, u.Email)
	}
	return nil
}

// formatTimePtr formats an optional time, nil for none.
func formatTimePtr(t *time.Time) *string {
	if t == nil {
		return nil
	}
	s := t.Format(timeFormat)
	return &s
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func orDash(s *string) string {
	if s == nil || *s == "" {
		return "-"
	}
	return *s
}
