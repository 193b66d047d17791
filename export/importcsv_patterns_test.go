package export_test

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"redirects"
	"redirects/export"
	"redirects/internal/rulegen"
)

// validRules draws rules of every kind (rulegen.AnyKind) and keeps those
// Validate accepts, in their validated form, one per match type, host and
// source, as a project holds them.
func validRules(t *rapid.T) []redirects.Rule {
	drawn := rapid.SliceOfN(rulegen.AnyKind(), 0, 25).Draw(t, "rules")
	type key struct {
		mt           redirects.MatchType
		host, source string
	}
	seen := map[key]bool{}
	var out []redirects.Rule
	for _, r := range drawn {
		if r.Validate() != nil {
			continue
		}
		k := key{r.MatchType, r.Host, r.Source}
		if seen[k] {
			continue
		}
		seen[k] = true
		r.ID = int64(len(out) + 1)
		out = append(out, r)
	}
	return out
}

// sameFileRule is what a file keeps of a rule: everything but its ID, age and
// revision.
func sameFileRule(a, b redirects.Rule) bool {
	return a.Source == b.Source && a.Destination == b.Destination && a.StatusCode == b.StatusCode && a.MatchType == b.MatchType &&
		a.Priority == b.Priority && a.PreservePath == b.PreservePath && a.PreserveQuery == b.PreserveQuery && a.Host == b.Host &&
		a.QueryAfterFragment == b.QueryAfterFragment && a.MergeQuery == b.MergeQuery && slices.Equal(a.ExceptHosts, b.ExceptHosts)
}

// TestDraftCSVRoundTripAnyKind: random rules of every kind, host, query
// condition, capture, status and option, written as the draft CSV (the
// import file and rules.csv), read back equal, in order; the host column
// is written exactly when a rule has a host.
func TestDraftCSVRoundTripAnyKind(t *testing.T) {
	kinds := map[redirects.MatchType]int{}
	rapid.Check(t, func(t *rapid.T) {
		rules := validRules(t)
		hosts := false
		for _, r := range rules {
			hosts = hosts || r.Host != ""
			kinds[r.MatchType]++
		}
		for _, draft := range []bool{false, true} {
			var buf bytes.Buffer
			write := export.WriteCSV
			if draft {
				write = export.WriteDraftCSV
			}
			if err := write(&buf, rules); err != nil {
				t.Fatal(err)
			}
			header, _, _ := strings.Cut(buf.String(), "\r\n")
			qaf := slices.ContainsFunc(rules, func(r redirects.Rule) bool { return r.QueryAfterFragment })
			mq := slices.ContainsFunc(rules, func(r redirects.Rule) bool { return r.MergeQuery })
			except := slices.ContainsFunc(rules, func(r redirects.Rule) bool { return len(r.ExceptHosts) > 0 })
			h, hasExcept := strings.CutSuffix(header, ",exceptHosts")
			h, hasMQ := strings.CutSuffix(h, ",mergeQuery")
			h, hasQAF := strings.CutSuffix(h, ",queryAfterFragment")
			if strings.HasSuffix(h, ",host") != hosts || hasQAF != qaf || hasMQ != mq || hasExcept != except {
				t.Fatalf("header %q with hosts %t, queryAfterFragment %t, mergeQuery %t, exceptHosts %t", header, hosts, qaf, mq, except)
			}
			got, _, err := export.ReadCSV(bytes.NewReader(buf.Bytes()))
			if err != nil {
				t.Fatalf("reading back (draft %t): %v\n%s", draft, err, buf.String())
			}
			if len(got) != len(rules) {
				t.Fatalf("read %d rules of %d (draft %t)\n%s", len(got), len(rules), draft, buf.String())
			}
			for i := range rules {
				if !sameFileRule(got[i], rules[i]) {
					t.Fatalf("rule %d came back as %+v, want %+v\n%s", i, got[i], rules[i], buf.String())
				}
			}
		}
	})
	for _, mt := range redirects.MatchTypes {
		if kinds[mt] == 0 {
			t.Errorf("no valid %s rule was drawn: the round trip did not try that kind", mt)
		}
	}
}

// TestDraftCSVHostsAndPatterns: the host column reads in any case and
// position, an empty cell or none is no host, the new match types in any
// spelling; a file without the column reads as before; a bad host, a bad
// pattern and two rules of one match type, host and source are bad lines
// naming the field.
func TestDraftCSVHostsAndPatterns(t *testing.T) {
	in := "Host;source;destination;status;match\n" +
		"Old.Example.COM;/a;/b;301;exact\n" +
		";/a;/c;301;EXACT\n" +
		"*.example.org;/:lang/docs/*;/:lang/guide/:splat;302;Pattern\n" +
		";^/p/(\\d+)$;/posts/$1;308;REGEX\n"
	rules, lines, err := export.ReadCSV(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"exact old.example.com /a /b", "exact  /a /c", "pattern *.example.org /:lang/docs/* /:lang/guide/:splat", `regex  ^/p/(\d+)$ /posts/$1`}
	for i, r := range rules {
		if got := fmt.Sprintf("%s %s %s %s", r.MatchType, r.Host, r.Source, r.Destination); i >= len(want) || got != want[i] {
			t.Errorf("rule %d (line %d) = %q, want %q", i, lines[i], got, want)
		}
	}
	_, _, bad, err := export.ReadRules(strings.NewReader("source,destination,statusCode,matchType,host\n"+
		"/a,/b,301,exact,not a host\n"+
		"/:a:b,/x,301,pattern,\n"+
		"/c,/d,301,glob,\n"+
		"/e,/f,301,exact,Example.com\n"+
		"/e,/g,301,exact,example.COM.\n"+
		"/e,/h,301,exact,\n"), export.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	wantBad := []struct {
		line int
		says []string
	}{
		{2, []string{"host"}},
		{3, []string{"source", "byte"}},
		{4, []string{"matchType \"glob\" is not one of exact, starts_with, pattern, regex"}},
		{6, []string{`a exact rule for source "/e" on host example.com already appears on line 5`}},
	}
	if len(bad) != len(wantBad) {
		t.Fatalf("bad lines %+v, want lines 2, 3, 4 and 6", bad)
	}
	for i, w := range wantBad {
		for _, s := range w.says {
			if bad[i].Line != w.line || !strings.Contains(bad[i].Message, s) {
				t.Errorf("bad line %+v, want line %d saying %q", bad[i], w.line, s)
			}
		}
	}
}
