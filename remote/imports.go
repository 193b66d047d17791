package remote

import (
	"bytes"
	"context"
	"encoding/json"
	"net/url"
	"strconv"
	"strings"

	"redirects"
	"redirects/api"
	"redirects/export"
)

var _ redirects.ImportService = (*Client)(nil)

// ImportTarget reads the project through GET /projects/{id}; the import
// route itself decides whether the caller may edit its rules.
func (c *Client) ImportTarget(ctx context.Context, projectID string) (*redirects.Project, error) {
	return c.Project(ctx, projectID)
}

// Import sends the rules as the draft CSV (rules.csv's columns, which the
// import reads back as they are), with from=csv, so that the answer names
// the import's undo record.
func (c *Client) Import(ctx context.Context, projectID string, rules []redirects.Rule, opts redirects.ImportOptions) (*redirects.ImportReport, error) {
	var buf bytes.Buffer
	if err := export.WriteDraftCSV(&buf, rules); err != nil {
		return nil, err
	}
	mode := opts.Mode
	if mode == "" {
		mode = redirects.ImportAppend
	}
	q := url.Values{"mode": {string(mode)}, "dry_run": {strconv.FormatBool(opts.DryRun)}, "from": {"csv"}}
	var j api.MigrationReport
	path := "/projects/" + pathEscape(projectID) + "/imports"
	status, data, err := c.send(ctx, "POST", path, q, &buf, "text/csv")
	if err != nil {
		return nil, err
	}
	if status >= 400 {
		apiErr := c.apiError(status, "POST", path, data)
		if json.Unmarshal(data, &j) != nil || len(j.Errors) == 0 {
			return nil, apiErr
		}
		// The store's message: "rule N: ..." per bad rule, N its place in
		// the batch, which is its line in the file sent less the header.
		lines := make([]string, 0, len(j.Errors)+1)
		for _, e := range j.Errors {
			lines = append(lines, "rule "+strconv.Itoa(e.Line-1)+": "+e.Message)
		}
		if j.ErrorCount > len(j.Errors) {
			lines = append(lines, "... and "+strconv.Itoa(j.ErrorCount-len(j.Errors))+" more")
		}
		return nil, &redirects.Error{Code: redirects.ErrorCode(apiErr), Message: strings.Join(lines, "\n")}
	}
	if err := jsonUnmarshal(data, &j); err != nil {
		return nil, err
	}
	return &redirects.ImportReport{Mode: redirects.ImportMode(j.Mode), DryRun: j.DryRun, Added: j.Added, Updated: j.Updated,
		Unchanged: j.Unchanged, Removed: j.Removed, UndoID: j.UndoID}, nil
}

// UndoImport undoes an applied import through POST
// .../imports/{id}/undo.
func (c *Client) UndoImport(ctx context.Context, projectID string, undoID int64) (int, error) {
	var j api.ImportUndo
	err := c.do(ctx, "POST", "/projects/"+pathEscape(projectID)+"/imports/"+strconv.FormatInt(undoID, 10)+"/undo", nil, nil, "", &j)
	return j.Rules, err
}
