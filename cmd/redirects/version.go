package main

import (
	"context"
	"fmt"

	"redirects/internal/version"
)

// versionCommands is "version".
var versionCommands = []command{
	{
		name:    "version",
		remark:  "the version, commit and build date (also --version)",
		summary: "print the version, commit and build date",
		example: "redirects version",
		run:     (*cmd).version,
	},
}

// version prints the version, commit and build date (also --version).
func (c *cmd) version(ctx context.Context, args []string) error {
	fs := c.newFlagSet("version")
	if _, err := parse(fs, args); err != nil {
		return err
	}
	fmt.Fprintln(c.m.Stdout, version.Get())
	return nil
}
