package manage

import (
	"bytes"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"

	"redirects"
	"redirects/api"
)

// TestRulePatternsAndHosts: the rule routes take the pattern and regex
// match types and a host (docs/contract.md#pattern-rules), answer the host
// in its key form and only on a rule that has one, and the rule list
// filters by match type (match, or matchType) and host.
func TestRulePatternsAndHosts(t *testing.T) { runSuite(t, testRulePatternsAndHosts) }

func testRulePatternsAndHosts(t *testing.T, open newStoreFunc) {
	e := newEnv(t, open, false, nil)
	a := e.newOrg("A")
	c := a.tokens[redirects.RoleEditor]
	rules := "/manage/v1/projects/" + a.project.ID + "/rules"

	// A host-less rule answers no host key: the shape is as before.
	r := c.do("POST", rules, map[string]any{"source": `^/p/(\d+)$`, "destination": "/posts/$1", "matchType": "regex"}).want(t, 201)
	if bytes.Contains(r.body, []byte(`"host"`)) {
		t.Fatalf("a host-less rule's answer %s holds a host", r.body)
	}
	var regex api.Rule
	r.decode(t, &regex)
	if regex.MatchType != "regex" || regex.Source != `^/p/(\d+)$` || regex.Host != "" {
		t.Fatalf("regex rule = %+v", regex)
	}
	// A host is answered in its key form.
	var pat api.Rule
	c.do("POST", rules, map[string]any{"source": "/:lang/docs/*", "destination": "/:lang/guide/:splat", "matchType": "pattern",
		"host": "Old.Example.COM."}).want(t, 201).decode(t, &pat)
	if pat.MatchType != "pattern" || pat.Host != "old.example.com" || pat.Destination != "/:lang/guide/:splat" {
		t.Fatalf("pattern rule = %+v, want host old.example.com", pat)
	}
	// One source on two hosts and on none: three rules; the same host
	// again is a conflict.
	var onHost, wild api.Rule
	c.do("POST", rules, map[string]any{"source": "/moved", "destination": "/here", "host": "old.example.com"}).want(t, 201).decode(t, &onHost)
	c.do("POST", rules, map[string]any{"source": "/moved", "destination": "/there", "host": "*.example.org"}).want(t, 201).decode(t, &wild)
	c.do("POST", rules, map[string]any{"source": "/moved", "destination": "/anywhere"}).want(t, 201)
	c.do("POST", rules, map[string]any{"source": "/moved", "destination": "/again", "host": "OLD.example.com"}).want(t, 409, "CONFLICT")
	// Query conditions on an exact rule.
	c.do("POST", rules, map[string]any{"source": "/index.php?p=:id", "destination": "/posts/:id"}).want(t, 201)

	list := func(query string) []string {
		t.Helper()
		var page api.RulePage
		c.do("GET", rules+query, nil).want(t, 200).decode(t, &page)
		var out []string
		for _, r := range page.Rules {
			out = append(out, r.MatchType+" "+r.Host+" "+r.Source)
		}
		if page.Total != len(out) {
			t.Fatalf("GET %s: total %d, %d rules", query, page.Total, len(out))
		}
		slices.Sort(out)
		return out
	}
	for _, tc := range []struct {
		query string
		want  []string
	}{
		{"?matchType=pattern", []string{"pattern old.example.com /:lang/docs/*"}},
		{"?match=regex", []string{`regex  ^/p/(\d+)$`}},
		{"?host=old.example.com", []string{"exact old.example.com /moved", "pattern old.example.com /:lang/docs/*"}},
		{"?host=" + url.QueryEscape("OLD.Example.com:8080"), []string{"exact old.example.com /moved", "pattern old.example.com /:lang/docs/*"}},
		{"?host=" + url.QueryEscape("*.example.org"), []string{"exact *.example.org /moved"}},
		{"?host=old.example.com&matchType=exact", []string{"exact old.example.com /moved"}},
		{"?host=&q=/moved", []string{"exact  /moved"}},
		{"?host=&match=exact", []string{"exact  /index.php?p=:id", "exact  /moved", "exact  /old"}},
	} {
		if got := list(tc.query); !slices.Equal(got, tc.want) {
			t.Errorf("GET rules%s = %q, want %q", tc.query, got, tc.want)
		}
	}
	for _, tc := range []struct{ query, want string }{
		{"?matchType=glob", `"matchType" is "glob", not one of exact, starts_with, pattern, regex`},
		{"?match=regex&matchType=regex", `"match" and "matchType" are one filter`},
		{"?host=" + url.QueryEscape("not a host"), "host"},
		{"?host=a&host=b", "host"},
	} {
		r := c.do("GET", rules+tc.query, nil).want(t, 400, "INVALID_QUERY")
		if _, msg := r.errBody(t); !strings.Contains(msg, tc.want) {
			t.Errorf("GET rules%s: message %q, want it to hold %q", tc.query, msg, tc.want)
		}
	}

	// A PATCH changes the host, and "" takes it away; one that names no
	// host keeps it.
	one := fmt.Sprintf("%s/%d", rules, pat.ID)
	var got api.Rule
	c.do("PATCH", one, map[string]any{"destination": "/:lang/manual/:splat"}).want(t, 200).decode(t, &got)
	if got.Host != "old.example.com" || got.Destination != "/:lang/manual/:splat" {
		t.Fatalf("after a PATCH of the destination = %+v, want the host kept", got)
	}
	c.do("PATCH", one, map[string]any{"host": "new.example.com"}).want(t, 200).decode(t, &got)
	if got.Host != "new.example.com" {
		t.Fatalf("after a PATCH of the host = %+v", got)
	}
	var none api.Rule // decoded afresh: the answer leaves an empty host out
	c.do("PATCH", one, map[string]any{"host": ""}).want(t, 200).decode(t, &none)
	if none.Host != "" || none.ID != pat.ID {
		t.Fatalf("after a PATCH of host \"\" = %+v, want no host", none)
	}
	stored, err := e.store.FindRule(e.ctx, a.project.ID, pat.ID)
	if err != nil || stored.Host != "" || stored.MatchType != redirects.Pattern {
		t.Fatalf("stored = %+v (%v)", stored, err)
	}

	// rules.csv has the host column, and imports back as it is: a replace
	// import of it changes nothing.
	csv := string(c.do("GET", rules+".csv", nil).want(t, 200).body)
	for _, want := range []string{"source,destination,statusCode,matchType,priority,id,host\r\n",
		fmt.Sprintf("/moved,/here,301,exact,100,%d,old.example.com\r\n", onHost.ID), `^/p/(\d+)$,/posts/$1,301,regex,100,`} {
		if !strings.Contains(csv, want) {
			t.Errorf("rules.csv lacks %q:\n%s", want, csv)
		}
	}
	var rep api.ImportCounts
	c.do("POST", "/manage/v1/projects/"+a.project.ID+"/imports?mode=replace", csvBody(csv)).want(t, 200).decode(t, &rep)
	if rep.Added != 0 || rep.Removed != 0 || rep.Updated != 0 {
		t.Errorf("rules.csv imported back with replace: %+v, want nothing added, removed or updated", rep)
	}
	// A replace gives the rules new IDs: the rest is as it was.
	noIDs := regexp.MustCompile(`,\d+,([^,\r]*)\r\n`)
	if again := string(c.do("GET", rules+".csv", nil).want(t, 200).body); noIDs.ReplaceAllString(again, ",$1\r\n") != noIDs.ReplaceAllString(csv, ",$1\r\n") {
		t.Errorf("rules.csv after importing it back:\n%s\nwas:\n%s", again, csv)
	}
}

// TestRulePatternsBadInput: a bad pattern, regex, capture or host is 400
// INVALID_INPUT naming the field (and, in a source, the position), and
// changes nothing, on create and on update.
func TestRulePatternsBadInput(t *testing.T) { runSuite(t, testRulePatternsBadInput) }

func testRulePatternsBadInput(t *testing.T, open newStoreFunc) {
	e := newEnv(t, open, false, nil)
	a := e.newOrg("A")
	c := a.tokens[redirects.RoleEditor]
	rules := "/manage/v1/projects/" + a.project.ID + "/rules"
	var pat api.Rule
	c.do("POST", rules, map[string]any{"source": "/blog/:slug", "destination": "/posts/:slug", "matchType": "pattern"}).want(t, 201).decode(t, &pat)
	snapshot := func() string {
		t.Helper()
		return string(c.do("GET", rules+"?sort=id", nil).want(t, 200).body)
	}
	was := snapshot()

	for _, tc := range []struct {
		name string
		body map[string]any
		want []string
	}{
		{"two placeholders with nothing between", map[string]any{"source": "/:a:b", "destination": "/x", "matchType": "pattern"}, []string{"source", "byte"}},
		{"a regex that does not compile", map[string]any{"source": "^/(a", "destination": "/x", "matchType": "regex"}, []string{"source", "byte"}},
		{"an undefined capture", map[string]any{"source": "/a/:x", "destination": "/b/:y", "matchType": "pattern"}, []string{"destination", "y"}},
		{"a group the regex lacks", map[string]any{"source": "^/a/(.*)$", "destination": "/b/$2", "matchType": "regex"}, []string{"destination", "$2"}},
		{"a capture in the host", map[string]any{"source": "/go/:site", "destination": "https://:site/", "matchType": "pattern"}, []string{"destination"}},
		{"an oversized regex", map[string]any{"source": "^/" + strings.Repeat("a", 1100) + "$", "destination": "/x", "matchType": "regex"}, []string{"source", "1024"}},
		{"a malformed host", map[string]any{"source": "/a", "destination": "/b", "host": "not a host"}, []string{"host"}},
		{"an unknown match type", map[string]any{"source": "/a", "destination": "/b", "matchType": "glob"}, []string{"matchType", "pattern, regex"}},
	} {
		r := c.do("POST", rules, tc.body).want(t, 400, "INVALID_INPUT")
		_, msg := r.errBody(t)
		for _, w := range tc.want {
			if !strings.Contains(msg, w) {
				t.Errorf("POST %s: message %q, want it to name %q", tc.name, msg, w)
			}
		}
	}
	one := fmt.Sprintf("%s/%d", rules, pat.ID)
	for _, tc := range []struct {
		name string
		body map[string]any
		want string
	}{
		{"a bad pattern", map[string]any{"source": "/:a:b"}, "source"},
		{"an undefined capture", map[string]any{"destination": "/:nope"}, "destination"},
		{"a malformed host", map[string]any{"host": "a..b"}, "host"},
		{"regex with a pattern's source", map[string]any{"matchType": "regex", "source": "^/(x"}, "source"},
	} {
		r := c.do("PATCH", one, tc.body).want(t, 400, "INVALID_INPUT")
		if _, msg := r.errBody(t); !strings.Contains(msg, tc.want) {
			t.Errorf("PATCH %s: message %q, want it to name %q", tc.name, msg, tc.want)
		}
	}
	if now := snapshot(); now != was {
		t.Fatalf("bad input changed the rules:\n%s\nwas:\n%s", now, was)
	}
}
