package ui

import (
	"context"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/url"

	"redirects"
	"redirects/manage"
)

// Caps on the bodies of the dashboard's forms. Every POST has one before a
// byte is read: the sign-in form a few KiB (its sender is anonymous), the
// other forms net/http's usual form cap, and the import file, the only
// large body, only on the import route, read only after the session, the
// CSRF token and the role were checked. No form is spooled to disk by
// net/http: a small one is parsed in memory within its cap, and the import
// form is read part by part (see streamForm).
const (
	maxSignInForm = manage.MaxSignInBytes
	maxForm       = 10 << 20
	maxImportForm = maxImportBytes + 1<<20
)

// bodyLimit returns the cap of a route's body.
func (rt route) bodyLimit() int64 {
	switch {
	case rt.maxBody > 0:
		return rt.maxBody
	case rt.public:
		return maxSignInForm
	}
	return maxForm
}

// limitBody caps the body of a POST at limit, refusing one that says it is
// larger before reading it. Unless stream is set, it parses the form
// within the cap, so a handler's PostFormValue never reads past it.
func limitBody(limit int64, stream bool, next func(http.ResponseWriter, *http.Request) error) func(http.ResponseWriter, *http.Request) error {
	return func(w http.ResponseWriter, r *http.Request) error {
		if r.Method != http.MethodPost {
			return next(w, r)
		}
		if r.ContentLength > limit {
			return tooLarge(limit)
		}
		r.Body = http.MaxBytesReader(w, r.Body, limit)
		if !stream {
			if err := parseForm(r, limit); isTooLarge(err) {
				return tooLarge(limit)
			}
			for name, vs := range r.PostForm {
				for _, v := range vs {
					if err := checkField(name, v); err != nil {
						return err
					}
				}
			}
		}
		return next(w, r)
	}
}

// passwordFields are the dashboard's form fields that hold a password:
// signing in and changing it.
var passwordFields = map[string]bool{"password": true, "current-password": true, "new-password": true, "new-password-again": true}

// checkField refuses a form field holding a NUL byte or invalid UTF-8
// (redirects.CheckText), naming it, before any handler runs: what a form
// sends ends in a store, which cannot keep such bytes as given. A password
// (passwordFields) is only hashed, never stored as text, and is exempt,
// as at the API's and the command line's doors.
func checkField(name, v string) error {
	if passwordFields[name] {
		return nil
	}
	if err := redirects.CheckText("The field \u201c"+name+"\u201d", v); err != nil {
		return &pageError{status: http.StatusBadRequest, msg: redirects.ErrorMessage(err) + ": nothing was changed."}
	}
	return nil
}

// parseForm parses a form body already capped at limit; a multipart form
// is kept in memory, which the cap bounds.
func parseForm(r *http.Request, limit int64) error {
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt == "multipart/form-data" {
		return r.ParseMultipartForm(limit)
	}
	return r.ParseForm()
}

// tooLarge is the page of a body over its cap.
func tooLarge(limit int64) error {
	if limit == maxImportForm {
		return errTooLarge
	}
	return &pageError{status: http.StatusRequestEntityTooLarge, msg: "This form is larger than the " + sizeOf(limit) + " it may be: nothing was read or changed."}
}

func sizeOf(n int64) string {
	if n >= 1<<20 {
		return itoa(int(n>>20)) + " MiB"
	}
	return itoa(int(n>>10)) + " KiB"
}

// streamForm is a multipart form read part by part: the plain fields
// before the first file are read (the CSRF token among them), the file is
// left for the handler to copy where it belongs, after its checks.
type streamForm struct {
	mr     *multipart.Reader
	values url.Values
	file   *multipart.Part // the first file part, not yet read; nil if none
}

type streamFormKey struct{}

// maxFieldBytes caps a plain field of a streamed form.
const maxFieldBytes = 4 << 10

// errFieldTooLong is a plain field of a streamed form over maxFieldBytes.
var errFieldTooLong = &pageError{status: http.StatusRequestEntityTooLarge, msg: "A field of this form is longer than the dashboard sends: nothing was changed."}

// openStreamForm reads the plain fields of r's multipart body up to its
// first file part.
func openStreamForm(r *http.Request) (*streamForm, error) {
	mr, err := r.MultipartReader()
	if err != nil {
		return nil, &pageError{status: http.StatusBadRequest, msg: "This form is not a multipart form: " + err.Error()}
	}
	f := &streamForm{mr: mr, values: url.Values{}}
	for {
		p, err := mr.NextPart()
		if err == io.EOF {
			return f, nil
		} else if err != nil {
			return nil, formReadError(err)
		}
		if p.FileName() != "" {
			f.file = p
			return f, nil
		}
		if err := f.readField(p); err != nil {
			return nil, err
		}
	}
}

// readField reads one plain field into f.values.
func (f *streamForm) readField(p *multipart.Part) error {
	b, err := io.ReadAll(io.LimitReader(p, maxFieldBytes+1))
	if err != nil {
		return formReadError(err)
	}
	if len(b) > maxFieldBytes {
		return errFieldTooLong
	}
	if err := checkField(p.FormName(), string(b)); err != nil {
		return err
	}
	f.values.Add(p.FormName(), string(b))
	return nil
}

// rest reads the plain fields after the file (whose unread bytes are
// skipped); a second file is skipped too.
func (f *streamForm) rest() error {
	for {
		p, err := f.mr.NextPart()
		if err == io.EOF {
			return nil
		} else if err != nil {
			return formReadError(err)
		}
		if p.FileName() != "" {
			continue
		}
		if err := f.readField(p); err != nil {
			return err
		}
	}
}

func formReadError(err error) error {
	if isTooLarge(err) {
		return errTooLarge
	}
	return &pageError{status: http.StatusBadRequest, msg: "This form could not be read: " + err.Error()}
}

func withStreamForm(r *http.Request, f *streamForm) *http.Request {
	return r.WithContext(context.WithValue(r.Context(), streamFormKey{}, f))
}

// streamFormOf returns the streamed form authenticate opened, or nil.
func streamFormOf(r *http.Request) *streamForm {
	f, _ := r.Context().Value(streamFormKey{}).(*streamForm)
	return f
}
