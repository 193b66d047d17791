package export

import (
	"encoding/csv"
	"io"
	"strconv"
	"strings"
	"time"

	"redirects"
)

// AuditColumns are the columns of the audit log as CSV, which the CLI's
// audit --csv and the management API's audit route both write.
var AuditColumns = []string{"id", "time", "orgId", "projectId", "actorKind", "actorId", "actorLabel", "remoteAddr",
	"action", "objectType", "objectId", "before", "after"}

// WriteAuditCSV writes entries as RFC 4180 CSV with CRLF line ends, the
// header first, every cell guarded by SafeCells.
func WriteAuditCSV(out io.Writer, entries []*redirects.AuditEntry) error {
	w := csv.NewWriter(out)
	w.UseCRLF = true
	w.Write(AuditColumns)
	for _, e := range entries {
		w.Write(SafeCells(strconv.FormatInt(e.ID, 10), e.Time.Format(time.RFC3339Nano), e.OrgID, e.ProjectID,
			string(e.Actor.Kind), e.Actor.ID, e.Actor.Label, e.Actor.RemoteAddr, e.Action, e.ObjectType, e.ObjectID,
			string(e.Before), string(e.After)))
	}
	w.Flush()
	return w.Error()
}

// SafeCells guards CSV against formula injection: a spreadsheet runs a
// cell that starts with =, +, -, @, a tab or a carriage return as a
// formula, and labels, emails and rule sources come from users. Such a
// cell gets a leading apostrophe, which spreadsheets hide. It changes
// cells in place and returns them.
func SafeCells(cells ...string) []string {
	for i, s := range cells {
		if s != "" && strings.ContainsRune("=+-@\t\r", rune(s[0])) {
			cells[i] = "'" + s
		}
	}
	return cells
}
