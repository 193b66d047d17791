package importer

import (
	"bufio"
	"fmt"
	"io"
	"sort"
	"strings"

	"redirects"
	"redirects/engine/pattern"
)

// The netlify writer: a draft as a _redirects file (Netlify and Cloudflare
// Pages). Netlify answers with the first line that matches, so the file
// lists the exact rules first, then the starts_with rules in the order our
// matching prefers them (lower priority, then longer source). Every line
// is forced ("!"): our rules answer whether or not a file exists at the
// path, and an unforced Netlify rule gives way to a file.
//
// A draft with extended rules is written in the lookup API's order
// (docs/contract.md#precedence), each rule in Netlify's syntax where it
// has one: a pattern's whole-segment placeholders as ":name", its final
// splat as "*" (the destination's capture as ":splat"), query conditions
// as "key=value" and "key=:name" parts, an exact host as a domain line
// (https://host/path). Regex rules, wildcard hosts, constraints, the
// optional and one-or-more placeholders, a placeholder inside a segment,
// a splat before the end and "key=" conditions have none: those rules are
// left out and listed.
func init() {
	RegisterWriter(&Writer{Name: "netlify", FileName: "_redirects", ContentType: "text/plain; charset=utf-8", Write: writeNetlify, Extended: true})
}

// netlifyGonePage is what a 410 rule serves on Netlify, which has no
// status without a destination: the site's own 404 page, with status 410.
const netlifyGonePage = "/404.html"

func writeNetlify(w io.Writer, rules []redirects.Rule, s redirects.Settings, _ []string) ([]Unexpressed, error) {
	var out []Unexpressed
	var order []redirects.Rule
	var views []pattern.View
	if hasExtended(rules) {
		var ok bool
		if views, ok = writerViews(rules, s); ok {
			order = make([]redirects.Rule, len(views))
			for i, v := range views {
				order[i] = rules[v.Index]
			}
		} else {
			rules, out = withoutExtended(rules, "netlify")
		}
	}
	if order == nil {
		order = netlifyOrder(rules)
	}
	written := 0
	var lines strings.Builder
	seen := map[string]int64{} // exact sources as Netlify compares them -> first rule
	for k := range order {
		r := &order[k]
		var v *pattern.View
		if views != nil {
			v = &views[k]
		}
		src, dst, why, drop := netlifyWriteLine(r, v, s)
		if drop != "" {
			out = append(out, Unexpressed{RuleID: r.ID, Source: r.Source, Dropped: true, Reason: drop})
			continue
		}
		if r.MatchType == redirects.Exact {
			key := r.Host + " " + strings.TrimSuffix(src, "/")
			if first, ok := seen[key]; ok {
				why = append(why, fmt.Sprintf("Netlify ignores a trailing slash: the rule %d for the same path comes first there", first))
			} else {
				seen[key] = r.ID
			}
		}
		written++
		fmt.Fprintf(&lines, "%s  %s  %d!\n", src, dst, r.StatusCode)
		if len(why) > 0 {
			out = append(out, Unexpressed{RuleID: r.ID, Source: r.Source, Reason: strings.Join(why, "; ")})
		}
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	fmt.Fprintf(bw, "# Netlify _redirects written by redirects (%d rules; project settings %s)\n", written, s)
	bw.WriteString(lines.String())
	return out, bw.Flush()
}

// netlifyWriteLine returns a rule's source (with its query parts) and
// destination as a _redirects line writes them, what Netlify answers
// otherwise, or why the rule has no line (drop). v is the engine's view of
// the rule, nil in a draft without extended rules.
func netlifyWriteLine(r *redirects.Rule, v *pattern.View, s redirects.Settings) (src, dst string, why []string, drop string) {
	var host string
	if r.Host != "" {
		if wildcardHost(r.Host) {
			return "", "", nil, ruleKindText(r) + ": Netlify's domain lines name one host, not its subdomains"
		}
		host = "https://" + r.Host
	}
	path, _, _ := strings.Cut(r.Source, "?")
	dst = r.Destination
	switch r.MatchType {
	case redirects.Regex:
		return "", "", nil, "a regex rule: Netlify's _redirects has no regular expressions"
	case redirects.Pattern:
		var d string
		src, d = netlifyPattern(v)
		if d != "" {
			return "", "", nil, "a pattern rule: " + d
		}
		rename := map[string]string{}
		for _, p := range v.Pieces {
			if p.Kind == pattern.PieceStar {
				rename[p.Name] = "splat"
			}
		}
		dst = destWithCaptures(v, rename)
	default:
		src = netlifyEscape(path)
		if r.MatchType == redirects.StartsWith {
			if !strings.HasSuffix(path, "/") {
				why = append(why, fmt.Sprintf("Netlify documents splats after a '/' only: %s* may not redirect %sx there", src, path))
			}
			src += "*"
			if r.PreservePath {
				end := len(dst)
				if i := strings.IndexAny(dst, "?#"); i >= 0 {
					end = i
				}
				p := dst[:end]
				if lower := strings.ToLower(p); (strings.HasPrefix(lower, "http://") || strings.HasPrefix(lower, "https://")) && !strings.Contains(p[strings.Index(p, "//")+2:], "/") {
					p += "/"
				}
				dst = p + ":splat" + dst[end:]
			}
		}
	}
	if v != nil && len(v.Conds) > 0 {
		q, d := netlifyQuery(v)
		if d != "" {
			return "", "", nil, ruleKindText(r) + ": " + d
		}
		src += q
	}
	src = host + src
	if r.StatusCode == redirects.StatusGone {
		dst = netlifyGonePage
	}
	if s.CaseInsensitive && hasASCIILetter(path) {
		why = append(why, "Netlify compares paths case sensitively: "+path+" in other case is not redirected there")
	}
	if len(r.ExceptHosts) > 0 {
		why = append(why, "Netlify's line answers every host of the site: its exceptHosts ("+strings.Join(r.ExceptHosts, ", ")+") are redirected there too")
	}
	if !s.IgnoreTrailingSlash && path != "/" {
		if r.MatchType == redirects.Pattern {
			why = append(why, "Netlify ignores a trailing slash: a path this pattern matches with its trailing '/' toggled is redirected there too")
		} else {
			why = append(why, "Netlify ignores a trailing slash: "+toggleSlash(path)+" is redirected there too")
		}
	}
	if r.StatusCode != redirects.StatusGone && !r.PreserveQuery {
		why = append(why, "Netlify passes the request's query on to the destination")
	}
	if r.MergeQuery {
		why = append(why, "mergeQuery: Netlify does not document merging the request's query parameters into the destination's, so a parameter the destination names may be passed on there too")
	}
	if r.StatusCode == 307 {
		why = append(why, "Netlify documents 307 as unsupported")
	}
	if r.StatusCode != redirects.StatusGone && strings.Contains(r.Destination, "#") {
		why = append(why, "the destination has a fragment: where Netlify puts the request's query is not documented")
	}
	return src, dst, why, ""
}

// netlifyPattern writes a pattern's pieces as a _redirects source, or
// says why Netlify has no such source: its placeholders are whole
// segments without a constraint, and its only splat ends the source.
func netlifyPattern(v *pattern.View) (string, string) {
	var b strings.Builder
	for i, p := range v.Pieces {
		last := i == len(v.Pieces)-1
		switch p.Kind {
		case pattern.PieceLiteral:
			b.WriteString(netlifyEscape(p.Text))
		case pattern.PieceSegment:
			if p.Constraint != "" {
				return "", "Netlify's placeholders take no constraint (" + p.Name + ")"
			}
			before := b.String()
			if !strings.HasSuffix(before, "/") || !last && !strings.HasPrefix(v.Pieces[i+1].Text, "/") && v.Pieces[i+1].Kind == pattern.PieceLiteral {
				return "", "Netlify's placeholders are whole segments (:" + p.Name + " shares its segment with text)"
			}
			if p.Name == "splat" {
				return "", "Netlify's :splat is its splat's capture, not a segment's"
			}
			b.WriteString(":" + p.Name)
		case pattern.PieceStar:
			if !last {
				return "", "Netlify reads a splat only at the end of a source"
			}
			if p.Constraint != "" {
				return "", "Netlify's splat takes no constraint"
			}
			b.WriteString("/*")
		default:
			return "", "Netlify has no optional or one-or-more placeholder (:" + p.Name + ")"
		}
	}
	return b.String(), ""
}

// netlifyQuery writes a rule's query conditions as a _redirects line's
// query parts (" key=value key=:name"), or says why Netlify has none: a
// part without a value is dropped by Netlify's parser, so a parameter
// with any value is a capture of a name of its own, and an empty value
// has no form.
func netlifyQuery(v *pattern.View) (string, string) {
	names := viewNames(v)
	var b strings.Builder
	for _, c := range v.Conds {
		b.WriteString(" " + queryEscape(c.Key) + "=")
		switch c.Op {
		case pattern.CondEqual:
			b.WriteString(queryEscape(c.Value))
		case pattern.CondCapture:
			b.WriteString(":" + c.Name)
		case pattern.CondPresent:
			b.WriteString(":" + freshName(names, "q"))
		default:
			return "", "Netlify has no condition on an empty value (" + c.Key + "=)"
		}
	}
	return b.String(), ""
}

// netlifyOrder returns rules in the order our matching prefers them: exact
// rules (in the order given) before starts_with rules sorted by the
// contract's precedence.
func netlifyOrder(rules []redirects.Rule) []redirects.Rule {
	order := make([]redirects.Rule, 0, len(rules))
	for _, r := range rules {
		if r.MatchType == redirects.Exact {
			order = append(order, r)
		}
	}
	n := len(order)
	for _, r := range rules {
		if r.MatchType == redirects.StartsWith {
			order = append(order, r)
		}
	}
	sw := order[n:]
	sort.SliceStable(sw, func(i, j int) bool {
		a, b := &sw[i], &sw[j]
		if a.Priority != b.Priority {
			return a.Priority < b.Priority
		}
		if len(a.Source) != len(b.Source) {
			return len(a.Source) > len(b.Source)
		}
		if !a.CreatedAt.Equal(b.CreatedAt) {
			return a.CreatedAt.Before(b.CreatedAt)
		}
		return a.ID < b.ID
	})
	return order
}

// netlifyEscape percent-encodes a decoded source for a _redirects file:
// bytes outside printable ASCII, '%', and ':' and '*' (which Netlify would
// read as a placeholder or a splat).
func netlifyEscape(p string) string {
	const hexd = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		c := p[i]
		if c <= ' ' || c >= 0x7f || c == '%' || c == ':' || c == '*' || c == '#' || c == '?' {
			b.WriteByte('%')
			b.WriteByte(hexd[c>>4])
			b.WriteByte(hexd[c&15])
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

func hasASCIILetter(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i] | 0x20; 'a' <= c && c <= 'z' {
			return true
		}
	}
	return false
}

func toggleSlash(p string) string {
	if strings.HasSuffix(p, "/") {
		return strings.TrimSuffix(p, "/")
	}
	return p + "/"
}
