// Package openapitest validates real HTTP exchanges against an OpenAPI 3.0
// document for tests, with kin-openapi, and records which documented answers
// a test produced, so a test can fail on one it never exercised. The edge
// API's tests (api/openapi.yaml) and the management API's tests
// (api/manage.openapi.yaml) share it.
package openapitest

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	legacyrouter "github.com/getkin/kin-openapi/routers/legacy"
)

// Doc is a loaded document, its router, and the answers produced so far.
type Doc struct {
	Spec   *openapi3.T
	Router routers.Router
	// Seen holds "METHOD /path/{param} STATUS" for every answer checked.
	Seen map[string]bool
}

// Load loads file and fails the test unless it is a valid OpenAPI 3.0.x
// document.
func Load(t testing.TB, file string) *Doc {
	t.Helper()
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromFile(file)
	if err != nil {
		t.Fatalf("loading %s: %v", file, err)
	}
	if err := doc.Validate(loader.Context); err != nil {
		t.Fatalf("%s is not a valid OpenAPI document: %v", file, err)
	}
	if !strings.HasPrefix(doc.OpenAPI, "3.0.") {
		t.Fatalf("openapi: %s, want 3.0.x", doc.OpenAPI)
	}
	router, err := legacyrouter.NewRouter(doc)
	if err != nil {
		t.Fatal(err)
	}
	return &Doc{Spec: doc, Router: router, Seen: map[string]bool{}}
}

// Answer is what a server answered, as CheckAnswer validates it.
type Answer struct {
	Status int
	Header http.Header
	// Body is the body as sent; Decoded is it without its
	// Content-Encoding, read only when Header names one.
	Body, Decoded []byte
	// NoBody is set for answers that carry no body (HEAD).
	NoBody bool
}

// CheckAnswer fails the test unless the answer to the request of in is
// documented for its operation and matches the document (status, headers,
// body), and records it in Seen. The document describes bodies without
// their content coding, as a client reads them.
func (d *Doc) CheckAnswer(t testing.TB, what string, in *openapi3filter.RequestValidationInput, a Answer) {
	t.Helper()
	route := in.Route
	respRef := route.Operation.Responses.Status(a.Status)
	if respRef == nil || respRef.Value == nil {
		t.Fatalf("%s: status %d is not documented for %s %s; body %s", what, a.Status, route.Method, route.Path, a.Body)
	}
	decoded := a.Body
	if a.Header.Get("Content-Encoding") != "" {
		decoded = a.Decoded
	}
	out := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: in,
		Status:                 a.Status,
		Header:                 a.Header,
		Body:                   io.NopCloser(bytes.NewReader(decoded)),
		Options: &openapi3filter.Options{
			IncludeResponseStatus: true,
			MultiError:            true,
			ExcludeResponseBody:   a.NoBody,
		},
	}
	if err := openapi3filter.ValidateResponse(context.Background(), out); err != nil {
		t.Fatalf("%s: answer %d does not match the document: %v\nheaders: %v\nbody: %s", what, a.Status, err, a.Header, a.Body)
	}
	// What the library leaves out: it skips 304 answers entirely, and does
	// not check that a response documented without content has none.
	resp := respRef.Value
	if err := CheckHeaders(resp, a.Header); err != nil {
		t.Fatalf("%s: answer %d: %v", what, a.Status, err)
	}
	if len(resp.Content) == 0 && (len(a.Body) != 0 || a.Header.Get("Content-Type") != "") {
		t.Fatalf("%s: answer %d is documented without content, got Content-Type %q body %q",
			what, a.Status, a.Header.Get("Content-Type"), a.Body)
	}
	d.Seen[route.Method+" "+route.Path+" "+strconv.Itoa(a.Status)] = true
}

// CheckHeaders checks an answer's headers against a documented response
// on its own: required headers are present, once, and every documented
// header matches its schema.
func CheckHeaders(resp *openapi3.Response, h http.Header) error {
	for name, ref := range resp.Headers {
		hd := ref.Value
		vals := h.Values(name)
		if len(vals) == 0 {
			if hd.Required {
				return errors.New("required header " + name + " is missing")
			}
			continue
		}
		if len(vals) > 1 {
			return errors.New("header " + name + " is repeated")
		}
		s := hd.Schema.Value
		var v any = vals[0]
		if s.Type.Is("integer") {
			n, err := strconv.ParseInt(vals[0], 10, 64)
			if err != nil {
				return errors.New("header " + name + " = " + vals[0] + " is not an integer")
			}
			v = float64(n)
		}
		if err := s.VisitJSON(v); err != nil {
			return errors.New("header " + name + ": " + err.Error())
		}
	}
	return nil
}

// Unseen returns, sorted, every documented "METHOD /path STATUS" that is
// not in Seen.
func (d *Doc) Unseen() []string {
	var out []string
	for path, item := range d.Spec.Paths.Map() {
		for method, op := range item.Operations() {
			for status := range op.Responses.Map() {
				if k := method + " " + path + " " + status; !d.Seen[k] {
					out = append(out, k)
				}
			}
		}
	}
	sort.Strings(out)
	return out
}
