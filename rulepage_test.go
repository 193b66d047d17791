package redirects_test

import (
	"strings"
	"testing"

	"redirects"
)

func TestRuleCursorRoundTrip(t *testing.T) {
	r := &redirects.Rule{ID: 42, Source: "/a/é\"x", Priority: 7}
	for _, o := range []redirects.RuleSort{redirects.SortSource, redirects.SortSourceDesc, redirects.SortID, redirects.SortIDDesc, redirects.SortPriority, redirects.SortPriorityDesc} {
		s := redirects.CursorAfter(o, r)
		if strings.ContainsAny(s, "+/=") {
			t.Errorf("cursor %q of %s is not URL-safe", s, o)
		}
		c, err := redirects.DecodeRuleCursor(s, o)
		if err != nil {
			t.Fatalf("DecodeRuleCursor(CursorAfter(%s)): %v", o, err)
		}
		if c.ID != 42 || c.Sort != o {
			t.Errorf("cursor of %s = %+v", o, c)
		}
		if (o.Key() == "source") != (c.Source == r.Source) || (o.Key() == "priority") != (c.Priority == 7) {
			t.Errorf("cursor of %s carries %+v; want only the order's key", o, c)
		}
	}
}

func TestParseRuleSort(t *testing.T) {
	for in, want := range map[string]redirects.RuleSort{
		"": redirects.SortSource, "source": redirects.SortSource, "-source": redirects.SortSourceDesc,
		"id": redirects.SortID, "created": redirects.SortID, "-created": redirects.SortIDDesc, "-priority": redirects.SortPriorityDesc,
	} {
		if got, err := redirects.ParseRuleSort(in); err != nil || got != want {
			t.Errorf("ParseRuleSort(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"Source", "--id", "destination", "source "} {
		if _, err := redirects.ParseRuleSort(in); redirects.ErrorCode(err) != redirects.EINVALID {
			t.Errorf("ParseRuleSort(%q) = %v, want EINVALID", in, err)
		}
	}
}

func TestRuleFilterMatch(t *testing.T) {
	r := &redirects.Rule{Source: "/Blog/2020", Destination: "https://example.com/news", StatusCode: 302, MatchType: redirects.StartsWith}
	exact := redirects.Exact
	for _, tc := range []struct {
		f    redirects.RuleFilter
		want bool
	}{
		{redirects.RuleFilter{}, true},
		{redirects.RuleFilter{Query: "2020"}, true},
		{redirects.RuleFilter{Query: "news"}, true},        // the destination
		{redirects.RuleFilter{Query: "blog"}, false},       // case-sensitive
		{redirects.RuleFilter{Query: "/Blog*"}, true},      // a source prefix
		{redirects.RuleFilter{Query: "/Blog/2020*"}, true}, // the whole source is a prefix of itself
		{redirects.RuleFilter{Query: "https*"}, false},     // prefixes are of the source only
		{redirects.RuleFilter{Query: "2020*"}, false},      // a prefix, not a substring
		{redirects.RuleFilter{Query: "*"}, true},           // the empty prefix
		{redirects.RuleFilter{MatchType: &exact}, false},   // another match type
		{redirects.RuleFilter{StatusCode: 301}, false},     // another status
		{redirects.RuleFilter{Query: "*Blog"}, false},      // '*' elsewhere is a character
		{redirects.RuleFilter{StatusCode: 302, Query: "/B*"}, true},
	} {
		if got := tc.f.Match(r); got != tc.want {
			t.Errorf("%+v.Match = %v, want %v", tc.f, got, tc.want)
		}
	}
}

func TestCheckRevisionAndConfirm(t *testing.T) {
	if err := redirects.CheckRevision(5, 3, 0); err != nil {
		t.Errorf("CheckRevision(any) = %v", err)
	}
	if err := redirects.CheckRevision(5, 3, 3); err != nil {
		t.Errorf("CheckRevision(current) = %v", err)
	}
	err := redirects.CheckRevision(5, 3, 2)
	if redirects.ErrorCode(err) != redirects.EREVISION || !strings.Contains(err.Error(), "revision 3") {
		t.Errorf("CheckRevision(stale) = %v, want EREVISION naming revision 3", err)
	}
	if err := redirects.ConfirmName("project", "prj_1", "www", "www"); err != nil {
		t.Errorf("ConfirmName(right) = %v", err)
	}
	err = redirects.ConfirmName("project", "prj_1", "www", "WWW")
	if redirects.ErrorCode(err) != redirects.EINVALID || !strings.Contains(err.Error(), "nothing was deleted") {
		t.Errorf("ConfirmName(wrong) = %v, want EINVALID saying nothing was deleted", err)
	}
}
