// Package export renders a deployment's rules into the seven export files of
// docs/contract.md (csv, nginx, nginx-map-exact, nginx-map-prefix, haproxy,
// haproxy-map-exact, haproxy-map-prefix) with the shapes its "Exports"
// section fixes, and reports at deploy time what a format cannot express. It
// also reads and writes the CSV import file (ReadRules and ReadCSV,
// WriteCSV, and WriteDraftCSV with each rule's ID), so the CLI, the
// management API and the benchmark tools share one reader and one writer.
//
// Render is the redirects.Builder a deploy calls; the Render<Format>
// functions render one file each. Every renderer takes validated rules in any
// order and orders them itself, leaving the caller's slice alone; rules in
// the order of engine.SortRules, as a deploy hands them over, are not
// sorted again. The snippets
// that wire the files into nginx and HAProxy are constants of this package,
// quoted in the map files' leading comments, in docs/exports.md and used
// verbatim by the tests that run real nginx and haproxy.
package export

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"runtime"
	"sync"

	"redirects"
	"redirects/internal/coding"
)

// Render renders all seven export files of rules, in the order of
// redirects.Formats, each with a strong ETag and its gzip and zstd
// encodings (see Encode), and the deploy-time report of what the formats
// cannot express, for the default settings. Build is the same with a
// project's settings, the redirects.Builder a deploy calls.
// The rules must be valid (see redirects.Rule.Validate); they may come in any
// order and are not modified.
func Render(rules []redirects.Rule) (*redirects.DeployContent, error) {
	return Build(rules, redirects.Settings{})
}

// renderers renders the files of redirects.Formats, in its order.
var renderers = []func(*sorted) []byte{
	(*sorted).csv,
	(*sorted).nginx,
	(*sorted).nginxMapExact,
	(*sorted).nginxMapPrefix,
	(*sorted).haproxy,
	(*sorted).haproxyMapExact,
	(*sorted).haproxyMapPrefix,
}

func init() {
	if len(renderers) != len(redirects.Formats) {
		panic("export: the renderers do not match redirects.Formats")
	}
}

// checkMatchTypes returns the EINVALID error of the first rule with an
// unknown match type.
func checkMatchTypes(rules []redirects.Rule) error {
	for i := range rules {
		if rules[i].MatchType > redirects.Regex {
			return redirects.Errorf(redirects.EINVALID, "rule %d has an unknown match type %d", rules[i].ID, rules[i].MatchType)
		}
	}
	return nil
}

// Stream is Build rendering one file at a time: it sorts the rules and
// makes the report at once, and returns the seven files in the content's
// Each, which renders, hashes and compresses each only when it comes to
// it and keeps none after handing it on. The files are byte for byte
// Build's. It is the redirects.Builder of the CLI, the management API and
// the dashboard: a deploy stores each file before the next is rendered,
// so at a million rules it holds the largest file and its encodings
// instead of all seven (docs/operations.md, "Deploy memory"). The rules
// must stay unchanged until Each has returned.
func Stream(rules []redirects.Rule, settings redirects.Settings) (*redirects.DeployContent, error) {
	if err := checkMatchTypes(rules); err != nil {
		return nil, err
	}
	s := sortRules(rules, settings)
	out := &redirects.DeployContent{Report: s.report()}
	out.Each = func(yield func(*redirects.Export) error) error {
		for i, render := range renderers {
			e := Encode(redirects.Formats[i], render(s))
			if err := yield(&e); err != nil {
				return err
			}
		}
		return nil
	}
	return out, nil
}

// Build is Render for a project's settings; it has the signature of
// redirects.Builder. It renders the seven files in parallel and holds them
// all; Stream renders them one at a time.
func Build(rules []redirects.Rule, settings redirects.Settings) (*redirects.DeployContent, error) {
	if err := checkMatchTypes(rules); err != nil {
		return nil, err
	}
	s := sortRules(rules, settings)
	out := &redirects.DeployContent{Exports: make([]redirects.Export, len(renderers))}

	// The formats are independent, so they render (and hash and compress)
	// in parallel: at a million rules each takes a few hundred milliseconds.
	jobs := make(chan int)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(renderers)) {
		wg.Go(func() {
			for i := range jobs {
				body := renderers[i](s)
				out.Exports[i] = Encode(redirects.Formats[i], body)
			}
		})
	}
	wg.Go(func() { out.Report = s.report() })
	for i := range renderers {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	return out, nil
}

// Encode returns the export file of format with body: its strong ETag and
// its gzip and zstd encodings, compressed once here so that the edge never
// compresses per request.
//
// The gzip encoding is made on a goroutine of its own, beside the hash and
// the zstd encoding: the files differ in size by up to twenty times, and
// splitting the largest file's work keeps one core from finishing it alone
// while the other idles.
func Encode(format string, body []byte) redirects.Export {
	var gz []byte
	var wg sync.WaitGroup
	wg.Go(func() { gz = coding.GzipBytes(body) })
	etag := ETag(body)
	zst := coding.ZstdBytes(body)
	wg.Wait()
	return redirects.Export{Format: format, Body: body, ETag: etag, Encodings: []redirects.Encoding{
		{Coding: coding.Zstd, Body: zst, ETag: redirects.EncodingETag(etag, coding.Zstd)},
		{Coding: coding.Gzip, Body: gz, ETag: redirects.EncodingETag(etag, coding.Gzip)},
	}}
}

// ETag returns the strong entity tag of an export body: the first 16 bytes
// of its SHA-256 in hex, in quotes. Half a SHA-256 is far more than enough
// to tell two versions of a file apart and keeps the header short.
func ETag(body []byte) string {
	sum := sha256.Sum256(body)
	b := make([]byte, 0, 34)
	b = append(b, '"')
	b = hex.AppendEncode(b, sum[:16])
	b = append(b, '"')
	return string(b)
}

// RenderCSV renders the csv export: the header
// source,destination,statusCode,matchType, then one record per rule, exact
// rules by source bytes, then starts_with rules in priority order. Records
// end with CRLF and a field holding a comma, quote or line break is quoted,
// as RFC 4180 says.
func RenderCSV(rules []redirects.Rule) []byte { return sortRules(rules, redirects.Settings{}).csv() }

// RenderNginx renders the nginx export, to include in a server block: a
// "location =" block per exact rule and a "location ^~" block per
// starts_with source, each section sorted by source bytes. Sources longer
// than 255 bytes are left out: nginx 1.22 mishandles such locations.
func RenderNginx(rules []redirects.Rule) []byte {
	return sortRules(rules, redirects.Settings{}).nginx()
}

// RenderNginxMapExact renders the nginx-map-exact export: the exact rules as
// "map $uri $redirect_exact", to include in the http block.
func RenderNginxMapExact(rules []redirects.Rule) []byte {
	return sortRules(rules, redirects.Settings{}).nginxMapExact()
}

// RenderNginxMapPrefix renders the nginx-map-prefix export: the starts_with
// rules as anchored regular expressions of "map $uri $redirect_prefix", in
// priority order, to include in the http block.
func RenderNginxMapPrefix(rules []redirects.Rule) []byte {
	return sortRules(rules, redirects.Settings{}).nginxMapPrefix()
}

// RenderHAProxy renders the haproxy export, to paste into a frontend: an ACL
// and an http-request redirect per rule, exact rules first, then starts_with
// rules in priority order.
func RenderHAProxy(rules []redirects.Rule) []byte {
	return sortRules(rules, redirects.Settings{}).haproxy()
}

// RenderHAProxyMapExact renders the haproxy-map-exact export, a map file of
// "<source> <destination>" lines for map_str.
func RenderHAProxyMapExact(rules []redirects.Rule) []byte {
	return sortRules(rules, redirects.Settings{}).haproxyMapExact()
}

// RenderHAProxyMapPrefix renders the haproxy-map-prefix export, a map file
// of "<source> <status> <destination>" lines for map_beg.
func RenderHAProxyMapPrefix(rules []redirects.Rule) []byte {
	return sortRules(rules, redirects.Settings{}).haproxyMapPrefix()
}

// RenderFormat renders one export file by its format name for the default
// settings, or returns nil and false for a name not in redirects.Formats.
func RenderFormat(format string, rules []redirects.Rule) ([]byte, bool) {
	return BuildFormat(format, rules, redirects.Settings{})
}

// Report returns the deploy-time report of rules under settings, what Build
// puts in DeployContent.Report: one line per thing some format answers
// otherwise than the lookup API, as each file's opening "# Differs:" lines
// declare it, or "" when every format answers as the API. It renders no
// file, so the dashboard can show it before a deploy.
func Report(rules []redirects.Rule, settings redirects.Settings) string {
	return sortRules(rules, settings).report()
}

// BuildFormat is RenderFormat for a project's settings.
func BuildFormat(format string, rules []redirects.Rule, settings redirects.Settings) ([]byte, bool) {
	s := sortRules(rules, settings)
	switch format {
	case "csv":
		return s.csv(), true
	case "nginx":
		return s.nginx(), true
	case "nginx-map-exact":
		return s.nginxMapExact(), true
	case "nginx-map-prefix":
		return s.nginxMapPrefix(), true
	case "haproxy":
		return s.haproxy(), true
	case "haproxy-map-exact":
		return s.haproxyMapExact(), true
	case "haproxy-map-prefix":
		return s.haproxyMapPrefix(), true
	}
	return nil, false
}

// appendStatus appends a status code: 301 and 302 without formatting, the
// other statuses of redirects.StatusCodes (and any value, rather than lose
// it) as a number.
func appendStatus(b []byte, code int32) []byte {
	switch code {
	case 301:
		return append(b, "301"...)
	case 302:
		return append(b, "302"...)
	}
	return fmt.Appendf(b, "%d", code)
}
