package http

import (
	"bytes"
	"cmp"
	"errors"
	"net/url"
	"strconv"
	"strings"
	"unsafe"

	"redirects"
	"redirects/engine/pattern"
)

// query holds the parameters of an edge request.
type query struct {
	project, path, format, version string
	// host is the lookup's host (docs/contract.md#hosts), "" for none;
	// hostBad its first malformed escape or repetition, which only a
	// lookup reports (an export ignores the parameter).
	host       string
	hostBad    *apiError
	hasVersion bool
	versionN   int
	// wait is the export's long-poll (docs/contract.md#the-change-feed):
	// how long to hold an answer that would be 304 for a new deployment.
	wait    string
	hasWait bool
	waitN   int
	// versionHuge holds a version too large to be one, for the not-found
	// answer.
	versionHuge string
	// bad is the first malformed or repeated parameter, badParam its name.
	bad      *apiError
	badParam string
}

// check validates the parameters in docs/contract.md's order and parses version.
func (q *query) check(lookup bool) *apiError {
	if q.project == "" && q.badParam != "project" {
		return errMissingProject
	}
	if q.bad != nil {
		return q.bad
	}
	if lookup {
		if q.hostBad != nil {
			return q.hostBad
		}
		if q.host != "" && !validHost(q.host) {
			return errInvalidHost
		}
		if q.path == "" {
			return errMissingPath
		}
		if q.path[0] != '/' || len(q.path) > redirects.MaxSourceLen {
			return errInvalidPath
		}
		// The path is matched percent-decoded once more, as nginx and
		// HAProxy match a request path (docs/contract.md#matching), so an
		// escape that cannot decode is refused as nginx refuses it.
		if strings.IndexByte(q.path, '%') >= 0 {
			if _, err := redirects.DecodePath(q.path); err != nil {
				return errPathEscape
			}
		}
	} else {
		if q.format == "" {
			return errMissingFormat
		}
		if redirects.FormatExtension(q.format) == "" {
			return errInvalidFormat
		}
	}
	if !lookup && q.hasWait {
		w, err := strconv.Atoi(q.wait)
		if err != nil || !allDigits(q.wait) || w > MaxWait {
			return errInvalidWait
		}
		if q.hasVersion && w > 0 {
			return errWaitVersion
		}
		q.waitN = w
	}
	if q.hasVersion {
		v, err := strconv.Atoi(q.version)
		if err != nil && allDigits(q.version) && strings.Trim(q.version, "0") != "" {
			// A positive whole number too large for any version: valid here,
			// and not found once the project has been checked.
			q.versionHuge = strings.TrimLeft(q.version, "0")
			return nil
		}
		if err != nil || v <= 0 {
			return errInvalidVersion
		}
		q.versionN = v
	}
	return nil
}

// parseQuery reads the parameters the edge knows, once each; others are
// ignored. A malformed escape or a repeated known parameter is recorded in
// q.bad (the first one found) for check to report after MISSING_PROJECT,
// which docs/contract.md puts first.
func parseQuery(raw string) query { return parseQueryInto(raw, nil) }

// parseQueryInto is parseQuery with the values that have escapes
// unescaped into *buf (appended after what it holds; nil: allocated), so
// that a lookup whose path parameter is percent-encoded whole (a client's
// encodeURIComponent: "%2F" for each slash) allocates nothing on the
// evhttp engine. The values are then views of *buf, valid until the
// connection's next request: what outlives the answer clones them.
func parseQueryInto(raw string, buf *[]byte) query {
	var q query
	var seen [6]bool
	bad := func(e *apiError, param string) {
		if q.bad == nil {
			q.bad, q.badParam = e, param
		}
	}
	for raw != "" {
		var pair string
		pair, raw, _ = strings.Cut(raw, "&")
		if pair == "" {
			continue
		}
		k, v, _ := strings.Cut(pair, "=")
		if strings.IndexByte(k, '%') >= 0 || strings.IndexByte(k, '+') >= 0 {
			uk, err := url.QueryUnescape(k)
			if err != nil {
				bad(errBadQuery("Malformed query string: bad escape in a parameter name"), "")
				continue
			}
			k = uk
		}
		var i int
		var dst *string
		switch k {
		case "project":
			i, dst = 0, &q.project
		case "path":
			i, dst = 1, &q.path
		case "format":
			i, dst = 2, &q.format
		case "version":
			i, dst = 3, &q.version
			q.hasVersion = true
		case "wait":
			i, dst = 4, &q.wait
			q.hasWait = true
		case "host":
			i, dst = 5, &q.host
		default:
			continue
		}
		if seen[i] {
			if k == "host" {
				q.hostBad = cmp.Or(q.hostBad, errRepeatedHost)
				continue
			}
			bad(errBadQuery("Repeated "+k+" parameter"), k)
			continue
		}
		seen[i] = true
		if strings.IndexByte(v, '%') >= 0 || strings.IndexByte(v, '+') >= 0 {
			var uv string
			var err error
			if buf != nil {
				uv, err = unescapeInto(buf, v)
			} else {
				uv, err = url.QueryUnescape(v)
			}
			if err != nil && k == "host" {
				q.hostBad = cmp.Or(q.hostBad, errHostEscape)
				continue
			}
			if err != nil {
				bad(errBadQuery("Malformed query string: bad escape in the "+k+" parameter"), k)
				continue
			}
			v = uv
		}
		*dst = v
	}
	return q
}

// errBadEscape is unescapeInto's error; the answer names the parameter,
// not the escape.
var errBadEscape = errors.New("bad escape")

// unescapeInto is url.QueryUnescape (a '+' is a space, a '%' takes two hex
// digits) appending the result to *buf and returning a view of it.
func unescapeInto(buf *[]byte, s string) (string, error) {
	b, start := *buf, len(*buf)
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '%':
			if i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2]) {
				*buf = b[:start]
				return "", errBadEscape
			}
			b = append(b, unhex(s[i+1])<<4|unhex(s[i+2]))
			i += 2
		case '+':
			b = append(b, ' ')
		default:
			b = append(b, c)
		}
	}
	*buf = b
	if len(b) == start {
		return "", nil
	}
	return unsafe.String(&b[start], len(b)-start), nil
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c >= 'a':
		return c - 'a' + 10
	}
	return c - 'A' + 10
}

// validHost reports whether h is a request's host as docs/contract.md#hosts
// defines it (a wildcard names rules' hosts, never a request's), without
// allocating for an ASCII host.
func validHost(h string) bool {
	var buf [256]byte
	k, ok := pattern.AppendHostKey(buf[:0], h)
	return ok && bytes.IndexByte(k, '*') < 0
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}
