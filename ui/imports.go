package ui

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"redirects"
	"redirects/export"
	"redirects/importer"
	"redirects/manage"
)

// The Import tab checks a CSV file with a dry run first and writes it only
// when the user applies the report. The file is kept between the two steps
// on the server, in a temporary file named by a random ID and bound to the
// session and project that uploaded it, so the Apply button carries only
// the ID and the client is never trusted with the rules themselves.
const (
	// maxImportBytes is the import cap of the API: the same file is taken
	// or refused by both doors.
	maxImportBytes = manage.DefaultMaxImportBytes
	// uploadTTL is how long a checked file waits for its Apply.
	uploadTTL = 30 * time.Minute
	// maxUploads caps the files waiting for an Apply, for all sessions;
	// the oldest is dropped to make room.
	maxUploads = 16
)

// upload is a checked import file waiting for its Apply.
type upload struct {
	id, session, project, path string
	mode                       redirects.ImportMode
	// from is the format the check read the file as (the one detected for
	// auto), placeholders the values given, name the file's name.
	from         string
	placeholders map[string][]string
	name         string
	expires      time.Time
}

// uploads keeps the files waiting for an Apply.
type uploads struct {
	mu sync.Mutex
	m  map[string]*upload
}

// put keeps u, replacing the session's earlier file for the same project
// and dropping expired ones and, over maxUploads, the oldest.
func (s *uploads) put(u *upload, now time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m == nil {
		s.m = map[string]*upload{}
	}
	for id, o := range s.m {
		if o != u && (now.After(o.expires) || o.session == u.session && o.project == u.project) {
			os.Remove(o.path)
			delete(s.m, id)
		}
	}
	delete(s.m, u.id) // kept again (checked again under new settings)
	for len(s.m) >= maxUploads {
		var oldest *upload
		for _, o := range s.m {
			if oldest == nil || o.expires.Before(oldest.expires) {
				oldest = o
			}
		}
		os.Remove(oldest.path)
		delete(s.m, oldest.id)
	}
	s.m[u.id] = u
}

// take removes and returns the file id of this session and project, or nil
// when there is none (expired, applied, or someone else's).
func (s *uploads) take(id, session, project string, now time.Time) *upload {
	s.mu.Lock()
	defer s.mu.Unlock()
	u := s.m[id]
	if u == nil || u.session != session || u.project != project {
		return nil
	}
	delete(s.m, id)
	if now.After(u.expires) {
		os.Remove(u.path)
		return nil
	}
	return u
}

// get returns the file id of this session and project without removing
// it (the settings suggestion checks it again), or nil.
func (s *uploads) get(id, session, project string, now time.Time) *upload {
	s.mu.Lock()
	defer s.mu.Unlock()
	u := s.m[id]
	if u == nil || u.session != session || u.project != project || now.After(u.expires) {
		return nil
	}
	return u
}

var importModes = []redirects.ImportMode{redirects.ImportAppend, redirects.ImportUpsert, redirects.ImportReplace}

type importData struct {
	Modes []redirects.ImportMode
	Mode  redirects.ImportMode
	// Formats are the picker's choices after auto; From is the one chosen.
	Formats []*importer.Format
	From    string
	// Placeholders is the placeholder field as sent.
	Placeholders string
	// Checked is set once a file was checked: the report below.
	Checked  bool
	Filename string
	Report   *redirects.ImportReport
	// Migration is what the format's reader made of every line, Format
	// its format's title; Lines are its first diffListMax changed and
	// skipped lines.
	Migration *importer.Result
	Format    string
	AsIs      string
	Lines     []importer.Outcome
	// Suggest is the settings suggestion in words; CanManage says the user
	// may apply it (the Settings tab's right).
	Suggest   string
	CanManage bool
	// SuggestHosts are the hosts "Apply these settings" declares (the
	// project's, then the file's): empty when the report suggests none or
	// more than a project declares.
	SuggestHosts []string
	// Notice is a message about the report (a suggestion applied or
	// refused), Failed whether it is an error.
	Notice string
	Failed bool
	// Errors are the first diffListMax bad lines, ErrorCount all of them;
	// ReadError is the one message of a file that no reader can read.
	Errors     []export.LineError
	ErrorCount int
	ReadError  string
	// Conflict says every problem is a line whose source the draft holds
	// with another rule: the file is fine, and the upsert mode imports it.
	Conflict bool
	// Upload is the ID the Apply button sends, when the file is good.
	Upload string
	// Undo is the import just applied, when its page shows it.
	Undo *undoData
	// Writers are the formats the draft downloads as.
	Writers []*importer.Writer
	// Export is the report of a download, when one was asked for.
	Export *exportData
}

// undoData is the Undo section of the import just applied.
type undoData struct {
	ID int64
	// Possible says the Undo button works now; Why says why not.
	Possible bool
	Why      string
}

// exportData is what a writer could not express of the draft.
type exportData struct {
	Writer      *importer.Writer
	Rules       int
	Unexpressed []importer.Unexpressed
	Count       int
}

func (h *handler) importPageData(r *http.Request, o *redirects.Org) importData {
	return importData{Modes: importModes, Mode: redirects.ImportAppend, Formats: importer.Formats(), From: "auto",
		Writers: importer.Writers(), CanManage: may(r, o.ID, redirects.ActionManageProjects)}
}

// importPage is the Import tab: the form that checks a file, the Undo of
// the import just applied (?undo=ID), and the downloads of the draft in
// other platforms' formats.
func (h *handler) importPage(w http.ResponseWriter, r *http.Request) error {
	ph, o, err := h.project(r, redirects.ActionEditRules)
	if err != nil {
		return err
	}
	d := h.importPageData(r, o)
	if v := r.URL.Query().Get("undo"); v != "" {
		id, err := strconv.ParseInt(v, 10, 64)
		if err != nil || id <= 0 {
			return &pageError{status: http.StatusBadRequest, msg: "Undo: " + strconv.Quote(v) + " is not an import's number."}
		}
		d.Undo = &undoData{ID: id}
		if err := h.svc.UndoChecks.CheckImportUndo(r.Context(), ph.ID, id); err == nil {
			d.Undo.Possible = true
		} else if statusOf(err) < 500 {
			d.Undo.Why = message(err)
		} else {
			return err
		}
	}
	return h.render(w, r, http.StatusOK, "import", &page{Title: "Import · " + ph.Name, Org: o, Project: ph, Tab: "import", Data: d})
}

// importCheck runs a dry run of the uploaded file and shows its report;
// a good file is kept for importApply.
func (h *handler) importCheck(w http.ResponseWriter, r *http.Request) error {
	ph, o, err := h.project(r, redirects.ActionEditRules)
	if err != nil {
		return err
	}
	// authenticate read the form up to its file: the file is read only
	// now, by an editor, straight into the one temporary file it needs.
	form := streamFormOf(r)
	if form == nil {
		return &pageError{status: http.StatusBadRequest, msg: "File: send the import form as multipart/form-data with a file."}
	}
	back := "/projects/" + ph.ID + "/import"
	if form.file == nil || form.file.FormName() != "file" {
		return h.redirect(w, r, back, flashErr, "File: choose a file to import.")
	}
	d := h.importPageData(r, o)
	d.Checked, d.Filename = true, form.file.FileName()
	tmp, err := os.CreateTemp("", "redirects-import-*")
	if err != nil {
		return err
	}
	keep := false
	defer func() {
		tmp.Close()
		if !keep {
			os.Remove(tmp.Name())
		}
	}()
	if _, err := io.Copy(tmp, form.file); err != nil {
		return formReadError(err)
	}
	if err := form.rest(); err != nil {
		return err
	}
	mode, err := redirects.ParseImportMode(form.values.Get("mode"))
	if err != nil {
		return &pageError{status: http.StatusBadRequest, msg: "Mode: " + message(err)}
	}
	d.Mode = mode
	d.From = form.values.Get("from")
	if d.From == "" {
		d.From = "auto"
	}
	if !slices.Contains(importer.FormatNames(), d.From) {
		return &pageError{status: http.StatusBadRequest, msg: "Format: " + strconv.Quote(d.From) + " is not one of " + strings.Join(importer.FormatNames(), ", ") + "."}
	}
	d.Placeholders = form.values.Get("placeholders")
	placeholders, err := parsePlaceholders(d.Placeholders)
	if err != nil {
		return h.redirect(w, r, back, flashErr, "Placeholders: "+message(err))
	}
	u := &upload{session: viewerOf(r).session.ID, project: ph.ID, path: tmp.Name(), mode: mode, from: d.From,
		placeholders: placeholders, name: d.Filename}
	status, err := h.checkUpload(r, ph.Project, u, &d)
	if err != nil {
		return err
	}
	if d.Upload != "" {
		keep = true
	}
	return h.render(w, r, status, "import", &page{Title: "Import · " + ph.Name, Org: o, Project: ph, Tab: "import", Data: d})
}

// checkUpload runs the dry run of u into d and answers the page's status;
// a good file is kept (again) for importApply under d.Upload.
func (h *handler) checkUpload(r *http.Request, p *redirects.Project, u *upload, d *importData) (int, error) {
	f, err := os.Open(u.path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	out, err := h.runImport(r, p, f, u, true)
	if err != nil {
		return 0, err
	}
	d.Migration = out.res
	if out.res != nil {
		d.Format = out.res.Format
		if fm := importer.Lookup(out.res.Format); fm != nil {
			d.Format = fm.Title
		}
		d.AsIs = rangesText(out.res.AsIsLines)
		d.Lines = out.res.Lines[:min(len(out.res.Lines), diffListMax)]
		if s := out.res.Suggest; s != nil {
			d.Suggest = describeSettings(s.Settings)
		}
		d.SuggestHosts = nil
		if s := out.res.SuggestHosts; s != nil {
			d.SuggestHosts = s.Declare
		}
	}
	switch {
	case out.readErr != "":
		d.ReadError = out.readErr
		return http.StatusUnprocessableEntity, nil
	case len(out.bad) > 0:
		d.ErrorCount = len(out.bad)
		d.Errors = out.bad[:min(len(out.bad), diffListMax)]
		d.Conflict = out.conflict
		return http.StatusUnprocessableEntity, nil
	}
	d.Report = out.rep
	if u.id == "" {
		u.id = randomID()
	}
	// The apply reads the file as the format the check found.
	u.from = out.res.Format
	d.Upload = u.id
	u.expires = h.clock.Now().Add(uploadTTL)
	h.uploads.put(u, h.clock.Now())
	return http.StatusOK, nil
}

// importSettings applies the settings the check's report suggests (as the
// Settings tab saves them; refused when rules would clash) and checks the
// file again under them.
func (h *handler) importSettings(w http.ResponseWriter, r *http.Request) error {
	ph, o, err := h.project(r, redirects.ActionManageProjects)
	if err != nil {
		return err
	}
	back := "/projects/" + ph.ID + "/import"
	u := h.uploads.get(r.PostFormValue("upload"), viewerOf(r).session.ID, ph.ID, h.clock.Now())
	if u == nil {
		return h.redirect(w, r, back, flashErr, "Nothing was changed: the checked file has expired or was already imported. Choose it again.")
	}
	d := h.importPageData(r, o)
	d.Checked, d.Filename, d.Mode, d.From = true, u.name, u.mode, u.from
	f, err := os.Open(u.path)
	if err != nil {
		return err
	}
	res, err := importer.Read(r.Context(), f, u.from, importer.Options{Settings: ph.Settings, Hosts: ph.Hosts, Placeholders: u.placeholders, FileName: u.name, MaxRules: manage.MaxImportRows})
	f.Close()
	switch {
	case err != nil && statusOf(err) < 500:
		d.Notice, d.Failed = "Nothing was changed: "+message(err), true
	case err != nil:
		return err
	case res.Suggest == nil && (res.SuggestHosts == nil || len(res.SuggestHosts.Declare) == 0):
		d.Notice = "Nothing to change: the draft already compares paths " + describeSettings(ph.Settings) + "."
	default:
		var up redirects.ProjectUpdate
		var saved []string
		if res.Suggest != nil {
			up = settingsUpdate(res.Suggest.Settings)
			saved = append(saved, "the draft compares paths "+describeSettings(res.Suggest.Settings)+", as the file's platform does")
		}
		if hs := res.SuggestHosts; hs != nil && len(hs.Declare) > 0 {
			declare := slices.Clone(hs.Declare)
			up.Hosts = &declare
			saved = append(saved, "the project declares the hosts "+strings.Join(hs.Hosts, ", ")+" the file's rules answer on")
		}
		if _, err := h.svc.Projects.UpdateProject(r.Context(), ph.ID, up); err != nil {
			if statusOf(err) >= 500 {
				return err
			}
			d.Notice, d.Failed = "The settings were not changed: "+clip(message(err), 600)+" Change or delete one rule of each pair, or import without the suggestion.", true
		} else {
			d.Notice = "Saved: " + strings.Join(saved, "; ") + ". The file was checked again under them."
			if ph, err = h.reloadProject(r, ph); err != nil {
				return err
			}
		}
	}
	status, err := h.checkUpload(r, ph.Project, u, &d)
	if err != nil {
		return err
	}
	return h.render(w, r, status, "import", &page{Title: "Import · " + ph.Name, Org: o, Project: ph, Tab: "import", Data: d})
}

// reloadProject reads the page's project again after a change.
func (h *handler) reloadProject(r *http.Request, ph *projectHeader) (*projectHeader, error) {
	p, err := h.svc.Projects.Project(r.Context(), ph.ID)
	if err != nil {
		return nil, err
	}
	out := *ph
	out.Project = p
	return &out, nil
}

// importApply imports the file a dry run checked, for real, and opens the
// Import tab on its Undo.
func (h *handler) importApply(w http.ResponseWriter, r *http.Request) error {
	ph, _, err := h.project(r, redirects.ActionEditRules)
	if err != nil {
		return err
	}
	back := "/projects/" + ph.ID + "/import"
	u := h.uploads.take(r.PostFormValue("upload"), viewerOf(r).session.ID, ph.ID, h.clock.Now())
	if u == nil {
		return h.redirect(w, r, back, flashErr, "Nothing was imported: the checked file has expired or was already imported. Choose it again.")
	}
	defer os.Remove(u.path)
	f, err := os.Open(u.path)
	if err != nil {
		return err
	}
	defer f.Close()
	out, err := h.runImport(r, ph.Project, f, u, false)
	if err != nil {
		return err
	}
	if out.readErr != "" || len(out.bad) > 0 {
		// The draft or the settings changed since the dry run (an append
		// now adds a rule twice, say): nothing was written.
		msg := out.readErr
		if msg == "" {
			what := "bad line"
			if out.conflict {
				what = "clashing line"
			}
			msg = "line " + itoa(out.bad[0].Line) + ": " + out.bad[0].Message + " (" + plural(len(out.bad), what) + ")"
		}
		return h.redirect(w, r, back, flashErr, "Nothing was imported: "+msg+"; the draft changed since the check. Check the file again.")
	}
	rep := out.rep
	msg := "Imported " + plural(rep.Added+rep.Updated+rep.Unchanged, "rule") + " (" + thousands(rep.Updated) + " updated"
	if rep.Removed > 0 {
		msg += ", " + thousands(rep.Removed) + " removed"
	}
	return h.redirect(w, r, back+"?undo="+strconv.FormatInt(rep.UndoID, 10), flashOK, msg+"). Deploy to make them live.")
}

// importUndo puts the draft back as it was before the import the form
// names, while the draft is as that import left it.
func (h *handler) importUndo(w http.ResponseWriter, r *http.Request) error {
	ph, _, err := h.project(r, redirects.ActionEditRules)
	if err != nil {
		return err
	}
	raw := r.PostFormValue("undo")
	id, err := strconv.ParseInt(raw, 10, 64)
	if err != nil || id <= 0 {
		return &pageError{status: http.StatusBadRequest, msg: "Undo: " + strconv.Quote(raw) + " is not an import's number."}
	}
	n, err := h.svc.Imports.UndoImport(r.Context(), ph.ID, id)
	if err != nil {
		if statusOf(err) < 500 {
			return h.redirect(w, r, "/projects/"+ph.ID+"/import?undo="+raw, flashErr, "The import was not undone: "+message(err))
		}
		return err
	}
	return h.redirect(w, r, "/projects/"+ph.ID+"/rules", flashOK, "Import undone: the draft has its "+plural(n, "rule")+" back, as before the import.")
}

// importExport shows what a writer cannot express of the draft, with the
// download of its file.
func (h *handler) importExport(w http.ResponseWriter, r *http.Request) error {
	ph, o, err := h.project(r, redirects.ActionEditRules)
	if err != nil {
		return err
	}
	wr, rules, un, _, err := h.writeDraft(r, ph.Project)
	if err != nil {
		return err
	}
	d := h.importPageData(r, o)
	d.Export = &exportData{Writer: wr, Rules: len(rules), Unexpressed: un[:min(len(un), diffListMax)], Count: len(un)}
	return h.render(w, r, http.StatusOK, "import", &page{Title: "Export · " + ph.Name, Org: o, Project: ph, Tab: "import", Data: d})
}

// importExportFile downloads the draft in a writer's format; the
// Redirects-Unexpressed header counts what it cannot express.
func (h *handler) importExportFile(w http.ResponseWriter, r *http.Request) error {
	ph, _, err := h.project(r, redirects.ActionEditRules)
	if err != nil {
		return err
	}
	wr, _, un, body, err := h.writeDraft(r, ph.Project)
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", wr.ContentType)
	w.Header().Set("Content-Disposition", `attachment; filename="`+wr.FileName+`"`)
	w.Header().Set("Redirects-Unexpressed", strconv.Itoa(len(un)))
	w.Write(body)
	return nil
}

// writeDraft writes the draft with the writer ?to= names.
func (h *handler) writeDraft(r *http.Request, p *redirects.Project) (*importer.Writer, []redirects.Rule, []importer.Unexpressed, []byte, error) {
	to := r.URL.Query().Get("to")
	wr := importer.LookupWriter(to)
	if wr == nil {
		var names []string
		for _, w := range importer.Writers() {
			names = append(names, w.Name)
		}
		return nil, nil, nil, nil, &pageError{status: http.StatusBadRequest, msg: "Format: " + strconv.Quote(to) + " is not one of " + strings.Join(names, ", ") + "."}
	}
	p, rules, err := h.svc.Rules.FindDraft(r.Context(), p.ID)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	var b bytes.Buffer
	un, err := wr.Write(&b, rules, p.Settings, p.Hosts)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	return wr, rules, un, b.Bytes(), nil
}

// importOutcome is what runImport made of a file: the reader's report and
// the store's, or the bad lines, or the one message of an unreadable file.
type importOutcome struct {
	res     *importer.Result
	rep     *redirects.ImportReport
	bad     []export.LineError
	readErr string
	// conflict says every line of bad clashes with a draft rule (an
	// append of rules the draft holds otherwise), none is invalid.
	conflict bool
}

// runImport reads a file as u says (importer.Read) and imports it as the
// API's import does: the bad lines of the file, or those the store
// refuses, are returned with nothing written.
func (h *handler) runImport(r *http.Request, p *redirects.Project, in io.Reader, u *upload, dry bool) (*importOutcome, error) {
	res, err := importer.Read(r.Context(), in, u.from, importer.Options{Settings: p.Settings, Hosts: p.Hosts, Placeholders: u.placeholders, FileName: u.name, MaxRules: manage.MaxImportRows})
	var bad *importer.BadLinesError
	switch {
	case errors.As(err, &bad):
		return &importOutcome{bad: bad.Lines}, nil
	case redirects.ErrorCode(err) == redirects.EINVALID:
		return &importOutcome{readErr: message(err)}, nil
	case err != nil:
		return nil, err
	}
	out := &importOutcome{res: res}
	if len(res.Rules) > manage.MaxImportRows {
		out.readErr = "the file makes " + thousands(len(res.Rules)) + " rules, more than the " + thousands(manage.MaxImportRows) + " one import takes; split it"
		return out, nil
	}
	rep, err := h.svc.Imports.Import(r.Context(), p.ID, res.Rules, redirects.ImportOptions{Mode: u.mode, DryRun: dry})
	if code := redirects.ErrorCode(err); code == redirects.EINVALID || code == redirects.ECONFLICT {
		out.bad = export.StoreLineErrors(redirects.ErrorMessage(err), res.RuleLines)
		out.conflict = code == redirects.ECONFLICT
		return out, nil
	} else if err != nil {
		return nil, err
	}
	out.rep = rep
	return out, nil
}

// parsePlaceholders reads the placeholder field: NAME=V1,V2,... entries
// separated by spaces, semicolons or lines.
func parsePlaceholders(s string) (map[string][]string, error) {
	m := map[string][]string{}
	for _, f := range strings.FieldsFunc(s, func(c rune) bool { return c == ' ' || c == ';' || c == '\n' || c == '\r' || c == '\t' }) {
		if err := importer.ParsePlaceholder(m, f); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// rangesText writes ranges of line numbers as "2–4, 7".
func rangesText(r [][2]int) string {
	var b strings.Builder
	for i, x := range r {
		if i == 50 {
			b.WriteString(", … (" + itoa(len(r)-50) + " more ranges)")
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(itoa(x[0]))
		if x[1] != x[0] {
			b.WriteString("–" + itoa(x[1]))
		}
	}
	return b.String()
}

// randomID returns 128 random bits in hex.
func randomID() string {
	b := make([]byte, 16)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// errTooLarge is the page of a form over maxImportBytes.
var errTooLarge = &pageError{status: http.StatusRequestEntityTooLarge,
	msg: "The file is larger than the " + itoa(maxImportBytes>>20) + " MB one import takes: split it into smaller files."}

// isTooLarge reports whether err is a body over its cap.
func isTooLarge(err error) bool {
	var mbe *http.MaxBytesError
	return errors.As(err, &mbe)
}
