package main

import (
	"context"
	"strconv"

	"redirects"
	"redirects/api"
)

// importUndoCommands is "rule undo-import", in its own file beside rule.go
// (the rule group declares the group itself).
var importUndoCommands = []command{
	{
		name:     "rule undo-import",
		synopsis: []string{"--project P --import ID [--json]"},
		summary:  "put the draft back as it was before an applied import",
		about: "ID is the import's undoId, which its report gives (rule import --json, the management API and\n" +
			"the dashboard's Import tab). The draft gets back exactly the rules it had before that import,\n" +
			"with their IDs, as long as it has not changed since; the project's last " + strconv.Itoa(redirects.MaxImportUndos) + " applied imports\n" +
			"can be undone, the latest first. It prints the number of rules the draft holds again.",
		example: "redirects rule undo-import --project \"$PROJECT\" --import 17",
		run:     (*cmd).ruleUndoImport,
	},
}

func (c *cmd) ruleUndoImport(ctx context.Context, args []string) error {
	fs := c.flags("rule undo-import")
	project := fs.String("project", "", "project ID")
	id := fs.Int64("import", 0, "the undoId of the import's report")
	asJSON := fs.Bool("json", false, "print the result as JSON")
	if _, err := parse(fs, args); err != nil {
		return err
	}
	if err := required(fs, "project", "import"); err != nil {
		return err
	}
	if *id <= 0 {
		return usagef("rule undo-import: --import is the positive undoId an import's report gives")
	}
	svc, err := c.services(ctx)
	if err != nil {
		return err
	}
	n, err := svc.Imports.UndoImport(ctx, *project, *id)
	if err != nil {
		return err
	}
	if *asJSON {
		return c.printJSON(api.ImportUndone{Import: *id, Rules: n})
	}
	c.println(strconv.Itoa(n))
	return nil
}
