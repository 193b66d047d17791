package ui

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io"
	"net/http"
	"os"
	"sync"
	"time"

	"redirects"
	"redirects/export"
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
	expires                    time.Time
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
		if now.After(o.expires) || o.session == u.session && o.project == u.project {
			os.Remove(o.path)
			delete(s.m, id)
		}
	}
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

var importModes = []redirects.ImportMode{redirects.ImportAppend, redirects.ImportUpsert, redirects.ImportReplace}

type importData struct {
	Modes []redirects.ImportMode
	Mode  redirects.ImportMode
	// Checked is set once a file was checked: the report below.
	Checked  bool
	Filename string
	Report   *redirects.ImportReport
	// Errors are the first diffListMax bad lines, ErrorCount all of them.
	Errors     []export.LineError
	ErrorCount int
	// Upload is the ID the Apply button sends, when the file is good.
	Upload string
}

// importPage is the Import tab: the form that checks a CSV file.
func (h *handler) importPage(w http.ResponseWriter, r *http.Request) error {
	ph, o, err := h.project(r, redirects.ActionEditRules)
	if err != nil {
		return err
	}
	return h.render(w, r, http.StatusOK, "import", &page{Title: "Import · " + ph.Name, Org: o, Project: ph, Tab: "import",
		Data: importData{Modes: importModes, Mode: redirects.ImportAppend}})
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
		return &pageError{status: http.StatusBadRequest, msg: "File: send the import form as multipart/form-data with a CSV file."}
	}
	if form.file == nil || form.file.FormName() != "file" {
		return h.redirect(w, r, "/projects/"+ph.ID+"/import", flashErr, "File: choose a CSV file to import.")
	}
	d := importData{Modes: importModes, Checked: true, Filename: form.file.FileName()}
	tmp, err := os.CreateTemp("", "redirects-import-*.csv")
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
	if _, err := tmp.Seek(0, io.SeekStart); err != nil {
		return err
	}
	rep, bad, err := h.runImport(r, ph.Project, tmp, mode, true)
	if err != nil {
		return err
	}
	status := http.StatusOK
	if len(bad) > 0 {
		status = http.StatusUnprocessableEntity
		d.ErrorCount = len(bad)
		d.Errors = bad[:min(len(bad), diffListMax)]
	} else {
		d.Report = rep
		d.Upload = randomID()
		keep = true
		h.uploads.put(&upload{id: d.Upload, session: viewerOf(r).session.ID, project: ph.ID, path: tmp.Name(), mode: mode,
			expires: h.clock.Now().Add(uploadTTL)}, h.clock.Now())
	}
	return h.render(w, r, status, "import", &page{Title: "Import · " + ph.Name, Org: o, Project: ph, Tab: "import", Data: d})
}

// importApply imports the file a dry run checked, for real.
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
	rep, bad, err := h.runImport(r, ph.Project, f, u.mode, false)
	if err != nil {
		return err
	}
	if len(bad) > 0 {
		// The draft changed since the dry run (an append now adds a
		// rule twice, say): nothing was written.
		return h.redirect(w, r, back, flashErr, "Nothing was imported: line "+itoa(bad[0].Line)+": "+bad[0].Message+
			" ("+plural(len(bad), "bad line")+"; the draft changed since the check). Check the file again.")
	}
	msg := "Imported " + plural(rep.Added+rep.Updated+rep.Unchanged, "rule") + " (" + thousands(rep.Updated) + " updated"
	if rep.Removed > 0 {
		msg += ", " + thousands(rep.Removed) + " removed"
	}
	return h.redirect(w, r, "/projects/"+ph.ID+"/rules", flashOK, msg+"). Deploy to make them live.")
}

// runImport reads a CSV file and imports it as the API's import does: the
// bad lines of the file, or those the store refuses, are returned with
// nothing written.
func (h *handler) runImport(r *http.Request, p *redirects.Project, in io.Reader, mode redirects.ImportMode, dry bool) (*redirects.ImportReport, []export.LineError, error) {
	rules, lines, bad, err := export.ReadRules(in, export.ReadOptions{Hosts: p.Hosts, MaxRows: manage.MaxImportRows})
	if err != nil {
		return nil, nil, err
	}
	if len(bad) > 0 {
		return nil, bad, nil
	}
	rep, err := h.store.Import(r.Context(), p.ID, rules, redirects.ImportOptions{Mode: mode, DryRun: dry})
	if code := redirects.ErrorCode(err); code == redirects.EINVALID || code == redirects.ECONFLICT {
		return nil, export.StoreLineErrors(redirects.ErrorMessage(err), lines), nil
	} else if err != nil {
		return nil, nil, err
	}
	return rep, nil, nil
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
