package importer

import (
	"bufio"
	"bytes"
	"io"
	"strconv"
	"strings"

	"redirects"
)

// HAProxy: the project's own haproxy export (an ACL and its http-request
// lines per rule, docs/exports.md) and its two map exports, read back, as
// issue #21's round trip asks. The haproxy format also reads hand-written
// configurations of the same shapes: "acl NAME path|path_beg [-i]
// PATTERN..." and "http-request redirect code NNN location URL if NAME"
// (https://docs.haproxy.org/2.6/configuration.html#4.2-http-request%20redirect).
func init() {
	Register(&Format{
		Name:        "haproxy",
		Title:       "HAProxy ACLs and http-request redirect lines (the haproxy export)",
		FirstMatch:  true,
		Defaults:    &redirects.Settings{},
		DefaultsWhy: "HAProxy's path and path_beg compare case-sensitively (unless -i) and with a trailing slash significant",
		Detect:      detectHAProxy,
		Read:        readHAProxy,
		Example: "acl redirect_1 path /old\n" +
			"http-request redirect code 301 location /new if redirect_1\n" +
			"acl redirect_2 path_beg /docs/\n" +
			"http-request redirect code 308 location https://docs.example.com/ if redirect_2\n",
	})
	Register(&Format{
		Name:   "haproxy-map",
		Title:  "HAProxy map file (the haproxy-map-exact and haproxy-map-prefix exports)",
		Detect: detectHAProxyMap,
		Read:   readHAProxyMap,
		Example: "# haproxy-map-prefix: 1 starts_with source for map_beg (docs/exports.md).\n" +
			"/docs/ 301 /guide/\n/old-exact /new\n",
	})
}

func detectHAProxy(head []byte, _ string) (bool, string) {
	acl, redirect := false, false
	for line := range bytes.SplitSeq(head, []byte("\n")) {
		l := strings.TrimSpace(string(line))
		acl = acl || strings.HasPrefix(l, "acl ") && (strings.Contains(l, " path ") || strings.Contains(l, " path_beg "))
		redirect = redirect || strings.HasPrefix(l, "http-request redirect ")
	}
	if acl && redirect {
		return true, "it holds HAProxy acl lines on path and http-request redirect lines"
	}
	return false, ""
}

func detectHAProxyMap(head []byte, _ string) (bool, string) {
	if bytes.HasPrefix(head, []byte("# haproxy-map-exact:")) || bytes.HasPrefix(head, []byte("# haproxy-map-prefix:")) {
		return true, "its first line names the project's haproxy map export"
	}
	return false, ""
}

// decodePath percent-decodes a path as HAProxy's url_dec and the lookup do;
// ok is false for a malformed escape.
func decodePath(s string) (string, bool) {
	if !strings.Contains(s, "%") {
		return s, true
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '%' {
			if i+2 >= len(s) {
				return "", false
			}
			v, err := strconv.ParseUint(s[i+1:i+3], 16, 8)
			if err != nil {
				return "", false
			}
			b.WriteByte(byte(v))
			i += 2
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String(), true
}

type haproxyACL struct {
	patterns []haproxyPattern
	// pp, pq: the export's conditional lines for this ACL append the rest
	// of the path and the query.
	pp, pq bool
	// qaf: the query is appended after the destination's fragment
	// (queryAfterFragment).
	qaf  bool
	done bool
}

type haproxyPattern struct {
	src    string
	prefix bool
	ci     bool
}

func readHAProxy(in io.Reader, o *Options, sink *Sink) error {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	acls := map[string]*haproxyACL{}
	line := 0
	for sc.Scan() {
		line++
		text := sc.Text()
		t := strings.TrimSpace(text)
		if t == "" || t[0] == '#' {
			continue
		}
		f := strings.Fields(t)
		switch {
		case f[0] == "acl":
			if len(f) < 4 {
				sink.Bad(line, "acl takes a name, a fetch and patterns")
				continue
			}
			a := acls[f[1]]
			if a == nil {
				a = &haproxyACL{}
				acls[strings.Clone(f[1])] = a // not to keep the line
			}
			fetch, pats := f[2], f[3:]
			ci := false
			for len(pats) > 0 && strings.HasPrefix(pats[0], "-") {
				switch pats[0] {
				case "-i":
					ci = true
				case "-m":
					if len(pats) > 1 && pats[1] == "beg" {
						fetch += "_beg"
					}
					pats = pats[1:]
				}
				pats = pats[1:]
			}
			if fetch != "path" && fetch != "path_beg" {
				sink.Skip(line, "an ACL on %s: only path and path_beg are read", fetch)
				sink.Text(line, text)
				a.done = true
				continue
			}
			for _, p := range pats {
				src, ok := decodePath(p)
				if !ok {
					sink.Bad(line, "the pattern %s holds a malformed escape", p)
					continue
				}
				if !a.done { // a done ACL's patterns are never read
					a.patterns = append(a.patterns, haproxyPattern{src: strings.Clone(src), prefix: fetch == "path_beg", ci: ci})
				}
			}
		case f[0] == "http-request" && len(f) > 1 && (f[1] == "redirect" || f[1] == "return"):
			haproxyRequest(line, text, f, acls, o, sink)
		}
	}
	return sc.Err()
}

// haproxyRequest reads one http-request redirect or return line.
func haproxyRequest(line int, text string, f []string, acls map[string]*haproxyACL, o *Options, sink *Sink) {
	defer sink.Text(line, text)
	cond := -1
	for i, w := range f {
		if w == "if" || w == "unless" {
			cond = i
			break
		}
	}
	if cond < 0 || f[cond] == "unless" || cond+1 >= len(f) {
		sink.Skip(line, "a redirect without an if ACL condition")
		return
	}
	a := acls[f[cond+1]]
	extra := strings.Join(f[cond+2:], " ")
	if a == nil {
		sink.Bad(line, "the ACL %s is not defined above", f[cond+1])
		return
	}
	if a.done {
		sink.Skip(line, "the ACL %s answers above already", f[cond+1])
		return
	}
	// The export's conditional lines (export.appendHAProxyAnswer).
	if extra != "" {
		if strings.Contains(extra, "path,length gt") {
			a.pp = true
		}
		if strings.Contains(extra, "query -m len gt 0") {
			a.pq = true
			for i := 2; i+1 < cond; i++ {
				if f[i] == "location" {
					// The query after the fragment: /b#top?%[query].
					_, frag, ok := strings.Cut(strings.ReplaceAll(f[i+1], `\#`, "#"), "#")
					a.qaf = a.qaf || ok && strings.HasSuffix(frag, "%[query]")
				}
			}
		}
		if a.pp || a.pq {
			return
		}
		sink.Skip(line, "the condition %s is not importable", extra)
		return
	}
	code, dst := 0, ""
	switch {
	case f[1] == "return":
		if len(f) < 4 || f[2] != "status" {
			sink.Bad(line, "http-request return takes status NNN")
			return
		}
		code, _ = strconv.Atoi(f[3])
		if code != 410 {
			sink.Skip(line, "return status %s is not a redirect", f[3])
			return
		}
	default:
		for i := 2; i+1 < cond; i++ {
			switch f[i] {
			case "code":
				code, _ = strconv.Atoi(f[i+1])
			case "location":
				dst = f[i+1]
			case "prefix", "scheme":
				sink.Skip(line, "a redirect %s: not importable", f[i])
				return
			}
		}
		if code == 0 {
			code = 302
		}
		if dst == "" {
			sink.Bad(line, "http-request redirect without a location")
			return
		}
		if strings.Contains(strings.ReplaceAll(dst, "%%", ""), "%[") {
			sink.Skip(line, "the location %s computes its URL from the request", dst)
			return
		}
		dst = strings.ReplaceAll(strings.ReplaceAll(dst, "%%", "%"), `\#`, "#")
	}
	a.done = true
	seen := map[string]bool{}
	ci := false
	for _, p := range a.patterns {
		ci = ci || p.ci
	}
	if ci && !o.Settings.CaseInsensitive {
		for _, p := range a.patterns {
			if hasLetter(p.src) {
				sink.Note(line, "-i matches regardless of case; here as the project compares, case-sensitively")
				break
			}
		}
	}
	for _, p := range a.patterns {
		mt := redirects.Exact
		if p.prefix {
			mt = redirects.StartsWith
		}
		// The export's twins under trailingSlash ignore are one source here.
		key := mt.String() + " " + o.Settings.Key(p.src)
		// An exact twin of a path_beg source without its '/' is that
		// source under trailingSlash ignore.
		if seen[key] || !p.prefix && o.Settings.IgnoreTrailingSlash && seen["starts_with "+o.Settings.Key(p.src+"/")] {
			continue
		}
		seen[key] = true
		r := redirects.Rule{Source: p.src, MatchType: mt, Destination: dst, StatusCode: code}
		if code != 410 {
			r.PreservePath = a.pp && p.prefix
			r.PreserveQuery = a.pq
			r.QueryAfterFragment = a.pq && a.qaf && strings.Contains(dst, "#")
		} else {
			r.Destination = ""
		}
		sink.Rule(line, r)
	}
	// Only its being done is read again: a million ACLs take little.
	acls[strings.Clone(f[cond+1])] = haproxyDone
}

// haproxyDone stands for every ACL that answered already.
var haproxyDone = &haproxyACL{done: true}

// readHAProxyMap reads a map file of the exports: "SOURCE DESTINATION"
// (haproxy-map-exact: an exact 301, the snippet's status) or "SOURCE
// STATUS [DESTINATION]" (haproxy-map-prefix: a starts_with rule; map_beg
// takes the longest matching source, so the rules share one priority).
func readHAProxyMap(in io.Reader, o *Options, sink *Sink) error {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	line := 0
	for sc.Scan() {
		line++
		t := strings.TrimSpace(sc.Text())
		if t == "" || t[0] == '#' {
			continue
		}
		f := strings.Fields(t)
		if len(f) < 2 || len(f) > 3 {
			sink.Bad(line, "a map line takes SOURCE DESTINATION or SOURCE STATUS [DESTINATION]")
			continue
		}
		code, err := strconv.Atoi(f[1])
		r := redirects.Rule{Source: f[0], Priority: redirects.DefaultPriority}
		switch {
		case err != nil && len(f) == 2:
			r.MatchType, r.StatusCode, r.Destination = redirects.Exact, 301, f[1]
		case err == nil && (len(f) == 3 || code == 410):
			r.MatchType, r.StatusCode = redirects.StartsWith, code
			if len(f) == 3 {
				r.Destination = f[2]
			}
		default:
			sink.Bad(line, "a map line takes SOURCE DESTINATION or SOURCE STATUS [DESTINATION]")
			continue
		}
		sink.Rule(line, r)
	}
	return sc.Err()
}
