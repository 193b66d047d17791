package export

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"redirects"
	"redirects/engine/pattern"
)

// A declaration says, in a file's opening comment and in the deploy report,
// which rules a format answers otherwise than the lookup API and how: the
// rules it leaves out and the differences the shapes docs/contract.md fixes force
// (docs/exports.md#rule-options-and-settings). Files of a project that uses
// a rule option or a setting other than the default carry them, one line
// each, in the form
//
//	# Differs: <match type> rules with <condition>: <effect> (<n> rules, e.g. <sources>)
//
// where <match type> is exact, starts_with, pattern, regex or all, and
// <condition> one of "statusCode <codes>", "preservePath", "preserveQuery",
// "mergeQuery",
// "a letter in the source", "a source ending in /", "a source longer than
// 255 bytes", and for the extended rules (redirects.Rule.Extended) "any
// source" (every rule of the match type), "a host", "query conditions",
// "a constraint inside a segment", "a large RE2 expression", "a long
// expression" and "a $ in the destination"; "an
// escaped request path" and "a constraint, for an escaped request path"
// are about requests, not rules: the rule answers otherwise only a path
// sent with an escape or a byte outside plainBytes (chainregex.go). The
// differential tests read these lines: a path the lookup API answers with a
// declared rule may be answered otherwise, and so may a path a declared
// rule matches regardless of case and trailing slash; nothing else may.
type declaration struct {
	mt     string // "exact", "starts_with", "pattern", "regex" or "all"
	cond   string
	effect string
	match  func(*redirects.Rule) bool
	// extd: the declaration is about extended rules (sorted.extd), not
	// the literal ones the format holds (sorted.all).
	extd bool
}

// declPrefix starts every declaration line, after "# " in a file.
const declPrefix = "Differs: "

// declarations returns the declarations of format for s's rules and
// settings that some rule meets, each with its count and examples. It
// returns nil for a project that uses no option and the default settings:
// their files are as before, and docs/exports.md documents their
// differences.
func (s *sorted) declarations(format string) []string {
	if !s.ext {
		return nil
	}
	ds := s.extendedDeclarations(format)
	statusAs301 := func() {
		var codes []int
		for _, c := range redirects.StatusCodes {
			if c != 301 && c != redirects.StatusGone && s.hasExactStatus(c) {
				codes = append(codes, c)
			}
		}
		if len(codes) > 0 {
			ds = append(ds, declaration{"exact", "statusCode " + joinCodes(codes), "served as 301, the map has no status column",
				func(r *redirects.Rule) bool { return r.StatusCode != 301 && r.StatusCode != redirects.StatusGone }, false})
		}
		ds = append(ds, declaration{"exact", "statusCode 410", "left out, the map has no status column",
			func(r *redirects.Rule) bool { return r.StatusCode == redirects.StatusGone }, false})
	}
	letter := func(mt, effect string) {
		ds = append(ds, declaration{mt, "a letter in the source", effect, func(r *redirects.Rule) bool { return hasLetter(r.Source) }, false})
	}
	longSkip := declaration{"starts_with", "preservePath and a source longer than 700 bytes",
		"left out, PCRE2 compiles the count of bytes the rest of the path starts after as that many copies, and nginx refuses the expression and the file past about 790",
		skipTooLong, false}
	preservePath := declaration{"starts_with", "preservePath", "the rest of the path is not appended", func(r *redirects.Rule) bool { return r.PreservePath }, false}
	preserveQuery := func(mt string) declaration {
		return declaration{mt, "preserveQuery", "the request's query is not passed on", func(r *redirects.Rule) bool { return r.PreserveQuery }, false}
	}
	switch format {
	case "csv":
		ds = append(ds, declaration{"starts_with", "preservePath", "not carried, the file has four columns (source,destination,statusCode,matchType)", func(r *redirects.Rule) bool { return r.PreservePath }, false},
			declaration{"all", "preserveQuery", "not carried, the file has four columns (source,destination,statusCode,matchType)", func(r *redirects.Rule) bool { return r.PreserveQuery }, false})
	case "nginx":
		if s.set.IsDefault() && s.chain == nil {
			ds = append(ds, declaration{"all", "a source longer than 255 bytes", "left out, nginx 1.22 mishandles longer location names",
				func(r *redirects.Rule) bool { return len(r.Source) > maxNginxLocation }, false})
		}
		if !s.set.IsDefault() && s.chain == nil {
			ds = append(ds, longSkip)
		}
	case "nginx-map-prefix":
		ds = append(ds, longSkip)
	case "nginx-map-exact":
		statusAs301()
		if !s.set.CaseInsensitive {
			letter("exact", "matched regardless of case, nginx map keys ignore it")
		}
	case "haproxy":
		switch {
		case s.chain == nil:
			if !s.set.CaseInsensitive {
				letter("all", "matched regardless of case, the ACLs' -i ignores it")
			}
		case s.haproxySpec():
			// The literal rules in docs/contract.md's shape
			// (haproxySpecShaped), among the chain's cases.
			for _, mt := range []string{"exact", "starts_with"} {
				if !s.set.CaseInsensitive {
					ds = append(ds, declaration{mt, "a letter in the source", "matched regardless of case, the ACLs' -i ignores it",
						func(r *redirects.Rule) bool { return haproxySpecShaped(r) && hasLetter(r.Source) }, false})
				}
				ds = append(ds, declaration{mt, "a request path escaped otherwise than browsers do", "not matched, the ACL compares the path as sent with the source as browsers send it",
					haproxySpecShaped, false})
			}
		}
	case "haproxy-map-exact":
		statusAs301()
		ds = append(ds, preserveQuery("exact"))
	case "haproxy-map-prefix":
		ds = append(ds, preservePath, preserveQuery("starts_with"))
		if s.set.IgnoreTrailingSlash {
			ds = append(ds, declaration{"starts_with", "a source ending in /", "the path without that / is not matched, map_beg compares prefixes only",
				func(r *redirects.Rule) bool { return len(r.Source) > 1 && strings.HasSuffix(r.Source, "/") }, false})
		}
	}
	ds = append(ds, s.mergeQueryDeclarations(format)...)
	// Declarations of the same rules, condition and effect, one about the
	// literal rules and one about the extended ones, make one line.
	type line struct {
		head string
		n    int
		ex   []string
	}
	var lines []line
	for _, d := range ds {
		n, ex := 0, []string(nil)
		recs := s.all
		if d.extd {
			recs = s.extd
		}
		for i := range recs {
			r := recs[i].rule
			if (d.mt == "all" || d.mt == r.MatchType.String()) && d.match(r) {
				if n++; n <= maxExamples {
					ex = append(ex, example(r))
				}
			}
		}
		if n == 0 {
			continue
		}
		head := declPrefix + d.mt + " rules with " + d.cond + ": " + d.effect
		if k := slices.IndexFunc(lines, func(l line) bool { return l.head == head }); k >= 0 {
			lines[k].n += n
			lines[k].ex = append(lines[k].ex, ex...)[:min(maxExamples, len(lines[k].ex)+len(ex))]
			continue
		}
		lines = append(lines, line{head, n, ex})
	}
	out := make([]string, 0, len(lines))
	for _, l := range lines {
		out = append(out, l.head+" ("+countNoun(l.n, "rule")+", e.g. "+strings.Join(l.ex, ", ")+")")
	}
	return out
}

// extendedDeclarations returns the declarations of format for the
// extended rules (redirects.Rule.Extended), when the project has some:
// the csv keeps pattern and regex rows, which its matchType column names,
// and leaves out the rules with a host, which it has no column for; the
// other formats leave every extended rule out, each kind declared on a
// line of its own.
func (s *sorted) extendedDeclarations(format string) []declaration {
	if len(s.extd) == 0 {
		return nil
	}
	hasHost := func(r *redirects.Rule) bool { return r.Host != "" }
	hasExcept := func(r *redirects.Rule) bool { return len(r.ExceptHosts) > 0 }
	if format == "csv" {
		return []declaration{{"all", "a host", "left out, the file has no host column", hasHost, true},
			{"all", "exceptHosts", "left out, the file has no exceptHosts column", hasExcept, true}}
	}
	every := func(*redirects.Rule) bool { return true }
	conds := func(r *redirects.Rule) bool { return strings.IndexByte(r.Source, '?') >= 0 }
	// holds reports whether format holds a rule of the chain: the
	// nginx map formats hold the exact rules, or the others.
	holds := func(r *redirects.Rule) bool {
		switch format {
		case "nginx-map-exact":
			return r.MatchType == redirects.Exact
		case "nginx-map-prefix":
			return r.MatchType != redirects.Exact
		}
		return true
	}
	if (format == "nginx" || format == "haproxy" || format == "nginx-map-exact" || format == "nginx-map-prefix") && s.chain != nil {
		server := map[string]string{"haproxy": "HAProxy"}[format]
		if server == "" {
			server = "nginx"
		}
		// fits reports whether the server reads the strings the chain
		// writes for c's rule.
		fits, long := nginxStringsFit, "left out, its expression or answer is longer than the 4,096 bytes nginx reads as one string, and nginx would refuse the whole file"
		if format == "haproxy" {
			fits, long = haproxyStringsFit, "left out, its expression or answer is longer than regsub holds (HAProxy's tune.bufsize, 16,384 bytes by default), and HAProxy would refuse the whole file"
		}
		// written reports whether the file writes c's rule in its chain:
		// nginx-map-exact's extended map holds the extended exact rules,
		// nginx-map-prefix's the extended rules and the literal ones of
		// the span prefixSpan names (a long extended rule ends no span:
		// the span ends at the last one the map answers); the haproxy
		// file writes the literal rules in docs/contract.md's shape
		// (haproxySpecShaped) as ACLs, without a regsub.
		written := func(chainRule) bool { return true }
		switch format {
		case "nginx-map-exact":
			written = func(c chainRule) bool { return c.r.Extended() }
		case "nginx-map-prefix":
			span := map[*redirects.Rule]bool{}
			for _, c := range s.prefixSpan() {
				span[c.r] = true
			}
			written = func(c chainRule) bool { return c.r.Extended() || span[c.r] }
		case "haproxy":
			if s.haproxySpec() {
				written = func(c chainRule) bool { return !haproxySpecShaped(c.r) }
			}
		}
		leftOut, plain, large, tooLong := map[*redirects.Rule]bool{}, map[*redirects.Rule]bool{}, map[*redirects.Rule]bool{}, map[*redirects.Rule]bool{}
		// The literal rules (sorted.all) are copies of the chain's:
		// tooLongLit holds those left out by what their cases are made
		// of (litKey).
		tooLongLit := map[string]bool{}
		litKey := func(r *redirects.Rule) string {
			return fmt.Sprint(r.MatchType, "\x00", r.Source, "\x00", r.Destination, "\x00", r.StatusCode,
				r.PreservePath, r.PreserveQuery, r.QueryAfterFragment, r.MergeQuery)
		}
		// In nginx-map-prefix a literal rule left out of the extended map
		// is still in the main map, which nginx reads after it.
		longLit := long
		if format == "nginx-map-prefix" {
			longLit = "left out of the extended map, which nginx reads first: an extended rule after it in the lookup API's order may answer its paths (its expression is longer than the 4,096 bytes nginx reads as one string)"
		}
		for _, c := range s.chain {
			switch {
			case !holds(c.r):
			case ruleTooLarge(c.v, c.r.Source):
				large[c.r] = true
			case !chainAnswers(c, s.set):
				leftOut[c.r] = true
			case written(c) && !fits(c, s.set):
				tooLong[c.r] = true
				if !c.r.Extended() {
					tooLongLit[litKey(c.r)] = true
				}
			case c.v.Kind == pattern.Regex || hasConstraints(c.v.Pieces):
				plain[c.r] = true
			}
		}
		ds := []declaration{
			{"regex", "any source", "left out, under trailingSlash ignore the API also tries the path with a / added, which " + server + " cannot match against the path as sent",
				func(r *redirects.Rule) bool { return leftOut[r] }, true},
			{"regex", "an escaped request path", plainEffect(server), func(r *redirects.Rule) bool { return plain[r] }, true},
			{"pattern", "a constraint inside a segment", "left out, the capture is the shortest text the constraint and the rest allow, which " + server + " cannot try",
				func(r *redirects.Rule) bool { return leftOut[r] }, true},
			{"pattern", "a constraint, for an escaped request path", plainEffect(server), func(r *redirects.Rule) bool { return plain[r] }, true},
			{"all", "a large RE2 expression", "left out, PCRE2 could refuse it as too large, and " + server + " the whole file with it",
				func(r *redirects.Rule) bool { return large[r] }, true},
			{"all", "a long expression", long, func(r *redirects.Rule) bool { return tooLong[r] }, true},
			{"all", "a long expression", longLit, func(r *redirects.Rule) bool { return tooLongLit[litKey(r)] }, false},
		}
		if format != "haproxy" {
			where := "a string of a server block"
			if format != "nginx" {
				where = "an nginx map value"
			}
			ds = append(ds, declaration{"regex", "a $ in the destination", "written %24, " + where + " cannot hold a literal $",
				func(r *redirects.Rule) bool {
					return holds(r) && !leftOut[r] && !large[r] && !tooLong[r] && strings.Contains(r.Destination, "$$")
				}, true})
		}
		if format == "haproxy" {
			many := map[*redirects.Rule]bool{}
			for _, c := range s.chain {
				if chainAnswers(c, s.set) && haproxyStringsFit(c, s.set) && !haproxyGroupsFit(c, s.set) {
					many[c.r] = true
				}
			}
			ds = append(ds, declaration{"all", "more than 9 captures", "left out, regsub inserts \\1 to \\9 only", func(r *redirects.Rule) bool { return many[r] }, true})
		}
		return ds
	}
	const hosts = "left out, this file answers every host alike"
	const query = "left out, this file does not read the query"
	literal := "left out, this file matches literal paths only"
	if s.chain != nil && strings.HasPrefix(format, "haproxy-map") {
		// HAProxy reads a map file with one match method: map_reg and
		// map_regm would compile every key as a regular expression,
		// docs/contract.md's literal ones too, and an unanchored one such
		// as "/" would match every request.
		literal += ", map_reg would read its literal keys as regular expressions too"
	}
	return []declaration{
		{"pattern", "any source", literal, every, true},
		{"regex", "any source", literal, every, true},
		{"exact", "a host", hosts, hasHost, true},
		{"starts_with", "a host", hosts, hasHost, true},
		{"exact", "exceptHosts", hosts, hasExcept, true},
		{"starts_with", "exceptHosts", hosts, hasExcept, true},
		{"exact", "query conditions", query, conds, true},
		{"starts_with", "query conditions", query, conds, true},
	}
}

// mergeQueryEffect is what the server formats answer for a mergeQuery rule:
// they pass the request's query on as preserveQuery does, since neither
// nginx nor HAProxy can drop the request's parameters of some names (and
// its empty pieces) from $args or query and keep the rest in order.
const mergeQueryEffect = "the request's query is appended whole after the destination's, its parameters that the destination's query names and its empty pieces too"

// mergeQueryDeclarations returns the declarations of the mergeQuery rules
// format holds: the nginx formats and the haproxy format write them as
// preserveQuery rules (mergeQueryEffect); the HAProxy maps and the csv
// file pass no query on, which their preserveQuery lines declare.
func (s *sorted) mergeQueryDeclarations(format string) []declaration {
	var mt string
	switch format {
	case "nginx", "haproxy":
		mt = "all"
	case "nginx-map-exact":
		mt = "exact"
	case "nginx-map-prefix":
		mt = "starts_with"
	default:
		return nil
	}
	ds := []declaration{{mt, "mergeQuery", mergeQueryEffect, func(r *redirects.Rule) bool { return r.MergeQuery }, false}}
	if s.chain != nil {
		held := func(r *redirects.Rule) bool {
			switch format {
			case "nginx-map-exact":
				return r.MergeQuery && r.MatchType == redirects.Exact
			case "nginx-map-prefix":
				return r.MergeQuery && r.MatchType != redirects.Exact
			}
			return r.MergeQuery
		}
		ds = append(ds, declaration{"all", "mergeQuery", mergeQueryEffect, held, true})
	}
	return ds
}

// plainEffect is the effect of the chain's residue for RE2 expressions
// (chainregex.go).
func plainEffect(server string) string {
	return "not matched when the path as sent holds an escape or a byte other than letters, digits and " + plainBytes[62:] +
		", " + server + " matches the RE2 expression against the path as sent"
}

// example is how a declaration names a rule: its source, after its host
// and a space when it has one (old.example.com /docs/*): a regex source
// need not start with '/', so host and source written together could read
// as one word (*.example.org^/archive/). Both are written as shortSource
// writes a source, so a control byte in a host stored unvalidated cannot
// end the comment line either.
func example(r *redirects.Rule) string {
	if r.Host == "" {
		return shortSource(r.Source)
	}
	return shortSource(r.Host) + " " + shortSource(r.Source)
}

// hasExactStatus reports whether an exact rule has status code.
func (s *sorted) hasExactStatus(code int) bool {
	for _, r := range s.exact {
		if int(r.code) == code {
			return true
		}
	}
	return false
}

// joinCodes writes codes as "302", "302 or 303", "302, 303 or 307".
func joinCodes(codes []int) string {
	var b strings.Builder
	for i, c := range codes {
		switch {
		case i == 0:
		case i == len(codes)-1:
			b.WriteString(" or ")
		default:
			b.WriteString(", ")
		}
		b.WriteString(strconv.Itoa(c))
	}
	return b.String()
}

// shortSource is a source as a report or a comment names it: sources over
// 60 bytes are cut, with their length, and a control byte is written %XX,
// so that no source can end a comment line (and start a line of the file)
// or hide in one.
func shortSource(src string) string {
	if len(src) > 60 {
		src = src[:40] + "... (" + strconv.Itoa(len(src)) + " bytes)"
	}
	if !strings.ContainsFunc(src, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
		return src
	}
	var b strings.Builder
	for i := 0; i < len(src); i++ {
		if c := src[i]; c < 0x20 || c == 0x7f {
			b.WriteString("%" + string(hexUpper[c>>4]) + string(hexUpper[c&15]))
		} else {
			b.WriteByte(c)
		}
	}
	return b.String()
}

// hasLetter reports whether s holds an ASCII letter, the bytes case
// folding changes.
func hasLetter(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i] | 0x20; 'a' <= c && c <= 'z' {
			return true
		}
	}
	return false
}

// writeDeclarations writes the declarations of format as comment lines,
// after a line naming the project's settings.
func (s *sorted) writeDeclarations(h *strings.Builder, format string) {
	if !s.ext {
		return
	}
	h.WriteString("# The project's settings: " + s.set.String() + ".\n")
	for _, d := range s.declarations(format) {
		h.WriteString("# " + d + "\n")
	}
}
