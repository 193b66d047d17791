package manage

import (
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"

	"redirects"
	"redirects/api"
	"redirects/export"
)

// rulesCSV answers the draft rules as CSV, in deployment order, with the
// columns source,destination,statusCode,matchType,priority,id, and
// preservePath,preserveQuery when a rule uses either, host when a rule has
// one, queryAfterFragment when a rule has it and mergeQuery when a rule has
// it (see export.WriteDraftCSV): the file that POST .../imports reads back. Sources
// start with '/' and destinations with '/' or http, so no cell can start a
// spreadsheet formula.
func (h *handler) rulesCSV(w http.ResponseWriter, r *http.Request) error {
	p, rules, err := h.svc.Rules.FindDraft(r.Context(), r.PathValue("project"))
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	w.Header().Set("Content-Disposition", `attachment; filename="`+p.ID+`-draft.csv"`)
	return export.WriteDraftCSV(w, rules)
}

// The limits of one import through the API.
const (
	// MaxImportRows is the most rules one import file may hold.
	MaxImportRows = 1_000_000
	// DefaultMaxImportBytes caps an import body; Config.MaxImportBytes
	// changes it.
	DefaultMaxImportBytes = 200 << 20
	// maxReportErrors is how many bad lines an import report lists;
	// errorCount counts them all.
	maxReportErrors = 100
)

// codeInvalidMode is the 400 of an unknown import mode.
const codeInvalidMode = "INVALID_MODE"

// codeInvalidImport is the 422 of an import file with bad lines.
const codeInvalidImport = "INVALID_IMPORT"

// importTypes are the Content-Types an import body may have. None of them
// is one a cross-site form can send without a CORS preflight.
var importTypes = map[string]bool{"text/csv": true, "application/csv": true, "text/tab-separated-values": true, "application/octet-stream": true}

// ruleImport imports a CSV file into the draft (?mode=append, upsert or
// replace; ?dry_run=true computes the report and writes nothing; ?from=
// reads another format, see ruleImportFrom), all or
// nothing, and answers the report: 200 when the file is good, 422
// INVALID_IMPORT with every bad line (the first maxReportErrors listed),
// or 409 CONFLICT when the only problems are rules an append would add
// twice.
func (h *handler) ruleImport(w http.ResponseWriter, r *http.Request) error {
	p, err := h.svc.Imports.ImportTarget(r.Context(), r.PathValue("project"))
	if err != nil {
		return err
	}
	modeArg, err := query(r, "mode")
	if err != nil {
		return err
	}
	mode, err := redirects.ParseImportMode(modeArg)
	if err != nil {
		return newError(http.StatusBadRequest, codeInvalidMode, "%s", redirects.ErrorMessage(err))
	}
	dryArg, err := query(r, "dry_run")
	if err != nil {
		return err
	}
	dry, err := strconv.ParseBool(dryArg)
	if dryArg == "" {
		dry, err = false, nil
	}
	if err != nil {
		return badQuery("the query parameter \"dry_run\" is %q, not true or false", dryArg)
	}
	from, placeholders, fileName, err := importFrom(r)
	if err != nil {
		return err
	}
	ct := r.Header.Get("Content-Type")
	if mt, _, err := mime.ParseMediaType(ct); err != nil || !importTypes[mt] {
		if ct == "" {
			ct = "none"
		}
		if from != "" {
			return newError(http.StatusUnsupportedMediaType, codeUnsupportedMedia, "Content-Type is %s; send the file as application/octet-stream (or text/csv)", ct)
		}
		return newError(http.StatusUnsupportedMediaType, codeUnsupportedMedia, "Content-Type is %s; send the CSV file as text/csv", ct)
	}

	body := &bodyReader{r: http.MaxBytesReader(w, r.Body, h.maxImport)}
	// A file of a declared length refused before its end is read to its
	// end (at most the cap, never held) before the answer, so that a
	// client still sending it reads the answer rather than a reset
	// connection. A body of no declared length may have no end, and is
	// not read on.
	if r.ContentLength > 0 {
		w = &drainFirst{ResponseWriter: w, body: body}
	}
	if from != "" {
		return h.ruleImportFrom(w, r, p, body, from, placeholders, fileName, newImportReport(mode, dry))
	}
	// The reading stops when the client goes; only the bad lines the
	// report lists are kept, the others counted.
	f, err := export.ReadFile(r.Context(), body, export.ReadOptions{Hosts: p.Hosts, MaxRows: MaxImportRows, MaxErrors: maxReportErrors})
	var mbe *http.MaxBytesError
	if errors.As(body.err, &mbe) {
		return newError(http.StatusRequestEntityTooLarge, codeBodyTooLarge, "the file is larger than the %d bytes one import takes; split it", h.maxImport)
	}
	if err != nil {
		return err
	}
	rep := newImportReport(mode, dry)
	if f.BadCount > 0 {
		return writeImportFailureCount(w, rep, http.StatusUnprocessableEntity, codeInvalidImport, f.Bad, f.BadCount)
	}
	rules, lines := f.Rules, f.Lines
	done, err := h.svc.Imports.Import(r.Context(), p.ID, rules, redirects.ImportOptions{Mode: mode, DryRun: dry})
	if code := redirects.ErrorCode(err); code == redirects.EINVALID || code == redirects.ECONFLICT {
		status, apiCode := http.StatusUnprocessableEntity, codeInvalidImport
		if code == redirects.ECONFLICT {
			status, apiCode = http.StatusConflict, "CONFLICT"
		}
		return writeImportFailure(w, rep, status, apiCode, export.StoreLineErrors(redirects.ErrorMessage(err), lines))
	} else if err != nil {
		return err
	}
	rep.ImportCounts = api.ImportCountsOf(done)
	writeJSON(w, http.StatusOK, rep)
	return nil
}

// newImportReport is the report of an import in mode, before its counts.
func newImportReport(mode redirects.ImportMode, dry bool) api.ImportReport {
	return api.ImportReport{ImportCounts: api.ImportCounts{Mode: string(mode), DryRun: dry}, Errors: []export.LineError{}}
}

// writeImportFailure answers the report of a file that nothing was
// imported from: every bad line counted, the first maxReportErrors listed.
func writeImportFailure(w http.ResponseWriter, rep api.ImportReport, status int, code string, bad []export.LineError) error {
	return writeImportFailureCount(w, rep, status, code, bad, len(bad))
}

// writeImportFailureCount is writeImportFailure of count bad lines, of
// which bad holds the first.
func writeImportFailureCount(w http.ResponseWriter, rep api.ImportReport, status int, code string, bad []export.LineError, count int) error {
	rep.ErrorCount = count
	rep.Errors = bad[:min(len(bad), maxReportErrors)]
	rep.Code = code
	rep.Error = fmt.Sprintf("%d bad lines; nothing imported", count)
	if code == "CONFLICT" {
		// The file is fine: its lines hold sources the draft has with
		// other rules, which an upsert updates.
		rep.Error = fmt.Sprintf("%d lines hold sources the draft has with other rules; nothing imported (mode upsert updates them)", count)
	}
	if count == 1 {
		rep.Error = fmt.Sprintf("line %d: %s; nothing imported", bad[0].Line, bad[0].Message)
	}
	writeJSON(w, status, rep)
	return nil
}

// bodyReader remembers the error of the body it reads, which the CSV
// reader reports only as text, so that a body over the cap is told apart.
type bodyReader struct {
	r   io.Reader
	err error
}

func (b *bodyReader) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	if err != nil && err != io.EOF {
		b.err = err
	}
	return n, err
}

// drainFirst is an import's ResponseWriter: before an error answer it
// reads what is left of the request's body and drops it. Without this,
// the server closes the connection while the client still sends, and its
// reset can reach the client before the answer does.
type drainFirst struct {
	http.ResponseWriter
	body    io.Reader
	written bool
}

func (d *drainFirst) WriteHeader(status int) {
	if !d.written {
		d.written = true
		if status >= 400 && status != http.StatusRequestEntityTooLarge {
			io.Copy(io.Discard, d.body)
		}
	}
	d.ResponseWriter.WriteHeader(status)
}

func (d *drainFirst) Write(p []byte) (int, error) {
	if !d.written {
		d.WriteHeader(http.StatusOK)
	}
	return d.ResponseWriter.Write(p)
}

// Unwrap lets http.ResponseController reach the connection's writer.
func (d *drainFirst) Unwrap() http.ResponseWriter { return d.ResponseWriter }
