package manage

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
	"unicode/utf8"
)

// checkJSONUTF8 refuses a JSON body that is not valid UTF-8, naming the
// field whose string holds the first bad byte and the byte's offset in the
// string as sent (escapes counted as written) and in the body. JSON must
// be UTF-8, and a name or rule must not be stored with U+FFFD where the
// sender had something else.
//
// A password field (passwordFields) is exempt: see checkJSONEscapes.
func checkJSONUTF8(body []byte) error {
	if utf8.Valid(body) {
		return nil
	}
	var spans [][2]int
	bad := 0
	for bad < len(body) {
		r, n := utf8.DecodeRune(body[bad:])
		if r == utf8.RuneError && n == 1 {
			if spans == nil {
				spans = passwordSpans(body)
			}
			if !inSpans(spans, bad) {
				break
			}
		}
		bad += n
	}
	if bad == len(body) {
		return nil
	}
	field, start := jsonStringAt(body, bad)
	switch {
	case field == "" || start < 0:
		return newError(http.StatusBadRequest, codeInvalidJSON, "the body is not valid UTF-8 at byte %d", bad)
	default:
		return newError(http.StatusBadRequest, "INVALID_INPUT", "%s is not valid UTF-8: byte %d of its value (byte %d of the body) is 0x%02X", field, bad-start, bad, body[bad])
	}
}

// checkJSONEscapes refuses a JSON body one of whose strings holds an
// escape of what no store keeps: NUL (\u0000, which PostgreSQL refuses in
// text) or half of a surrogate pair without its other half (\ud800, which
// encoding/json would turn into U+FFFD without a word). It names the field
// and the escape's offset in the string as sent and in the body. Every
// request body passes here (decodeJSONMax), so no field is left out but
// the password fields (passwordFields): a password is only hashed, never
// stored as text, so it is refused by no text check, at any door (the
// dashboard's forms and the command line exempt theirs too).
func checkJSONEscapes(body []byte) error {
	var spans [][2]int
	off, esc := badEscape(body, func(off int) bool {
		if spans == nil {
			spans = passwordSpans(body)
		}
		return inSpans(spans, off)
	})
	if off < 0 {
		return nil
	}
	field, start := jsonStringAt(body, off)
	if field == "" || start < 0 {
		field, start = "the body", 0
	}
	what := "a NUL character (\\u0000)"
	if esc != "\\u0000" {
		what = esc + ", half of a surrogate pair without its other half"
	}
	return newError(http.StatusBadRequest, "INVALID_INPUT", "%s holds %s at byte %d of its value (byte %d of the body)", field, what, off-start, off)
}

// badEscape returns the offset of the first \u escape in a string of body
// that is NUL or an unpaired surrogate, and the escape as written, but
// those at an offset exempt reports true for; -1 when there is none.
func badEscape(body []byte, exempt func(off int) bool) (int, string) {
	hex4 := func(i int) (rune, bool) {
		if i+6 > len(body) || body[i] != '\\' || body[i+1] != 'u' {
			return 0, false
		}
		n, err := strconv.ParseUint(string(body[i+2:i+6]), 16, 32)
		return rune(n), err == nil
	}
	inString := false
	for i := 0; i < len(body); i++ {
		switch c := body[i]; {
		case c == '"':
			inString = !inString
		case c == '\\' && inString && i+1 < len(body):
			r, ok := hex4(i)
			switch {
			case !ok:
				i++ // \", \\, \n...: skip the escaped byte
			case r == 0 || r >= 0xDC00 && r <= 0xDFFF:
				if !exempt(i) {
					return i, string(body[i : i+6])
				}
				i += 5
			case r >= 0xD800 && r < 0xDC00:
				if lo, ok := hex4(i + 6); !ok || lo < 0xDC00 || lo > 0xDFFF {
					if !exempt(i) {
						return i, string(body[i : i+6])
					}
					i += 5
					continue
				}
				i += 11
			default:
				i += 5
			}
		}
	}
	return -1, ""
}

// passwordFields are the fields of request bodies that hold a password:
// signing in (password) and changing it (currentPassword, newPassword).
var passwordFields = map[string]bool{"password": true, "currentPassword": true, "newPassword": true}

// passwordSpans returns where the string values of the top-level object's
// passwordFields are in body, from the opening quote to past the closing
// one; bytes that are not UTF-8 are read as '?' (one for one, so offsets
// hold). A body that is not a JSON object has none.
func passwordSpans(body []byte) [][2]int {
	clean := make([]byte, 0, len(body))
	for i := 0; i < len(body); {
		r, n := utf8.DecodeRune(body[i:])
		if r == utf8.RuneError && n == 1 {
			clean = append(clean, '?')
		} else {
			clean = append(clean, body[i:i+n]...)
		}
		i += n
	}
	dec := json.NewDecoder(bytes.NewReader(clean))
	spans := [][2]int{}
	depth, wantKey, key, prev := 0, false, "", 0
	for {
		tok, err := dec.Token()
		if err != nil {
			return spans
		}
		end := int(dec.InputOffset())
		start := prev
		for start < end && clean[start] != '"' {
			start++
		}
		prev = end
		switch tok {
		case json.Delim('{'), json.Delim('['):
			if depth == 0 && tok != json.Delim('{') {
				return spans
			}
			if depth <= 1 {
				wantKey = true // the object's first key, or the key after this value
			}
			depth++
			continue
		case json.Delim('}'), json.Delim(']'):
			depth--
			continue
		}
		if depth != 1 {
			continue
		}
		if wantKey {
			key, wantKey = tok.(string), false
			continue
		}
		if _, ok := tok.(string); ok && passwordFields[key] {
			spans = append(spans, [2]int{start, end})
		}
		wantKey = true
	}
}

// inSpans reports whether off is within one of spans.
func inSpans(spans [][2]int, off int) bool {
	for _, s := range spans {
		if s[0] <= off && off < s[1] {
			return true
		}
	}
	return false
}

// jsonStringAt returns the name of the field whose key or value is the
// string holding byte off of body (an array's items are named by its
// field), and the offset of the string's first byte after its quote; ""
// and -1 when off is in no string.
func jsonStringAt(body []byte, off int) (string, int) {
	// The body's syntax is checked up to off with valid bytes in place of
	// the bad ones, by the standard decoder's tokens.
	clean := bytes.ToValidUTF8(body, []byte("?"))
	// ToValidUTF8 replaces each run of bad bytes by one '?', so offsets
	// after off shift: only tokens that start before off are read.
	dec := json.NewDecoder(bytes.NewReader(clean))
	type level struct {
		object, wantKey bool
		key             string
	}
	var stack []level
	prev := 0
	for {
		tok, err := dec.Token()
		if err != nil {
			return "", -1
		}
		end := int(dec.InputOffset())
		// The token's first byte: past whitespace, ':' and ','.
		start := prev
		for start < end && (clean[start] == ' ' || clean[start] == '\t' || clean[start] == '\n' || clean[start] == '\r' || clean[start] == ':' || clean[start] == ',') {
			start++
		}
		prev = end
		var top *level
		if len(stack) > 0 {
			top = &stack[len(stack)-1]
		}
		isKey := top != nil && top.object && top.wantKey
		if s, ok := tok.(string); ok && start <= off && off < end {
			switch {
			case isKey:
				return s, start + 1
			case top != nil && top.object:
				return top.key, start + 1
			case top != nil:
				// An item of an array: the array's field.
				for i := len(stack) - 2; i >= 0; i-- {
					if stack[i].object {
						return stack[i].key, start + 1
					}
				}
			}
			return "the body", start + 1
		}
		if start > off {
			return "", -1
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			if top != nil && top.object {
				top.wantKey = true
			}
			stack = append(stack, level{object: tok == json.Delim('{'), wantKey: true})
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
			if len(stack) > 0 && stack[len(stack)-1].object {
				stack[len(stack)-1].wantKey = true
			}
		default:
			if isKey {
				top.key, top.wantKey = tok.(string), false
			} else if top != nil && top.object {
				top.wantKey = true
			}
		}
	}
}
