package api

import (
	"redirects"
	"redirects/export"
	"redirects/importer"
)

// ImportCounts are what an import did, or with a dry run would do, to the
// draft (see redirects.ImportReport): the command line's rule import
// --json, and the counts of the API's import report.
type ImportCounts struct {
	Mode      string `json:"mode"`
	DryRun    bool   `json:"dryRun"`
	Added     int    `json:"added"`
	Updated   int    `json:"updated"`
	Unchanged int    `json:"unchanged"`
	Removed   int    `json:"removed"`
}

// ImportCountsOf is rep's counts.
func ImportCountsOf(rep *redirects.ImportReport) ImportCounts {
	return ImportCounts{Mode: string(rep.Mode), DryRun: rep.DryRun, Added: rep.Added, Updated: rep.Updated,
		Unchanged: rep.Unchanged, Removed: rep.Removed}
}

// ImportReport is the answer of POST .../imports. On failure it also
// carries the error and code of every error answer, every bad line (the
// first ones listed, ErrorCount counting them all) and no count.
type ImportReport struct {
	Error string `json:"error,omitempty"`
	Code  string `json:"code,omitempty"`
	ImportCounts
	Errors     []export.LineError `json:"errors"`
	ErrorCount int                `json:"errorCount"`
}

// MigrationReport is the answer of POST .../imports?from=: the import
// report, the report of every line of the file, and the undo record of an
// applied import.
type MigrationReport struct {
	ImportReport
	Migration *importer.Result `json:"migration,omitempty"`
	UndoID    int64            `json:"undoId,omitempty"`
}

// MigrationCounts is the command line's rule import --from --json: the
// counts, the undo record of an applied import (absent for a dry run), then
// the report of every line.
type MigrationCounts struct {
	ImportCounts
	UndoID    int64            `json:"undoId,omitempty"`
	Migration *importer.Result `json:"migration"`
}

// ImportUndo is the answer of POST .../imports/{id}/undo.
type ImportUndo struct {
	UndoID int64 `json:"undoId"`
	// Rules is how many rules the draft holds again.
	Rules int `json:"rules"`
}

// ImportUndone is the command line's rule undo-import --json.
type ImportUndone struct {
	Import int64 `json:"import"`
	Rules  int   `json:"rules"`
}

// RulesExport is the JSON answer of GET .../rules-export: the file, and
// every rule the format could not express.
type RulesExport struct {
	To       string `json:"to"`
	FileName string `json:"fileName"`
	Rules    int    `json:"rules"`
	// Content is the file.
	Content     string                 `json:"content"`
	Unexpressed []importer.Unexpressed `json:"unexpressed"`
}

// RulesExported is the command line's rule export --json: the format, how
// many rules, and what the format could not express.
type RulesExported struct {
	Format      string                 `json:"format"`
	Rules       int                    `json:"rules"`
	Unexpressed []importer.Unexpressed `json:"unexpressed"`
}
