package manage

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"strconv"
	"strings"

	"redirects"
	"redirects/api"
)

// apiError is one error answer: the HTTP status, the API's code and a
// message for people. Every error the API sends passes through errorFor,
// so the mapping from conditions to the wire lives in this file alone.
type apiError struct {
	status int
	code   string
	msg    string
	// retryAfter, when positive, is sent as Retry-After (seconds).
	retryAfter int
	// allow, when set, is sent as Allow (405).
	allow string
}

func (e *apiError) Error() string { return e.msg }

func newError(status int, code, format string, args ...any) *apiError {
	return &apiError{status: status, code: code, msg: fmt.Sprintf(format, args...)}
}

// The API's error codes that no domain error carries.
const (
	codeInvalidJSON      = "INVALID_JSON"
	codeUnknownField     = "UNKNOWN_FIELD"
	codeMissingField     = "MISSING_FIELD"
	codeInvalidQuery     = "INVALID_QUERY"
	codeBodyTooLarge     = "BODY_TOO_LARGE"
	codeUnsupportedMedia = "UNSUPPORTED_MEDIA_TYPE"
	codeMethod           = "METHOD_NOT_ALLOWED"
	codeCSRF             = "CSRF_TOKEN_INVALID"
	codeLoginLimit       = "TOO_MANY_LOGIN_ATTEMPTS"
	codePasswordChange   = "PASSWORD_CHANGE_REQUIRED"
	codeConfirm          = "CONFIRMATION_MISMATCH"
	codeConfirmRequired  = "CONFIRMATION_REQUIRED"
	codeUnauthenticated  = "UNAUTHENTICATED"
)

// errorFor maps an error to its answer: an *apiError as it is, a domain
// error by its code, anything else as a 500 that tells nothing.
func errorFor(err error) *apiError {
	var ae *apiError
	if errors.As(err, &ae) {
		return ae
	}
	var le *redirects.SignInLimitError
	if errors.As(err, &le) {
		return &apiError{status: http.StatusTooManyRequests, code: codeLoginLimit, msg: le.Error(), retryAfter: le.RetryAfter()}
	}
	if errors.Is(err, redirects.ErrPasswordsBusy) {
		return &apiError{status: http.StatusServiceUnavailable, code: "SERVICE_UNAVAILABLE", msg: redirects.ErrPasswordsBusy.Error(), retryAfter: redirects.PasswordsBusyRetryAfter}
	}
	msg := redirects.ErrorMessage(err)
	switch redirects.ErrorCode(err) {
	case redirects.ENOTFOUND:
		return &apiError{status: http.StatusNotFound, code: "NOT_FOUND", msg: msg}
	case redirects.EINVALID:
		return &apiError{status: http.StatusBadRequest, code: "INVALID_INPUT", msg: msg}
	case redirects.ECONFLICT:
		return &apiError{status: http.StatusConflict, code: "CONFLICT", msg: msg}
	case redirects.EREVISION:
		return &apiError{status: http.StatusConflict, code: "REVISION_CONFLICT", msg: msg}
	case redirects.EFORBIDDEN:
		return &apiError{status: http.StatusForbidden, code: "FORBIDDEN", msg: msg}
	case redirects.EUNAUTHORIZED:
		return &apiError{status: http.StatusUnauthorized, code: codeUnauthenticated, msg: msg}
	case redirects.EUNAVAILABLE:
		return &apiError{status: http.StatusServiceUnavailable, code: "SERVICE_UNAVAILABLE", msg: "The database cannot be reached; try again shortly."}
	}
	return &apiError{status: http.StatusInternalServerError, code: "INTERNAL_ERROR", msg: "Internal error."}
}

// fail answers err. A 500 is logged with what went wrong; the caller sees
// no detail of it.
func (h *handler) fail(w http.ResponseWriter, r *http.Request, err error) {
	e := errorFor(err)
	if e.status >= 500 {
		h.logger.Error("management API", "method", r.Method, "path", r.URL.Path, "error", err)
	}
	if e.retryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(e.retryAfter))
	}
	if e.allow != "" {
		w.Header().Set("Allow", e.allow)
	}
	if e.status == http.StatusUnauthorized {
		w.Header().Set("WWW-Authenticate", `Bearer realm="redirects"`)
	}
	writeJSON(w, e.status, api.Error{Error: e.msg, Code: e.code})
}

// writeJSON answers v as JSON with status.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.Encode(v) // a failed write is the client's loss
}

// notFound is the 404 of a thing addressed by ID, the same whether it is
// missing or belongs to an organization the caller has no role in.
func notFound(what, id string) *apiError {
	return newError(http.StatusNotFound, "NOT_FOUND", "%s %q not found", what, id)
}

// badQuery is a 400 for a query parameter.
func badQuery(format string, args ...any) *apiError {
	return newError(http.StatusBadRequest, codeInvalidQuery, format, args...)
}

// missingField is a 400 for a required JSON field that is absent.
func missingField(name string) *apiError {
	return newError(http.StatusBadRequest, codeMissingField, "the field %q is required", name)
}

// hasBody reports whether a request may carry a body: a length that is
// not zero, or unknown (chunked, or HTTP/2 without a length).
func hasBody(r *http.Request) bool {
	return r.ContentLength != 0
}

// checkJSONType refuses a body that is not declared application/json: a
// form or text body is a mistake, and a cross-site form cannot send this
// type without a CORS preflight, which this API never grants.
func checkJSONType(r *http.Request) error {
	ct := r.Header.Get("Content-Type")
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil || mt != "application/json" {
		if ct == "" {
			ct = "none"
		}
		return newError(http.StatusUnsupportedMediaType, codeUnsupportedMedia, "Content-Type is %s; send application/json", ct)
	}
	return nil
}

// decodeJSON reads the request body into v strictly: application/json,
// at most maxBody bytes, one JSON value, no unknown fields. With optional,
// an empty body leaves v as it is. Errors name the field or byte that is
// wrong.
func (h *handler) decodeJSON(w http.ResponseWriter, r *http.Request, v any, optional bool) error {
	return h.decodeJSONMax(w, r, v, optional, h.maxBody)
}

// MaxSignInBytes caps the body of a sign-in (the API's and the
// dashboard's): an email address and a password take far less, and an
// anonymous caller gets no more.
const MaxSignInBytes = 8 << 10

// decodeJSONMax is decodeJSON with a cap of its own on the body.
func (h *handler) decodeJSONMax(w http.ResponseWriter, r *http.Request, v any, optional bool, maxBody int64) error {
	if optional && !hasBody(r) {
		return nil
	}
	if err := checkJSONType(r); err != nil {
		return err
	}
	if r.ContentLength > maxBody {
		return jsonError(&http.MaxBytesError{Limit: maxBody}, maxBody)
	}
	// The body is read whole (it is small) and checked before decoding:
	// encoding/json would turn invalid UTF-8 into U+FFFD without a word.
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
	if err != nil {
		return jsonError(err, maxBody)
	}
	if err := checkJSONUTF8(body); err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return jsonError(err, maxBody)
	}
	if _, err := dec.Token(); err != io.EOF {
		return newError(http.StatusBadRequest, codeInvalidJSON, "the body holds more than one JSON value; send one object")
	}
	return checkJSONEscapes(body)
}

// jsonError maps a decoding error to its answer.
func jsonError(err error, maxBody int64) error {
	var (
		mbe *http.MaxBytesError
		se  *json.SyntaxError
		te  *json.UnmarshalTypeError
		de  *redirects.Error
	)
	switch {
	case errors.As(err, &mbe):
		return newError(http.StatusRequestEntityTooLarge, codeBodyTooLarge, "the body is larger than the %d bytes allowed", maxBody)
	case errors.Is(err, io.EOF):
		return newError(http.StatusBadRequest, codeInvalidJSON, "the body is empty; send a JSON object")
	case errors.Is(err, io.ErrUnexpectedEOF):
		return newError(http.StatusBadRequest, codeInvalidJSON, "the JSON body ends early")
	case errors.As(err, &se):
		return newError(http.StatusBadRequest, codeInvalidJSON, "malformed JSON at byte %d: %s", se.Offset, strings.TrimPrefix(se.Error(), "json: "))
	case errors.As(err, &te):
		if te.Field == "" {
			return newError(http.StatusBadRequest, codeInvalidJSON, "the body is a JSON %s; send an object", te.Value)
		}
		return newError(http.StatusBadRequest, codeInvalidJSON, "the field %q must be %s, not a JSON %s", te.Field, jsonKind(te.Type.Kind().String()), te.Value)
	case errors.As(err, &de):
		return de
	}
	if f, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		name, _ := strconv.Unquote(f)
		return newError(http.StatusBadRequest, codeUnknownField, "the field %q is not one of this request's fields", name)
	}
	return newError(http.StatusBadRequest, codeInvalidJSON, "the body is not valid JSON: %s", strings.TrimPrefix(err.Error(), "json: "))
}

// jsonKind names a Go kind as a JSON type.
func jsonKind(k string) string {
	switch k {
	case "string":
		return "a string"
	case "bool":
		return "true or false"
	case "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64":
		return "a whole number"
	case "float32", "float64":
		return "a number"
	case "slice", "array":
		return "an array"
	case "struct", "map":
		return "an object"
	}
	return "of another type"
}

// query returns a query parameter, refusing one that is given twice.
func query(r *http.Request, name string) (string, error) {
	vs := r.URL.Query()[name]
	switch len(vs) {
	case 0:
		return "", nil
	case 1:
		return vs[0], nil
	}
	return "", badQuery("the query parameter %q is given %d times; give it once", name, len(vs))
}

// queryInt returns a whole-number query parameter, or 0 when absent.
func queryInt(r *http.Request, name string) (int, error) {
	s, err := query(r, name)
	if err != nil || s == "" {
		return 0, err
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		return 0, badQuery("the query parameter %q is %q, not a whole number", name, s)
	}
	return n, nil
}

// Unavailable returns a handler that answers every request 503
// SERVICE_UNAVAILABLE, with the headers of every answer: the listener's
// handler while its store cannot be reached yet.
func Unavailable() http.Handler {
	h := &handler{logger: slog.New(slog.DiscardHandler)}
	return h.headers(h.serve(func(w http.ResponseWriter, _ *http.Request) error {
		w.Header().Set("Retry-After", "1")
		return redirects.Errorf(redirects.EUNAVAILABLE, "the database cannot be reached")
	}))
}
