package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"redirects"
	"redirects/api"
	"redirects/remote"
)

// remoteCommands are login and logout: the profile that makes every
// command run against a management API.
var remoteCommands = []command{
	{
		name:     "login",
		synopsis: []string{"--api URL [--token-stdin]"},
		summary:  "save a management API address and token, so that commands run against it",
		about: "The token (redir_mgmt_..., from \"redirects token create\" or the dashboard's Tokens tab) is read\n" +
			"from standard input, checked against the API, and saved with the address in the user's\n" +
			"configuration directory (" + "$XDG_CONFIG_HOME/redirects/profile.json, else ~/.config/...), mode\n" +
			"0600. Commands then run against the API without --api and --token, with the same output,\n" +
			"--json and exit codes as with --db. --db, --api, REDIRECTS_DB and REDIRECTS_API win over the\n" +
			"profile; \"redirects logout\" removes it.",
		example: "printf '%s' \"$TOKEN\" | redirects login --api https://admin.example.com",
		run:     (*cmd).login,
	},
	{
		name:    "logout",
		summary: "remove the profile \"redirects login\" saved",
		example: "redirects logout",
		run:     (*cmd).logout,
	},
}

// profile is what login saves.
type profile struct {
	API   string `json:"api"`
	Token string `json:"token"`
}

// profilePath is where login saves the profile.
func (cf *config) profilePath() (string, error) {
	dir := cf.configHome
	if dir == "" {
		switch runtime.GOOS {
		case "linux", "freebsd", "openbsd", "netbsd":
			if cf.home == "" {
				return "", errors.New("neither XDG_CONFIG_HOME nor HOME is set")
			}
			dir = filepath.Join(cf.home, ".config")
		default:
			d, err := os.UserConfigDir()
			if err != nil {
				return "", err
			}
			dir = d
		}
	}
	return filepath.Join(dir, "redirects", "profile.json"), nil
}

// remote returns the management API's client when the run names one, nil
// when it runs against a database. --db wins over everything; then --api
// and --token; then REDIRECTS_DB; then REDIRECTS_API and REDIRECTS_TOKEN;
// then the saved profile.
func (c *cmd) remote() (*remote.Client, error) {
	cf := &c.cfg
	api, token := "", ""
	switch {
	case cf.db != "":
		return nil, nil
	case cf.api != "" || cf.token != "":
		// A flag may pair with the other half from the environment.
		api, token = cmp.Or(cf.api, cf.envAPI), cmp.Or(cf.token, cf.envToken)
	case cf.envDB != "":
		return nil, nil
	case cf.envAPI != "":
		api, token = cf.envAPI, cf.envToken
	default:
		path, err := cf.profilePath()
		if err != nil {
			return nil, nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, nil // no profile: the default database
		}
		var p profile
		if err := json.Unmarshal(data, &p); err != nil {
			return nil, redirects.Errorf(redirects.EINVALID, "the profile %s is not valid JSON (%v): run \"redirects login\" again", path, err)
		}
		api, token = p.API, p.Token
	}
	if api == "" {
		return nil, redirects.Errorf(redirects.EINVALID, "a management token needs the API's address: --api URL or REDIRECTS_API")
	}
	if token == "" {
		return nil, redirects.Errorf(redirects.EINVALID, "--api %s needs a management token: --token, REDIRECTS_TOKEN or \"redirects login\"", api)
	}
	cl, err := remote.NewClient(api, token)
	if err != nil {
		return nil, err
	}
	return cl, nil
}

func (c *cmd) login(ctx context.Context, args []string) error {
	fs := c.newFlagSet("login")
	api := fs.String("api", "", "the management API's `URL` (the listener of serve --manage-addr)")
	fs.Bool("token-stdin", true, "read the token from standard input (the only way: a token on the command line is seen by every user of the machine)")
	if _, err := parse(fs, args); err != nil {
		return err
	}
	if *api == "" {
		return usagef("login needs --api URL")
	}
	data, err := readAllLimit(c.m.Stdin, 4096)
	if err != nil {
		return err
	}
	token := strings.TrimSpace(string(data))
	cl, err := remote.NewClient(*api, token)
	if err != nil {
		return err
	}
	// The token must work: list the organizations it reaches.
	orgs, err := cl.Orgs(ctx)
	if err != nil {
		return err
	}
	path, err := c.cfg.profilePath()
	if err != nil {
		return redirects.Errorf(redirects.EINVALID, "cannot find the configuration directory: %v", err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return redirects.Errorf(redirects.EINVALID, "cannot create %s: %v", filepath.Dir(path), errors.Unwrap(err))
	}
	out, _ := json.MarshalIndent(profile{API: cl.Base, Token: token}, "", "  ")
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(out, '\n'), 0o600); err != nil {
		return redirects.Errorf(redirects.EINVALID, "cannot write %s: %v", tmp, errors.Unwrap(err))
	}
	if err := os.Chmod(tmp, 0o600); err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		return redirects.Errorf(redirects.EINVALID, "cannot write %s: %v", path, errors.Unwrap(err))
	}
	c.infof("logged in to %s (the token reaches %d organization(s)); saved in %s", cl.Base, len(orgs), path)
	return nil
}

func (c *cmd) logout(ctx context.Context, args []string) error {
	fs := c.newFlagSet("logout")
	if _, err := parse(fs, args); err != nil {
		return err
	}
	path, err := c.cfg.profilePath()
	if err != nil {
		return redirects.Errorf(redirects.EINVALID, "cannot find the configuration directory: %v", err)
	}
	if err := os.Remove(path); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			c.infof("no saved login at %s", path)
			return nil
		}
		return redirects.Errorf(redirects.EINVALID, "cannot remove %s: %v", path, errors.Unwrap(err))
	}
	c.infof("removed %s", path)
	return nil
}

// readAllLimit reads at most n bytes of r, and fails past that.
func readAllLimit(r io.Reader, n int64) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, n+1))
	if err != nil {
		return nil, redirects.Errorf(redirects.EINVALID, "reading standard input: %v", err)
	}
	if int64(len(data)) > n {
		return nil, redirects.Errorf(redirects.EINVALID, "standard input holds more than %d bytes: give the token alone", n)
	}
	return data, nil
}

// runOp makes op for project: through the management API with --api
// (remote.Call), over the database otherwise (op.Do on the local service
// layer), the same operation either way.
func runOp[In, Out any](ctx context.Context, c *cmd, op *api.Op[In, Out], project string, in In) (Out, error) {
	var zero Out
	cl, err := c.remote()
	if err != nil {
		return zero, err
	}
	if cl != nil {
		return remote.Call(ctx, cl, op, project, in)
	}
	l, err := c.local(ctx)
	if err != nil {
		return zero, err
	}
	return op.Do(ctx, l.Services, project, in)
}
