package export_test

import (
	"strings"
	"testing"
	"time"

	"redirects"
	"redirects/export"
)

// extendedRules is a project with one rule of each extended kind beside
// two literal ones.
func extendedRules() []redirects.Rule {
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	return []redirects.Rule{
		{ID: 1, CreatedAt: t0, MatchType: redirects.Exact, Source: "/old", Destination: "/new", StatusCode: 301},
		{ID: 2, CreatedAt: t0, MatchType: redirects.StartsWith, Source: "/blog/", Destination: "/news/", StatusCode: 302},
		{ID: 3, CreatedAt: t0, MatchType: redirects.Pattern, Source: "/:lang/docs/*", Destination: "/docs/:lang/:splat", StatusCode: 301},
		{ID: 4, CreatedAt: t0, MatchType: redirects.Regex, Source: `^/p/(\d{1,3})$`, Destination: "/q/$1", StatusCode: 301},
		{ID: 5, CreatedAt: t0, MatchType: redirects.Exact, Source: "/index.php?p=123", Destination: "/post", StatusCode: 301},
		{ID: 6, CreatedAt: t0, MatchType: redirects.StartsWith, Source: "/", Destination: "https://example.org/", StatusCode: 301, Host: "old.example.com"},
	}
}

// TestExtendedRulesDeclared: the csv keeps pattern and regex rows with
// their matchType (by priority, then the longer source) and conditions in
// the source, and leaves the host-scoped rule out; each format that leaves a kind out says so in its opening
// comment, with an example, and the report lists the same lines.
func TestExtendedRulesDeclared(t *testing.T) {
	c, err := export.Build(extendedRules(), redirects.Settings{})
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{}
	for _, e := range c.Exports {
		files[e.Format] = string(e.Body)
	}
	wantCSV := "source,destination,statusCode,matchType\r\n/old,/new,301,exact\r\n/blog/,/news/,302,starts_with\r\n" +
		"/index.php?p=123,/post,301,exact\r\n\"^/p/(\\d{1,3})$\",/q/$1,301,regex\r\n/:lang/docs/*,/docs/:lang/:splat,301,pattern\r\n"
	if files["csv"] != wantCSV {
		t.Errorf("csv:\n%q\nwant\n%q", files["csv"], wantCSV)
	}
	for format, want := range map[string][]string{
		"nginx":              {"# Differs: regex rules with an escaped request path: not matched when the path as sent holds an escape or a byte other than letters, digits and -._~!$&()*+,;=:@/, nginx matches the RE2 expression against the path as sent (1 rule, e.g. ^/p/(\\d{1,3})$)"},
		"haproxy":            {"# Differs: regex rules with an escaped request path: not matched when"},
		"nginx-map-prefix":   {"# Differs: regex rules with an escaped request path: not matched when"},
		"haproxy-map-exact":  {"# Differs: pattern rules with any source: left out, this file matches literal paths only, map_reg would read its literal keys as regular expressions too (1 rule, e.g. /:lang/docs/*)", "# Differs: exact rules with query conditions: left out, this file does not read the query (1 rule, e.g. /index.php?p=123)"},
		"haproxy-map-prefix": {"# Differs: starts_with rules with a host: left out"},
	} {
		for _, w := range want {
			if !strings.Contains(files[format], "\n"+w) {
				t.Errorf("%s does not declare %q:\n%s", format, w, files[format])
			}
		}
	}
	for _, w := range []string{
		"csv: all rules with a host: left out, the file has no host column (1 rule, e.g. old.example.com /)\n",
		"haproxy-map-prefix: starts_with rules with a host: left out, this file answers every host alike (1 rule, e.g. old.example.com /)\n",
	} {
		if !strings.Contains(c.Report, w) {
			t.Errorf("the report does not say %q:\n%s", w, c.Report)
		}
	}
	// The nginx map formats answer the extended rules they hold in a
	// second map, and declare none of them left out.
	for format, w := range map[string]string{
		"nginx-map-exact":  "\nmap \"$host $request_uri\" $redirect_exact_extended {\n",
		"nginx-map-prefix": "\nmap \"$host $request_uri\" $redirect_prefix_extended {\n",
	} {
		if !strings.Contains(files[format], w) || strings.Contains(files[format], ": left out") {
			t.Errorf("%s does not answer the extended rules in its second map:\n%s", format, files[format])
		}
	}
	// The literal rules keep their lines in the formats that leave the
	// others out.
	for format, w := range map[string]string{"nginx-map-exact": "\n    /old /new;\n", "haproxy-map-exact": "\n/old /new\n", "haproxy-map-prefix": "\n/blog/ 302 /news/\n"} {
		if !strings.Contains(files[format], w) {
			t.Errorf("%s lost a literal rule's line %q:\n%s", format, w, files[format])
		}
	}
}

// TestExtendedRulesEngineRefuses: rules the pattern engine refuses (as
// rules stored before it existed could be) are left out of every format
// and declared, and the literal ones rendered as before.
func TestExtendedRulesEngineRefuses(t *testing.T) {
	rules := extendedRules()
	rules[2].Source = "/:a:b" // two placeholders with no text between them
	c, err := export.Build(rules, redirects.Settings{})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range c.Exports {
		if e.Format == "csv" {
			continue
		}
		if !strings.Contains(string(e.Body), "\n# Differs: pattern rules with any source: left out, this file matches literal paths only (1 rule, e.g. /:a:b)\n") {
			t.Errorf("%s does not declare the pattern rule the engine refuses:\n%s", e.Format, e.Body)
		}
	}
	b, _ := export.BuildFormat("nginx", rules, redirects.Settings{})
	if !strings.Contains(string(b), "\nlocation = /old { return 301 /new; }\n") {
		t.Errorf("nginx lost the exact rule's location:\n%s", b)
	}
}

// TestReportNamesHostAndSource: the report names a host-scoped rule by its
// host, a space and its source (a regex source need not start with '/'),
// and lists declarations only for the kinds the rules use.
func TestReportNamesHostAndSource(t *testing.T) {
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	rules := []redirects.Rule{
		{ID: 1, CreatedAt: t0, MatchType: redirects.Exact, Source: "/old", Destination: "/new", StatusCode: 301},
		{ID: 2, CreatedAt: t0, MatchType: redirects.Regex, Source: `^/archive/(\d+)$`, Destination: "/a/$1", StatusCode: 301, Host: "*.example.org"},
	}
	rep := export.Report(rules, redirects.Settings{})
	if want := "(1 rule, e.g. *.example.org ^/archive/(\\d+)$)\n"; !strings.Contains(rep, want) {
		t.Errorf("the report does not name the rule as %q:\n%s", want, rep)
	}
	for _, kind := range []string{"pattern rules", "query conditions", "a constraint"} {
		if strings.Contains(rep, kind) {
			t.Errorf("the report speaks of %s, which no rule uses:\n%s", kind, rep)
		}
	}
	// The nginx and haproxy formats answer this regex rule but for paths
	// sent with escapes: they say so, and nothing more of it. (haproxy
	// writes the literal rule /old in docs/contract.md's shape, and
	// declares what its ACL does: those lines are about /old.)
	for _, format := range []string{"nginx", "haproxy"} {
		var got []string
		for l := range strings.SplitSeq(rep, "\n") {
			if format == "haproxy" && strings.HasPrefix(l, "haproxy: exact rules with ") && strings.HasSuffix(l, "(1 rule, e.g. /old)") {
				continue
			}
			if strings.HasPrefix(l, format+": ") {
				got = append(got, l)
			}
		}
		if len(got) != 1 || !strings.HasPrefix(got[0], format+": regex rules with an escaped request path: ") {
			t.Errorf("the report gives %s the lines %q, want one on regex rules with an escaped request path:\n%s", format, got, rep)
		}
	}
}

// TestReportDeclaresOnlyUsedKinds: the deploy report (and so the
// dashboard's Deploy tab, export.ReportKinds of it) and each file's
// opening comment declare a kind of extended rule only when the draft has
// such a rule: a draft with one kind beside literal rules names that kind
// and no other.
func TestReportDeclaresOnlyUsedKinds(t *testing.T) {
	all := extendedRules()
	// What a declaration of each kind says, in the report and the files.
	kinds := map[int64]string{3: "pattern rules", 4: "regex rules", 5: "query conditions", 6: "with a host"}
	for id, kind := range kinds {
		rules := append(append([]redirects.Rule(nil), all[:2]...), all[id-1])
		c, err := export.Build(rules, redirects.Settings{})
		if err != nil {
			t.Fatal(err)
		}
		// Every declaration: the report's lines, the Deploy tab's kinds,
		// each file's "# Differs:" lines.
		decls := strings.Split(strings.TrimSpace(c.Report), "\n")
		for _, k := range export.ReportKinds(c.Report) {
			decls = append(decls, k.What)
		}
		for _, e := range c.Exports {
			for _, line := range strings.Split(string(e.Body), "\n") {
				if strings.HasPrefix(line, "# Differs: ") {
					decls = append(decls, e.Format+" "+line)
				}
			}
		}
		named := false
		for _, d := range decls {
			named = named || strings.Contains(d, kind)
			for other, okind := range kinds {
				if other != id && strings.Contains(d, okind) {
					t.Errorf("rule %d alone (%s): %q declares %q, which the draft does not use", id, kind, d, okind)
				}
			}
		}
		if !named {
			t.Errorf("rule %d alone: no declaration names %q:\n%s", id, kind, strings.Join(decls, "\n"))
		}
	}
}
