package export_test

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"redirects"
	"redirects/export"
	"redirects/internal/rulemodel"
)

// The haproxy format of a project with extended rules writes its literal
// rules (no host, no query conditions) in docs/contract.md's line shape:
// "acl redirect_<n> path -i <source>" (path_beg for starts_with) and
// "http-request redirect code <code> location <destination> if
// redirect_<n>", among the chain's cases, in the lookup API's order. What
// that shape answers otherwise is declared by two lines per match type:
// "a letter in the source" (-i, in a case-sensitive project) and
// haproxyEscapedCond (the ACL compares the path as sent).

// haproxyEscapedCond is the condition of the declarations about a request
// path escaped otherwise than browsers do.
const haproxyEscapedCond = "a request path escaped otherwise than browsers do"

// browserDeclared returns the literal rules format declares with
// haproxyEscapedCond: a request whose path is not sent as browsers send
// it (sentAsBrowser) may be answered otherwise when the API answers it
// with one of them.
func browserDeclared(t *testing.T, format string, body []byte, rules []redirects.Rule) map[*redirects.Rule]bool {
	t.Helper()
	out := map[*redirects.Rule]bool{}
	for line := range strings.SplitSeq(string(body), "\n") {
		if !strings.HasPrefix(line, "#") {
			break
		}
		for _, mt := range []redirects.MatchType{redirects.Exact, redirects.StartsWith} {
			if !strings.HasPrefix(line, "# Differs: "+mt.String()+" rules with "+haproxyEscapedCond+": ") {
				continue
			}
			for i := range rules {
				if r := &rules[i]; r.MatchType == mt && !r.Extended() {
					out[r] = true
				}
			}
		}
	}
	return out
}

// sentAsBrowser reports whether the path of the request target wire is
// the form browsers send of its decoding (up to the case of hex digits,
// which -i ignores).
func sentAsBrowser(wire string) bool {
	path, _, _ := strings.Cut(wire, "?")
	d, ok := modelPath(path)
	return ok && strings.EqualFold(path, modelBrowserSource(d))
}

// specCase reports whether a literal rule the file declares with "a
// letter in the source" matches wire regardless of case (and with the
// project's trailing slash) but not as the project compares: the ACL's -i
// takes such a request.
func specCase(t *testing.T, format string, body []byte, rules []redirects.Rule, set redirects.Settings, wire string) bool {
	t.Helper()
	fold := rulemodel.Settings{CaseInsensitive: true, IgnoreTrailingSlash: set.IgnoreTrailingSlash}
	for line := range strings.SplitSeq(string(body), "\n") {
		if !strings.HasPrefix(line, "#") {
			break
		}
		for _, mt := range []redirects.MatchType{redirects.Exact, redirects.StartsWith} {
			if !strings.HasPrefix(line, "# Differs: "+mt.String()+" rules with a letter in the source: ") {
				continue
			}
			for _, r := range rules {
				if r.MatchType != mt || r.Extended() || !hasASCIILetter(r.Source) {
					continue
				}
				_, folded := rulemodel.Lookup([]redirects.Rule{r}, fold, wire)
				_, as := rulemodel.Lookup([]redirects.Rule{r}, rulemodel.Of(set), wire)
				if folded && !as {
					return true
				}
			}
		}
	}
	return false
}

func hasASCIILetter(s string) bool {
	return strings.ContainsFunc(s, func(c rune) bool { return 'a' <= c|0x20 && c|0x20 <= 'z' })
}

var (
	specACL      = regexp.MustCompile(`^acl redirect_([0-9]+) (path|path_beg) -i (\S+)(?: (\S+))?$`)
	specRedirect = regexp.MustCompile(`^http-request (?:redirect code [0-9]+ location \S+|return status 410) if redirect_([0-9]+)(?: .*)?$`)
)

// checkSpecShape fails unless every literal rule of rules (one per match
// type and source: the first, as the API keeps) is written in
// docs/contract.md's shape in the haproxy file body: its ACL, numbered in
// file order from 1, of its source as browsers send it (path for exact
// rules, path_beg for starts_with rules), after "# Exact match redirects"
// or "# Prefix redirects" as its match type asks, exact rules first; and
// for a rule without options and a status other than 410, the one
// redirect line "http-request redirect code <code> location <destination>
// if redirect_<n>" with the destination as a log-format literal. It
// returns the number of rules checked.
func checkSpecShape(t *testing.T, body []byte, rules []redirects.Rule) int {
	t.Helper()
	type acl struct {
		mt   redirects.MatchType
		line int
	}
	acls := map[string]acl{} // by match type and source as browsers send it
	redirectsOf := map[string][]string{}
	section := ""
	next := 1
	lastExact, firstPrefix := -1, -1
	lines := strings.Split(string(body), "\n")
	for i, l := range lines {
		switch l {
		case "# Exact match redirects", "# Prefix redirects":
			if section != "" && l == "# Exact match redirects" || section == "prefix" {
				t.Fatalf("line %d: %q out of order", i+1, l)
			}
			section = map[string]string{"# Exact match redirects": "exact", "# Prefix redirects": "prefix"}[l]
			continue
		}
		if m := specACL.FindStringSubmatch(l); m != nil {
			n, _ := strconv.Atoi(m[1])
			mt := redirects.Exact
			if m[2] == "path_beg" {
				mt = redirects.StartsWith
			}
			if n == next-1 && section == "prefix" && m[2] == "path" {
				continue // the second ACL line of a source ending in '/' under trailingSlash ignore
			}
			if n != next {
				t.Fatalf("line %d: ACL redirect_%d, want redirect_%d (numbered in file order)", i+1, n, next)
			}
			next++
			want := map[redirects.MatchType]string{redirects.Exact: "exact", redirects.StartsWith: "prefix"}[mt]
			if section != want {
				t.Fatalf("line %d: %s ACL in section %q", i+1, want, section)
			}
			if mt == redirects.Exact {
				lastExact = i
			} else if firstPrefix < 0 {
				firstPrefix = i
			}
			acls[mt.String()+" "+m[3]] = acl{mt, n}
			continue
		}
		if m := specRedirect.FindStringSubmatch(l); m != nil {
			redirectsOf[m[1]] = append(redirectsOf[m[1]], l)
		}
	}
	if lastExact >= 0 && firstPrefix >= 0 && lastExact > firstPrefix {
		t.Fatalf("an exact ACL (line %d) after a prefix ACL (line %d)", lastExact+1, firstPrefix+1)
	}
	seen := map[string]bool{}
	n := 0
	for _, r := range rules {
		if r.Extended() {
			continue
		}
		key := r.MatchType.String() + " " + modelBrowserSource(r.Source)
		if seen[key] {
			continue
		}
		seen[key] = true
		a, ok := acls[key]
		if !ok {
			t.Fatalf("literal rule %s %q is not written as an ACL in docs/contract.md's shape (%s)\n%s", r.MatchType, r.Source, key, body)
		}
		n++
		reds := redirectsOf[strconv.Itoa(a.line)]
		if len(reds) == 0 {
			t.Fatalf("literal rule %s %q: no redirect line if redirect_%d", r.MatchType, r.Source, a.line)
		}
		if r.StatusCode != redirects.StatusGone && !r.PreservePath && !r.PreserveQuery {
			want := fmt.Sprintf("http-request redirect code %d location %s if redirect_%d", r.StatusCode, logFormatLiteral(r.Destination), a.line)
			if len(reds) != 1 || reds[0] != want {
				t.Fatalf("literal rule %s %q: redirect lines %q, want %q", r.MatchType, r.Source, reds, want)
			}
		}
	}
	return n
}

// logFormatLiteral is a destination as a log-format string writes it.
func logFormatLiteral(s string) string {
	return strings.NewReplacer("%", "%%", "#", `\#`).Replace(s)
}

// TestHAProxySpecBound: the haproxy format of a project with extended
// rules writes its literal rules as ACL lines up to the bound
// (export.SetHAProxySpecMax) and declares their -i and path as sent; one
// literal rule more and they are all chain cases, the opening comment says
// why, and nothing is declared of them.
func TestHAProxySpecBound(t *testing.T) {
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	rules := []redirects.Rule{
		{ID: 1, CreatedAt: t0, MatchType: redirects.Exact, Source: "/a", Destination: "/x", StatusCode: 301},
		{ID: 2, CreatedAt: t0, MatchType: redirects.Exact, Source: "/b", Destination: "/y", StatusCode: 302},
		{ID: 3, CreatedAt: t0, MatchType: redirects.StartsWith, Source: "/c/", Destination: "/z/", StatusCode: 301},
		{ID: 4, CreatedAt: t0, MatchType: redirects.Pattern, Source: "/p/:x", Destination: "/q/:x", StatusCode: 301},
	}
	for _, c := range []struct {
		max  int
		acls int
	}{{3, 3}, {2, 0}} {
		restore := export.SetHAProxySpecMax(c.max)
		body, _ := export.BuildFormat("haproxy", rules, redirects.Settings{})
		restore()
		s := string(body)
		if n := strings.Count(s, "\nacl redirect_"); n != c.acls {
			t.Errorf("bound %d: %d ACL lines, want %d:\n%s", c.max, n, c.acls, s)
		}
		declared := strings.Contains(s, "# Differs: exact rules with a letter in the source: ") && strings.Contains(s, "# Differs: starts_with rules with "+haproxyEscapedCond+": ")
		said := strings.Contains(s, "# The 3 literal rules are written as chain cases too") && strings.Contains(s, "more than\n# 2 named ACLs would make loading the file take minutes")
		if declared != (c.acls > 0) || said != (c.acls == 0) {
			t.Errorf("bound %d: declarations %v, comment on the bound %v:\n%s", c.max, declared, said, s)
		}
		if c.acls == 0 && strings.Count(s, "var(txn.redirects_path) -m ") != 3 {
			t.Errorf("bound %d: the literal rules are not the chain's -m str/-m beg cases:\n%s", c.max, s)
		}
	}
}
