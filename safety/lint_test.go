package safety

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"redirects/internal/rulegen"

	"redirects"
)

// rs builds rules from lines "exact|prefix SOURCE DEST [STATUS [PRIORITY]]",
// numbered from 1 in order of age.
func rs(lines ...string) []redirects.Rule {
	var out []redirects.Rule
	for i, l := range lines {
		f := strings.Fields(l)
		r := redirects.Rule{ID: int64(i + 1), Source: f[1], Destination: f[2], StatusCode: 301, Priority: 100,
			CreatedAt: t0.Add(time.Duration(i) * time.Minute)}
		if f[0] == "prefix" {
			r.MatchType = redirects.StartsWith
		}
		if len(f) > 3 {
			fmt.Sscan(f[3], &r.StatusCode)
		}
		if len(f) > 4 {
			fmt.Sscan(f[4], &r.Priority)
		}
		if err := r.Validate(); err != nil {
			panic(err)
		}
		out = append(out, r)
	}
	return out
}

// summary renders findings as "kind ids path" lines.
func summary(findings []Finding) []string {
	var out []string
	for _, f := range findings {
		var ids []string
		for _, r := range f.Rules {
			ids = append(ids, fmt.Sprint(r.ID))
		}
		out = append(out, fmt.Sprintf("%s %s %s", f.Kind, strings.Join(ids, ","), strings.Join(f.Path, " -> ")))
	}
	return out
}

func TestLintDefects(t *testing.T) {
	for _, tc := range []struct {
		name  string
		rules []redirects.Rule
		hosts []string
		want  []string
	}{
		{"clean", rs("exact /a /b", "prefix /old/ https://example.com/", "exact /c https://example.org/c"), nil, nil},
		{"self-match exact", rs("exact /a /a?x=1"), nil, []string{"self-match 1 /a -> /a"}},
		{"self-match prefix", rs("prefix /a /a/b"), nil, []string{"self-match 1 /a/b -> /a/b"}},
		{"loop of 2 exact", rs("exact /a /b", "exact /b /a"), nil, []string{"loop 1,2 /a -> /b -> /a"}},
		{"loop of 3 through prefixes", rs("prefix /x/ /y/1", "prefix /y/ /z/2", "exact /z/2 /x/3"), nil,
			[]string{"loop 1,2,3 /x/3 -> /y/1 -> /z/2 -> /x/3"}},
		{"loop of 4 via own host", rs("exact /1 https://www.example.com/2", "exact /2 /3", "exact /3 HTTPS://WWW.EXAMPLE.COM:443/4?q", "prefix /4 /1"),
			[]string{"www.example.com"}, []string{"loop 1,2,3,4 /1 -> /2 -> /3 -> /4 -> /1"}},
		{"no loop via a foreign host", rs("exact /1 https://www.example.com/2", "exact /2 /1"), nil,
			[]string{"chain 2,1 /2 -> /1"}},
		{"loop through an encoded destination", rs("exact /a /caf%C3%A9?x=1", "exact /café /a"), nil,
			[]string{"loop 1,2 /a -> /café -> /a"}},
		{"malformed escape ends a chain", rs("exact /a /b%zz", "prefix /b /c"), nil, nil},
		{"loop of 5", rs("exact /1 /2", "exact /2 /3", "prefix /3 /4", "exact /4 /5", "prefix /5 /1"), nil,
			[]string{"loop 1,2,3,4,5 /1 -> /2 -> /3 -> /4 -> /5 -> /1"}},
		{"chain into a loop", rs("exact /in /a", "exact /a /b", "exact /b /a"), nil,
			[]string{"loop 2,3 /a -> /b -> /a", "chain 1,2,3,2 /in -> /a -> /b -> /a"}},
		{"chain", rs("exact /a /b", "exact /b /c 302", "prefix /c https://example.com/end"), nil,
			[]string{"chain 1,2,3 /a -> /b -> /c", "chain 2,3 /b -> /c"}},
		{"shadowed", rs("prefix /a /x 301 50", "prefix /a/b /y"), nil, []string{"shadowed 2,1 /a/b"}},
		{"shadowed by the tie-break of age", rs("prefix /a /x 301 100", "prefix /b /y", "prefix /c /z 301 10"), nil, nil},
		{"redundant", rs("prefix /docs/ /manual", "exact /docs/a /manual", "exact /docs/b /manual 302"), nil,
			[]string{"redundant 2,1 /docs/a"}},
		{"overlap", rs("prefix /a /x", "prefix /a/b/ /y", "prefix /a/b/c /z 301 90"), nil,
			[]string{"overlap 2,1 /a/b/"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := summary(Lint(tc.rules, LintOptions{Hosts: tc.hosts}))
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Fatalf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}

func TestLintMessages(t *testing.T) {
	f := Lint(rs("exact /a /b", "exact /b /c 302", "exact /c https://example.com/end"), LintOptions{})
	if len(f) != 2 {
		t.Fatalf("findings = %v", summary(f))
	}
	c := f[0]
	if c.Severity != SeverityWarning || c.FinalDestination != "https://example.com/end" || !c.MixedStatus || c.Hops != 3 {
		t.Fatalf("chain finding = %+v", c)
	}
	want := "rule 1 (exact /a) redirects to /b, which rule 2 (exact /b) redirects again: 3 redirects in a row end at https://example.com/end; point it at https://example.com/end directly (the chain mixes 301 and 302 answers)"
	if c.Message != want {
		t.Fatalf("message %q\nwant    %q", c.Message, want)
	}
	if !f[1].MixedStatus || f[1].Hops != 2 {
		t.Fatalf("chain of a 302 then a 301 = %+v, want mixed, 2 hops", f[1])
	}

	loop := Lint(rs("exact /a /b", "prefix /b /a?x"), LintOptions{})
	if !Blocking(loop) || loop[0].Message != "redirect loop of 2 rules: /a -> /b -> /a (rule 1 (exact /a), rule 2 (starts_with /b))" {
		t.Fatalf("loop = %+v", loop)
	}
	if e, w := Count(loop); e != 1 || w != 0 {
		t.Fatalf("Count = %d, %d", e, w)
	}
	var long []string
	for i := range 40 {
		long = append(long, fmt.Sprintf("exact /%d /%d", i, (i+1)%40))
	}
	big := Lint(rs(long...), LintOptions{})
	if len(big) != 1 || len(big[0].Rules) != 40 || len(big[0].Path) != 41 || big[0].Hops != 40 ||
		!strings.HasPrefix(big[0].Message, "redirect loop of 40 rules: /0 -> /1 -> ") || !strings.HasSuffix(big[0].Message, "rule 16 (exact /15), ...)") {
		t.Fatalf("loop of 40 = %+v", big)
	}
	shadow := Lint(rs("prefix /a /x 301 50", "prefix /a/b /y"), LintOptions{})
	if want := "rule 2 (starts_with /a/b) never answers: rule 1 (starts_with /a) matches every path it matches and takes precedence (priority 50 beats 100)"; shadow[0].Message != want {
		t.Fatalf("message %q\nwant    %q", shadow[0].Message, want)
	}
	if Blocking(shadow) {
		t.Fatal("a shadowed rule blocks")
	}
}

// TestLintGenerated lints the generated rule sets of the benchmarks at a
// small size, with the generator's hosts as the project's own, and holds
// the loop and chain findings to the brute-force model's walk.
func TestLintGenerated(t *testing.T) {
	rules := rulegen.Rules(3000, 0.3, 1)
	hosts := []string{"www.example.com", "shop.example.org"}
	findings := Lint(rules, LintOptions{Hosts: hosts})
	m := model(rules, hosts)
	chains := 0
	for i := range rules {
		if m[i].next >= 0 && m[i].cycle == 0 {
			chains++
		}
	}
	got := map[Kind]int{}
	for _, f := range findings {
		got[f.Kind]++
	}
	if got[KindChain] != chains || chains == 0 {
		t.Fatalf("%d chain findings, the model has %d", got[KindChain], chains)
	}
	t.Logf("findings on 3,000 generated rules: %v", got)
}
