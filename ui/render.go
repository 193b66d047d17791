package ui

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strconv"
	"strings"
	"time"

	"redirects"
)

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static
var staticFS embed.FS

// asset is one static file, served under its hashed name forever.
type asset struct {
	body        []byte
	contentType string
}

// assets maps hashed names (app.1a2b3c4d5e.css) to files, and assetNames
// plain names to hashed ones.
var assets, assetNames = loadAssets()

func loadAssets() (map[string]asset, map[string]string) {
	byHash, names := map[string]asset{}, map[string]string{}
	entries, err := fs.ReadDir(staticFS, "static")
	if err != nil {
		panic(err)
	}
	for _, e := range entries {
		body, err := staticFS.ReadFile("static/" + e.Name())
		if err != nil {
			panic(err)
		}
		sum := sha256.Sum256(body)
		ext := path.Ext(e.Name())
		hashed := strings.TrimSuffix(e.Name(), ext) + "." + hex.EncodeToString(sum[:5]) + ext
		byHash[hashed] = asset{body: body, contentType: mime.TypeByExtension(ext)}
		names[e.Name()] = hashed
	}
	return byHash, names
}

// serveStatic serves an asset by its hashed name, cached for a year: a
// changed file has another name.
func serveStatic(w http.ResponseWriter, r *http.Request) error {
	a, ok := assets[r.PathValue("name")]
	if !ok {
		http.NotFound(w, r)
		return nil
	}
	w.Header().Set("Content-Type", a.contentType)
	w.Header().Set("Cache-Control", "public, max-age=31536000, immutable")
	w.Write(a.body)
	return nil
}

// page is what every template gets: the frame (title, user, organization
// switcher, flash message, CSRF token) and the page's own Data.
type page struct {
	Title string
	User  *redirects.User
	// Orgs are the organizations of the switcher; Org is the current one.
	Orgs []*redirects.Org
	Org  *redirects.Org
	// Project and Tab are set on project pages.
	Project *projectHeader
	Tab     string
	CSRF    string
	Flash   *flash
	// OrgTabs are the tabs of organization pages.
	OrgTabs []tab
	Data    any
}

var funcs = template.FuncMap{
	"asset":   func(name string) string { return "/static/" + assetNames[name] },
	"num":     numText,
	"num64":   func(n int64) string { return thousands(int(n)) },
	"int64":   func(l redirects.Limit) int64 { return int64(l) },
	"ago":     func(t time.Time) string { return ago(time.Now(), t) },
	"utc":     func(t time.Time) string { return t.UTC().Format("2006-01-02 15:04:05 UTC") },
	"plural":  plural,
	"query":   func(v map[string]string) template.URL { return template.URL(encodeQuery(v)) },
	"orgTell": orgTell,
	"icon":    icon,
	"changes": auditChanges,
	// statusTitle and optionWords show rule options (ruleopts.go).
	"statusTitle": statusTitle,
	"optionWords": optionWords,
	// lastAttempt is a webhook delivery's last attempt, or nil.
	"lastAttempt": func(d *redirects.WebhookDelivery) *redirects.WebhookAttempt {
		if len(d.Attempts) == 0 {
			return nil
		}
		return &d.Attempts[len(d.Attempts)-1]
	},
	"millis": func(d time.Duration) string { return d.Round(time.Millisecond).String() },
	// capName names a capture as a destination of a rule of match type
	// mt writes it: ":lang", "$1", "${id}".
	"capName": func(mt, name string) string {
		m, _ := redirects.ParseMatchType(mt)
		return captureName(m, name)
	},
	// fieldErr pairs a rule form's field error with its element's id.
	"fieldErr": func(e *fieldError, id string) fieldErrorView { return fieldErrorView{E: e, ID: id} },
}

// orgTell returns what tells the organization o apart from the others of
// orgs with the same name (the end of its ID, "…k3Lm"), or "" when its name
// is its own.
func orgTell(orgs []*redirects.Org, o *redirects.Org) string {
	for _, x := range orgs {
		if x.ID != o.ID && x.Name == o.Name {
			return "…" + o.ID[max(0, len(o.ID)-4):]
		}
	}
	return ""
}

// templates holds one template set per page: the layout and the page.
var templates = parseTemplates()

func parseTemplates() map[string]*template.Template {
	out := map[string]*template.Template{}
	names, err := fs.Glob(templateFS, "templates/*.html")
	if err != nil {
		panic(err)
	}
	// Files named _*.html hold templates that several pages share (the
	// rule form): every page's set has them.
	partials, err := fs.Glob(templateFS, "templates/_*.html")
	if err != nil {
		panic(err)
	}
	for _, n := range names {
		base := strings.TrimSuffix(path.Base(n), ".html")
		if base == "layout" || strings.HasPrefix(base, "_") {
			continue
		}
		files := append([]string{"templates/layout.html"}, partials...)
		out[base] = template.Must(template.New("layout.html").Funcs(funcs).ParseFS(templateFS, append(files, n)...))
	}
	return out
}

// render writes a page: the flash message of the last redirect, the user's
// organizations for the switcher, and the CSRF token of the session.
func (h *handler) render(w http.ResponseWriter, r *http.Request, status int, name string, p *page) error {
	p.Flash = takeFlash(w, r, h.secure)
	p.OrgTabs = orgTabs
	if v := viewerOf(r); v != nil {
		p.User = v.user
		p.CSRF = v.session.CSRFToken
		orgs, err := h.visibleOrgs(r)
		if err != nil {
			return err
		}
		p.Orgs = orgs
	}
	var b bytes.Buffer
	if err := templates[name].Execute(&b, p); err != nil {
		return fmt.Errorf("render %s: %w", name, err)
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	w.Write(b.Bytes())
	return nil
}

// visibleOrgs returns the organizations the user has a role in, or every
// one for an operator: what the API's GET /orgs lists.
func (h *handler) visibleOrgs(r *http.Request) ([]*redirects.Org, error) {
	return h.svc.Orgs.Orgs(r.Context())
}

// flash is the message of the last action, shown once on the next page.
type flash struct {
	Error bool
	Text  string
}

const (
	flashCookie = "redirects_flash"
	flashOK     = "ok"
	flashErr    = "err"
)

func setFlash(w http.ResponseWriter, secure bool, kind, text string) {
	v := base64.RawURLEncoding.EncodeToString([]byte(kind + ":" + text))
	http.SetCookie(w, &http.Cookie{Name: flashCookie, Value: v, Path: "/", MaxAge: 60, HttpOnly: true, Secure: secure, SameSite: http.SameSiteLaxMode})
}

func takeFlash(w http.ResponseWriter, r *http.Request, secure bool) *flash {
	ck, err := r.Cookie(flashCookie)
	if err != nil {
		return nil
	}
	http.SetCookie(w, &http.Cookie{Name: flashCookie, Value: "", Path: "/", MaxAge: -1, HttpOnly: true, Secure: secure, SameSite: http.SameSiteLaxMode})
	b, err := base64.RawURLEncoding.DecodeString(ck.Value)
	if err != nil {
		return nil
	}
	kind, text, ok := strings.Cut(string(b), ":")
	if !ok || text == "" {
		return nil
	}
	return &flash{Error: kind == flashErr, Text: text}
}

// redirect ends an action: a flash message saying what happened and what
// to do next, and a redirect to the page that shows it.
func (h *handler) redirect(w http.ResponseWriter, r *http.Request, to, kind, text string) error {
	setFlash(w, h.secure, kind, text)
	http.Redirect(w, r, to, http.StatusSeeOther)
	return nil
}

// pageError is an error shown as a page with a status.
type pageError struct {
	status int
	msg    string
}

func (e *pageError) Error() string { return e.msg }

func errNotFound(what string) error {
	return &pageError{status: http.StatusNotFound, msg: "This " + what + " does not exist, or you have no access to it."}
}

// statusOf maps an error to the status of its page.
func statusOf(err error) int {
	var pe *pageError
	if errors.As(err, &pe) {
		return pe.status
	}
	switch redirects.ErrorCode(err) {
	case redirects.ENOTFOUND:
		return http.StatusNotFound
	case redirects.EFORBIDDEN:
		return http.StatusForbidden
	case redirects.EINVALID:
		return http.StatusBadRequest
	case redirects.ECONFLICT, redirects.EREVISION:
		return http.StatusConflict
	case redirects.EUNAVAILABLE:
		return http.StatusServiceUnavailable
	}
	return http.StatusInternalServerError
}

// message is what a person reads of an error: the domain's message for
// their mistakes, nothing internal for ours.
func message(err error) string {
	var pe *pageError
	if errors.As(err, &pe) {
		return pe.msg
	}
	if statusOf(err) == http.StatusInternalServerError {
		return "Something went wrong on our side; it is logged. Try again in a moment."
	}
	return sentence(redirects.ErrorMessage(err))
}

// fail shows an error page.
func (h *handler) fail(w http.ResponseWriter, r *http.Request, err error) {
	status := statusOf(err)
	if status == http.StatusInternalServerError {
		h.logger.Error("dashboard", "method", r.Method, "path", r.URL.Path, "error", err)
	}
	title := http.StatusText(status)
	if rerr := h.render(w, r, status, "error", &page{Title: title, Data: message(err)}); rerr != nil {
		h.logger.Error("dashboard: render the error page", "error", rerr)
		http.Error(w, title, status)
	}
}

// sentence capitalizes a message and ends it with a full stop.
func sentence(s string) string {
	if s == "" {
		return s
	}
	s = strings.ToUpper(s[:1]) + s[1:]
	if !strings.HasSuffix(s, ".") {
		s += "."
	}
	return s
}

// numText is thousands for the integer types templates hold.
func numText(n any) string {
	switch v := n.(type) {
	case int:
		return thousands(v)
	case int64:
		return thousands(int(v))
	case uint32:
		return thousands(int(v))
	}
	return fmt.Sprint(n)
}

// thousands writes n with comma separators: 1,000,000.
func thousands(n int) string {
	s := strconv.Itoa(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

func itoa(n int) string { return strconv.Itoa(n) }

// plural writes "1 rule" or "3 rules", "2 entries" (with thousands
// separators).
func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	if strings.HasSuffix(word, "y") && !strings.HasSuffix(word, "ey") {
		return thousands(n) + " " + word[:len(word)-1] + "ies"
	}
	return thousands(n) + " " + word + "s"
}

// ago writes how long before now t was: "just now", "3 minutes ago".
func ago(now, t time.Time) string {
	d := now.Sub(t)
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return plural(int(d/time.Minute), "minute") + " ago"
	case d < 48*time.Hour:
		return plural(int(d/time.Hour), "hour") + " ago"
	default:
		return plural(int(d/(24*time.Hour)), "day") + " ago"
	}
}
