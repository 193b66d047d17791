package provider

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"
)

type testRule struct {
	source, dest, match, host string
	status, priority          int
}

// write renders rules as an import file in a random one of the forms
// ReadRules accepts: separator, column order, header spelling, match type
// spelling, spacing, line ends, an omitted default priority, rule order.
func write(rng *rand.Rand, rules []testRule) string {
	sep := []string{",", ";", "\t"}[rng.IntN(3)]
	cols := []string{"source", "destination", "statusCode", "matchType", "priority"}
	for _, r := range rules {
		if r.host != "" {
			cols = append(cols, "host")
			break
		}
	}
	names := map[string][]string{"source": {"source", "Source", "SOURCE"}, "destination": {"destination", "Destination"},
		"statusCode": {"statusCode", "Status Code", "status_code", "status"}, "matchType": {"matchType", "Match Type", "match"},
		"priority": {"priority", "Priority"}, "host": {"host", "Host", "HOST"}}
	rng.Shuffle(len(cols), func(i, j int) { cols[i], cols[j] = cols[j], cols[i] })
	eol := []string{"\n", "\r\n"}[rng.IntN(2)]
	pad := func(s string) string { return strings.Repeat(" ", rng.IntN(2)) + s + strings.Repeat(" ", rng.IntN(2)) }
	var b strings.Builder
	for i, c := range cols {
		if i > 0 {
			b.WriteString(sep)
		}
		b.WriteString(pad(names[c][rng.IntN(len(names[c]))]))
	}
	b.WriteString(eol)
	order := rng.Perm(len(rules))
	for _, k := range order {
		r := rules[k]
		for i, c := range cols {
			if i > 0 {
				b.WriteString(sep)
			}
			var v string
			switch c {
			case "source":
				v = r.source
			case "destination":
				v = r.dest
			case "statusCode":
				v = fmt.Sprint(r.status)
			case "matchType":
				switch r.match {
				case "starts_with":
					v = []string{"starts_with", "Starts With", "prefix", "STARTS_WITH"}[rng.IntN(4)]
				case "pattern":
					v = []string{"pattern", "Pattern", "PATTERN"}[rng.IntN(3)]
				case "regex":
					v = []string{"regex", "Regex", "REGEX"}[rng.IntN(3)]
				default:
					v = []string{"exact", "Exact", "EXACT"}[rng.IntN(3)]
				}
			case "host":
				v = r.host
			case "priority":
				if r.priority != 100 || rng.IntN(2) == 0 {
					v = fmt.Sprint(r.priority)
				}
			}
			b.WriteString(pad(v))
		}
		b.WriteString(eol)
	}
	return b.String()
}

// randomRuleSet returns a random rule set; with extended, of every match
// type, some rules scoped to a host and some sources with query
// conditions, so that rules differing only in their host or kind are
// there too.
func randomRuleSet(rng *rand.Rand, extended bool) []testRule {
	n := 1 + rng.IntN(30)
	seen := map[string]bool{}
	var out []testRule
	for len(out) < n {
		r := testRule{source: fmt.Sprintf("/p%d/", rng.IntN(50)), dest: fmt.Sprintf("/d%d", rng.IntN(5)),
			match: []string{"exact", "starts_with"}[rng.IntN(2)], status: []int{301, 302, 307, 308}[rng.IntN(4)],
			priority: []int{100, 100, 5, 200}[rng.IntN(4)]}
		if extended {
			switch rng.IntN(4) {
			case 0:
				r.match, r.source, r.dest = "pattern", fmt.Sprintf("/:lang/p%d/*", rng.IntN(50)), fmt.Sprintf("/:lang/d%d/:splat", rng.IntN(5))
			case 1:
				r.match, r.source, r.dest = "regex", fmt.Sprintf(`^/p%d/(\d+)$`, rng.IntN(50)), fmt.Sprintf("/d%d/$1", rng.IntN(5))
			case 2:
				r.source += fmt.Sprintf("?id=%d", rng.IntN(3))
			}
			r.host = []string{"", "", "old.example.com", "*.example.org"}[rng.IntN(4)]
		}
		if seen[r.match+r.host+r.source] {
			continue
		}
		seen[r.match+r.host+r.source] = true
		out = append(out, r)
	}
	return out
}

// TestRulesCSVSemanticEquality: two texts of one rule set are equal and
// have one digest; a text of a rule set with one rule changed is not, and
// summarize counts the change as a brute-force comparison does.
func TestRulesCSVSemanticEquality(t *testing.T) {
	testSemanticEquality(t, false)
}

// TestRulesCSVHostsAndPatterns is TestRulesCSVSemanticEquality with rules
// of every match type, hosts and query conditions: the rule set resource
// takes them through the draft CSV, its one conversion.
func TestRulesCSVHostsAndPatterns(t *testing.T) {
	testSemanticEquality(t, true)
	c, err := canonicalize("source,destination,statusCode,matchType,host\n/a,/b,301,exact,Old.Example.COM\n/a,/c,301,exact,\n/:x/*,/:x/y/:splat,302,pattern,\n")
	if err != nil {
		t.Fatal(err)
	}
	want := "source,destination,statusCode,matchType,priority,host\n/a,/c,301,exact,100,\n/a,/b,301,exact,100,old.example.com\n/:x/*,/:x/y/:splat,302,pattern,100,\n"
	if c.Text != want {
		t.Fatalf("canonical text:\n%s\nwant:\n%s", c.Text, want)
	}
}

func testSemanticEquality(t *testing.T, extended bool) {
	rng := rand.New(rand.NewPCG(1, 2))
	ctx := context.Background()
	for i := 0; i < 300; i++ {
		rules := randomRuleSet(rng, extended)
		a, b := write(rng, rules), write(rng, rules)
		eq, _ := rulesCSV{StringValue: stringValue(a)}.StringSemanticEquals(ctx, rulesCSV{StringValue: stringValue(b)})
		if !eq {
			t.Fatalf("the same rules are not equal:\n%s\n---\n%s", a, b)
		}
		changed := append([]testRule(nil), rules...)
		k := rng.IntN(len(changed))
		switch rng.IntN(3) {
		case 0:
			changed[k].dest = "/x" + changed[k].dest
		case 1:
			changed[k].status = map[int]int{301: 302, 302: 301, 307: 308, 308: 307}[changed[k].status]
		case 2:
			changed = append(changed[:k], changed[k+1:]...)
		}
		c := write(rng, changed)
		eq, _ = rulesCSV{StringValue: stringValue(a)}.StringSemanticEquals(ctx, rulesCSV{StringValue: stringValue(c)})
		if eq {
			t.Fatalf("different rules are equal:\n%s\n---\n%s", a, c)
		}
		ca, _ := canonicalize(a)
		cc, err := canonicalize(c)
		if err != nil {
			t.Fatal(err)
		}
		// The model: by match type, host and source.
		key := func(r testRule) string { return r.match + " " + r.host + " " + r.source }
		before := map[string]testRule{}
		for _, r := range rules {
			before[key(r)] = r
		}
		added, upd := 0, 0
		for _, r := range changed {
			o, ok := before[key(r)]
			if !ok {
				added++
			} else if o != r {
				upd++
			}
			delete(before, key(r))
		}
		want := fmt.Sprintf("%d added, %d changed, %d removed", added, upd, len(before))
		if got := summarize(ca.Rules, cc.Rules); got != want {
			t.Fatalf("summarize = %q, want %q", got, want)
		}
	}
}

func TestRulesCSVInvalid(t *testing.T) {
	_, err := canonicalize("source,destination,statusCode,matchType\n/a,/b,999,exact\n")
	if err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Fatalf("a bad status code: err = %v, want one naming line 2", err)
	}
}

func stringValue(s string) basetypes.StringValue { return basetypes.NewStringValue(s) }

// TestRulesCSVExceptHosts: the exceptHosts column (hosts separated by
// spaces) is read, put in host key form, written last in the canonical
// text, and a change of it alone is a change.
func TestRulesCSVExceptHosts(t *testing.T) {
	c, err := canonicalize("source,destination,statusCode,matchType,exceptHosts\n/,https://example.com/,301,starts_with,Example.COM *.example.org\n/a,/b,301,exact,\n")
	if err != nil {
		t.Fatal(err)
	}
	want := "source,destination,statusCode,matchType,priority,exceptHosts\n/a,/b,301,exact,100,\n/,https://example.com/,301,starts_with,100,example.com *.example.org\n"
	if c.Text != want {
		t.Fatalf("canonical text:\n%s\nwant:\n%s", c.Text, want)
	}
	d, err := canonicalize("source,destination,statusCode,matchType,exceptHosts\n/,https://example.com/,301,starts_with,example.com\n/a,/b,301,exact,\n")
	if err != nil {
		t.Fatal(err)
	}
	if got := summarize(c.Rules, d.Rules); got != "0 added, 1 changed, 0 removed" {
		t.Fatalf("summarize = %q, want one rule changed", got)
	}
	if _, err := canonicalize("source,destination,statusCode,matchType,host,exceptHosts\n/,/b,301,exact,a.example,b.example\n"); err == nil || !strings.Contains(err.Error(), "exceptHosts") {
		t.Fatalf("a rule with a host and exceptHosts: %v, want a refusal naming exceptHosts", err)
	}
}
