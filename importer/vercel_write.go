package importer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"

	"redirects"
)

// The vercel writer (redirects rule export --to vercel) writes a draft as
// a vercel.json whose redirects array answers as the draft does, as far
// as Vercel can (docs/migrate.md#vercel): Vercel tries its redirects in
// order, so the exact rules come first (here they win over every
// starts_with rule), then the starts_with rules in the order of this
// project's precedence (priority, then the longer source, then the older
// rule). An exact source is its path, escaped for path-to-regexp; a
// starts_with source /a/ is /a/(.*), whose $1 the destination takes with
// preservePath; under trailingSlash ignore, an optional slash {/}? is
// added.
func init() {
	RegisterWriter(&Writer{
		Name:        "vercel",
		FileName:    "vercel.json",
		ContentType: "application/json",
		Write:       writeVercel,
	})
}

// VercelMaxRedirects is how many redirects a vercel.json may hold
// (routing-utils' redirectsSchema: maxItems 2048).
const VercelMaxRedirects = 2048

type vcOut struct {
	Source      string `json:"source"`
	Destination string `json:"destination"`
	StatusCode  int    `json:"statusCode,omitempty"`
	Permanent   *bool  `json:"permanent,omitempty"`
}

func writeVercel(w io.Writer, rules []redirects.Rule, s redirects.Settings, _ []string) ([]Unexpressed, error) {
	order := make([]int, len(rules))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool {
		x, y := &rules[order[a]], &rules[order[b]]
		if (x.MatchType == redirects.Exact) != (y.MatchType == redirects.Exact) {
			return x.MatchType == redirects.Exact
		}
		if x.MatchType == redirects.Exact {
			return false
		}
		if x.Priority != y.Priority {
			return x.Priority < y.Priority
		}
		if len(x.Source) != len(y.Source) {
			return len(x.Source) > len(y.Source)
		}
		if !x.CreatedAt.Equal(y.CreatedAt) {
			return x.CreatedAt.Before(y.CreatedAt)
		}
		return x.ID < y.ID
	})
	var (
		out []vcOut
		un  []Unexpressed
	)
	note := func(r *redirects.Rule, dropped bool, format string, args ...any) {
		un = append(un, Unexpressed{RuleID: r.ID, Source: r.Source, Dropped: dropped, Reason: fmt.Sprintf(format, args...)})
	}
	for _, i := range order {
		r := &rules[i]
		if r.StatusCode == redirects.StatusGone {
			note(r, true, "Vercel's redirects answer 301, 302, 303, 307 or 308: a 410 needs a function or middleware there")
			continue
		}
		if r.Source == "/.well-known" || strings.HasPrefix(r.Source, "/.well-known/") {
			note(r, true, "Vercel reserves /.well-known: it cannot be redirected")
			continue
		}
		if len(out) == VercelMaxRedirects {
			note(r, true, "a vercel.json holds at most %d redirects: use Vercel's bulk redirects for more", VercelMaxRedirects)
			continue
		}
		src := vcEscape(r.Source)
		dest := r.Destination
		switch {
		case r.MatchType == redirects.Exact:
			if s.IgnoreTrailingSlash && r.Source != "/" {
				src = vcEscape(strings.TrimSuffix(r.Source, "/")) + "{/}?"
			}
		case s.IgnoreTrailingSlash && strings.HasSuffix(r.Source, "/") && r.Source != "/":
			src = vcEscape(strings.TrimSuffix(r.Source, "/")) + "{/(.*)}?"
		case strings.HasSuffix(r.Source, "/"):
			src = vcEscape(strings.TrimSuffix(r.Source, "/")) + "/(.*)"
		default:
			src += "(.*)"
		}
		var first *vcOut // an entry that must come before this one
		if r.MatchType == redirects.StartsWith && r.PreservePath {
			end := len(dest)
			if k := strings.IndexAny(dest, "?#"); k >= 0 {
				end = k
			}
			p := dest[:end]
			if low := strings.ToLower(p); (strings.HasPrefix(low, "http://") || strings.HasPrefix(low, "https://")) && !strings.Contains(p[strings.Index(p, "//")+2:], "/") {
				// A destination without a path gets "/" before the rest,
				// but is answered as written when nothing follows the
				// source: that path gets an entry of its own, first.
				p += "/"
				exact := vcEscape(r.Source)
				if s.IgnoreTrailingSlash && r.Source != "/" && strings.HasSuffix(r.Source, "/") {
					exact = vcEscape(strings.TrimSuffix(r.Source, "/")) + "{/}?"
				}
				first = &vcOut{Source: exact, Destination: r.Destination}
			}
			dest = p + "$1" + dest[end:]
		}
		if r.MatchType == redirects.StartsWith && r.PreservePath && vcEmptyQuery(r.Destination) {
			note(r, false, "its destination holds an empty '?', which Vercel keeps after the rest of the path it passes on (here it goes)")
		}
		if s.CaseInsensitive && strings.ToLower(r.Source) != strings.ToUpper(r.Source) {
			note(r, false, "Vercel compares sources case-sensitively: other spellings of %s are not redirected there", r.Source)
		}
		if !r.PreserveQuery {
			note(r, false, "Vercel passes the request's query on to every redirect: this rule does not, here")
		} else if strings.ContainsAny(r.Destination, "?#") {
			note(r, false, "Vercel merges the request's query into the destination's own query or fragment otherwise than this project does")
		}
		o := vcOut{Source: src, Destination: dest}
		if first != nil {
			out = append(out, vcStatus(*first, r.StatusCode))
		}
		out = append(out, vcStatus(o, r.StatusCode))
	}
	var b bytes.Buffer
	b.WriteString("{\n  \"redirects\": [")
	for i, o := range out {
		j, err := json.Marshal(o)
		if err != nil {
			return nil, err
		}
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString("\n    ")
		b.Write(j)
	}
	if len(out) > 0 {
		b.WriteString("\n  ")
	}
	b.WriteString("]\n}\n")
	_, err := w.Write(b.Bytes())
	return un, err
}

// vcEmptyQuery reports whether a destination has a '?' with nothing after
// it (before its fragment).
func vcEmptyQuery(d string) bool {
	d, _, _ = strings.Cut(d, "#")
	return strings.HasSuffix(d, "?") && strings.Count(d, "?") == 1
}

// vcStatus sets o's status as vercel.json says it: permanent for 308 and
// 307, statusCode for the others.
func vcStatus(o vcOut, status int) vcOut {
	switch status {
	case 308:
		t := true
		o.Permanent = &t
	case 307:
		f := false
		o.Permanent = &f
	default:
		o.StatusCode = status
	}
	return o
}

// vcEscape writes a path as a path-to-regexp literal: the characters it
// reads as syntax escaped, the bytes past ASCII percent-encoded as a
// client sends them.
func vcEscape(p string) string {
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c >= 0x80:
			fmt.Fprintf(&b, "%%%02X", c)
		case strings.IndexByte(`:()*+?{}\`, c) >= 0:
			b.WriteByte('\\')
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}
