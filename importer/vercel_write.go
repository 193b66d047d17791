package importer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"

	"redirects"
	"redirects/engine/pattern"
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
		Extended:    true,
	})
}

// VercelMaxRedirects is how many redirects a vercel.json may hold
// (routing-utils' redirectsSchema: maxItems 2048).
const VercelMaxRedirects = 2048

type vcOut struct {
	Source      string     `json:"source"`
	Has         []vcHasOut `json:"has,omitempty"`
	Destination string     `json:"destination"`
	StatusCode  int        `json:"statusCode,omitempty"`
	Permanent   *bool      `json:"permanent,omitempty"`
}

// vcHasOut is a has condition of a vercel.json redirect.
type vcHasOut struct {
	Type  string `json:"type"`
	Key   string `json:"key,omitempty"`
	Value string `json:"value,omitempty"`
}

func writeVercel(w io.Writer, rules []redirects.Rule, s redirects.Settings, _ []string) ([]Unexpressed, error) {
	var (
		out []vcOut
		un  []Unexpressed
	)
	var order []int
	var views []pattern.View
	if hasExtended(rules) {
		var ok bool
		if views, ok = writerViews(rules, s); ok {
			for _, v := range views {
				order = append(order, v.Index)
			}
		} else {
			rules, un = withoutExtended(rules, "vercel")
		}
	}
	if order == nil {
		order = vcLiteralOrder(rules)
	}
	for k, i := range order {
		r := &rules[i]
		var v *pattern.View
		if views != nil {
			v = &views[k]
		}
		entries, notes := vcRule(r, v, s, len(out))
		out = append(out, entries...)
		un = append(un, notes...)
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

// vcLiteralOrder returns the indexes of a draft without extended rules in
// the order the file lists them: the exact rules first, then the
// starts_with rules in the project's precedence.
func vcLiteralOrder(rules []redirects.Rule) []int {
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
	return order
}

// vcRule returns the entries of one rule (none when it is dropped; two for
// a preservePath rule whose destination has no path, and for a pattern
// that ends in a splat) and what the file answers otherwise. v is the
// engine's view of the rule, nil in a draft without extended rules; n is
// how many entries the file already has.
func vcRule(r *redirects.Rule, v *pattern.View, s redirects.Settings, n int) ([]vcOut, []Unexpressed) {
	var un []Unexpressed
	note := func(dropped bool, format string, args ...any) {
		un = append(un, Unexpressed{RuleID: r.ID, Source: r.Source, Dropped: dropped, Reason: fmt.Sprintf(format, args...)})
	}
	if r.StatusCode == redirects.StatusGone {
		note(true, "Vercel's redirects answer 301, 302, 303, 307 or 308: a 410 needs a function or middleware there")
		return nil, un
	}
	path, _, _ := strings.Cut(r.Source, "?")
	if r.MatchType.Literal() && (path == "/.well-known" || strings.HasPrefix(path, "/.well-known/")) {
		note(true, "Vercel reserves /.well-known: it cannot be redirected")
		return nil, un
	}
	if n >= VercelMaxRedirects {
		note(true, "a vercel.json holds at most %d redirects: use Vercel's bulk redirects for more", VercelMaxRedirects)
		return nil, un
	}
	var has []vcHasOut
	rename := map[string]string{}
	if v != nil && (r.Host != "" || len(v.Conds) > 0) {
		var why string
		var soft []string
		if has, why, soft = vcHasOf(r, v, rename); why != "" {
			note(true, "%s: %s", ruleKindText(r), why)
			return nil, un
		}
		for _, w := range soft {
			note(false, "%s", w)
		}
		if len(rename) > 0 && r.MatchType.Literal() {
			// The captures take the names the has conditions give them.
			c := *r
			c.Destination = destWithCaptures(v, rename)
			r = &c
		}
	}
	var entries []vcOut
	switch r.MatchType {
	case redirects.Regex:
		note(true, "a regex rule: Vercel's sources are path-to-regexp paths, and this writer does not translate an RE2 expression into one")
		return nil, un
	case redirects.Pattern:
		var why string
		if entries, why = vcWritePattern(v, s, rename); why != "" {
			note(true, "a pattern rule: %s", why)
			return nil, un
		}
	default:
		entries = vcWriteLiteral(r, path, s)
	}
	if r.MatchType == redirects.StartsWith && r.PreservePath && vcEmptyQuery(r.Destination) {
		note(false, "its destination holds an empty '?', which Vercel keeps after the rest of the path it passes on (here it goes)")
	}
	if s.CaseInsensitive && strings.ToLower(path) != strings.ToUpper(path) {
		note(false, "Vercel compares sources case-sensitively: other spellings of %s are not redirected there", path)
	}
	if len(r.ExceptHosts) > 0 {
		note(false, "the redirect answers every host of the deployment: its exceptHosts (%s) are redirected there too", strings.Join(r.ExceptHosts, ", "))
	}
	switch {
	case !r.PreserveQuery:
		note(false, "Vercel passes the request's query on to every redirect: this rule does not, here")
	case r.MergeQuery:
		// Vercel merges the request's query into the destination's as
		// mergeQuery does (docs/migrate.md#vercel).
	case strings.ContainsAny(r.Destination, "?#"):
		note(false, "Vercel merges the request's query into the destination's own query or fragment otherwise than this project does")
	}
	for i := range entries {
		entries[i].Has = has
		entries[i] = vcStatus(entries[i], r.StatusCode)
	}
	return entries, un
}

// vcHasOf returns the has conditions of a rule's host and query
// conditions, or why Vercel has none: a has value is a regular expression
// there (anchored), so a wildcard host, a value with its syntax and an
// empty value have no literal form. A query capture is the parameter's
// key without a value, whose value Vercel gives the destination as
// ":key": rename maps the capture's name to its key.
//
// soft says what the conditions answer otherwise there: Vercel takes a
// parameter without a value as absent, and reads a repeated parameter's
// last value (here any occurrence satisfies a condition, and a capture
// takes the first).
func vcHasOf(r *redirects.Rule, v *pattern.View, rename map[string]string) (has []vcHasOut, why string, soft []string) {
	if r.Host != "" {
		if wildcardHost(r.Host) {
			return nil, "its host names subdomains, which a has condition on the host would say with a regular expression", nil
		}
		has = append(has, vcHasOut{Type: "host", Value: r.Host})
	}
	names := viewNames(v)
	for _, c := range v.Conds {
		switch c.Op {
		case pattern.CondEqual:
			if c.Value == "" || !vcLiteral(c.Value) || strings.ContainsAny(c.Value, ".") {
				return nil, fmt.Sprintf("the value of %s=%s would be a regular expression in a has condition", c.Key, c.Value), nil
			}
			has = append(has, vcHasOut{Type: "query", Key: c.Key, Value: c.Value})
		case pattern.CondCapture:
			if c.Name != c.Key {
				if !validCaptureName(c.Key) || names[c.Key] {
					return nil, fmt.Sprintf("Vercel gives a query parameter's value the parameter's name, and %s cannot name the capture %s", c.Key, c.Name), nil
				}
				rename[c.Name] = c.Key
			}
			has = append(has, vcHasOut{Type: "query", Key: c.Key})
			soft = append(soft, "Vercel takes the parameter "+c.Key+" without a value as absent",
				"Vercel inserts the parameter "+c.Key+"'s decoded value, here it goes as sent")
		case pattern.CondPresent:
			if vcNamesParam(r.Destination, c.Key) {
				return nil, fmt.Sprintf("Vercel would put the parameter %s's value where the destination has :%s", c.Key, c.Key), nil
			}
			has = append(has, vcHasOut{Type: "query", Key: c.Key})
			soft = append(soft, "Vercel takes the parameter "+c.Key+" without a value as absent")
		default:
			return nil, fmt.Sprintf("a has condition cannot ask for an empty value (%s=)", c.Key), nil
		}
	}
	if len(v.Conds) > 0 {
		soft = append(soft, "Vercel reads a repeated query parameter's last value; here any occurrence satisfies a condition and a capture takes the first")
	}
	return has, "", soft
}

// vcWritePattern returns a pattern's entries in path-to-regexp 6.1.0's syntax
// (the literal text escaped; ":name" and ":name(constraint)" within a
// segment, "/:name?" optional; a final splat "/:name(.*)" with an entry
// before it for the path without it, a final "/:name+" "/:name(.+)"; under
// trailingSlash ignore an optional "{/}?" after a source that does not
// end in one of those), or says why it has none.
func vcWritePattern(v *pattern.View, s redirects.Settings, rename map[string]string) ([]vcOut, string) {
	var b strings.Builder
	tail := ""  // a final splat or one-or-more placeholder
	empty := "" // the splat's capture, which the entry without it leaves empty
	for i, p := range v.Pieces {
		last := i == len(v.Pieces)-1
		if p.Kind != pattern.PieceLiteral && p.Constraint != "" && !vcSafeConstraint(p.Constraint) {
			return nil, "its constraint " + p.Constraint + " may read otherwise as a JavaScript expression in path-to-regexp"
		}
		name := p.Name
		if r, ok := rename[name]; ok {
			name = r
		}
		switch p.Kind {
		case pattern.PieceLiteral:
			t := p.Text
			if last && s.IgnoreTrailingSlash && len(t) > 1 && strings.HasSuffix(t, "/") {
				t = strings.TrimSuffix(t, "/")
			}
			b.WriteString(vcEscape(t))
		case pattern.PieceSegment, pattern.PieceOptional:
			if p.Kind == pattern.PieceOptional {
				b.WriteString("/")
			}
			b.WriteString(":" + name)
			if p.Constraint != "" {
				b.WriteString(vcConstraint(p.Constraint))
			}
			if p.Kind == pattern.PieceOptional {
				b.WriteString("?")
			}
		case pattern.PieceStar, pattern.PiecePlus:
			if !last {
				return nil, "path-to-regexp's :name* and :name+ take whole segments, and this one does not end the source"
			}
			if p.Constraint != "" {
				return nil, "a splat's constraint has no form in path-to-regexp"
			}
			if p.Kind == pattern.PieceStar {
				tail, empty = "/:"+name+"(.*)", p.Name
			} else {
				tail = "/:" + name + "(.+)"
			}
		}
	}
	src := b.String()
	dest := destWithCaptures(v, rename)
	if tail == "" {
		if s.IgnoreTrailingSlash && src != "/" {
			src += "{/}?"
		}
		return []vcOut{{Source: src, Destination: dest}}, ""
	}
	var out []vcOut
	if empty != "" && src != "" {
		var d strings.Builder
		for _, x := range v.Dest {
			if x.Capture == "" {
				d.WriteString(x.Text)
			} else if x.Capture != empty {
				n := x.Capture
				if r, ok := rename[n]; ok {
					n = r
				}
				d.WriteString(":" + n)
			}
		}
		out = append(out, vcOut{Source: src, Destination: d.String()})
	}
	return append(out, vcOut{Source: src + tail, Destination: dest}), ""
}

// vcSafeConstraint reports whether a constraint reads alike in RE2 and in
// JavaScript inside path-to-regexp's group, within one segment: letters,
// digits, '-', '_', '|', bounded and unbounded repeats, \d and \w,
// and classes of those, with no group (path-to-regexp refuses capturing
// ones), anchor, '.' or '/'.
func vcSafeConstraint(c string) bool {
	c = strings.TrimSuffix(strings.TrimPrefix(c, "("), ")")
	if c == "" {
		return false
	}
	for i := 0; i < len(c); i++ {
		x := c[i]
		switch {
		case 'a' <= x|0x20 && x|0x20 <= 'z', '0' <= x && x <= '9', strings.IndexByte("-_|[]{},+*?", x) >= 0:
		case x == '\\' && i+1 < len(c) && (c[i+1] == 'd' || c[i+1] == 'w'):
			i++
		default:
			return false
		}
	}
	return true
}

// vcConstraint writes a constraint as path-to-regexp's "(...)".
func vcConstraint(c string) string {
	if strings.HasPrefix(c, "(") && strings.HasSuffix(c, ")") {
		return c
	}
	return "(" + c + ")"
}

// vcWriteLiteral returns the entries of an exact or starts_with rule whose
// source's path is path.
func vcWriteLiteral(r *redirects.Rule, path string, s redirects.Settings) []vcOut {
	src := vcEscape(path)
	dest := r.Destination
	switch {
	case r.MatchType == redirects.Exact:
		if s.IgnoreTrailingSlash && path != "/" {
			src = vcEscape(strings.TrimSuffix(path, "/")) + "{/}?"
		}
	case s.IgnoreTrailingSlash && strings.HasSuffix(path, "/") && path != "/":
		src = vcEscape(strings.TrimSuffix(path, "/")) + "{/(.*)}?"
	case strings.HasSuffix(path, "/"):
		src = vcEscape(strings.TrimSuffix(path, "/")) + "/(.*)"
	default:
		src += "(.*)"
	}
	var out []vcOut
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
			exact := vcEscape(path)
			if s.IgnoreTrailingSlash && path != "/" && strings.HasSuffix(path, "/") {
				exact = vcEscape(strings.TrimSuffix(path, "/")) + "{/}?"
			}
			out = append(out, vcOut{Source: exact, Destination: r.Destination})
		}
		dest = p + "$1" + dest[end:]
	}
	return append(out, vcOut{Source: src, Destination: dest})
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
