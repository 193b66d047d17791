package provider

import (
	"context"
	"testing"

	"redirects"
)

// TestProjectUpdateOf: the update names exactly the fields that differ
// between the project and the model, so that an apply of an unchanged
// project sends nothing.
func TestProjectUpdateOf(t *testing.T) {
	ctx := context.Background()
	p := &redirects.Project{ID: "prj_1", OrgID: "org_1", Name: "www", ShrinkLimit: redirects.DefaultShrinkLimit,
		ExportRetention: redirects.DefaultExportRetention}
	u, err := projectUpdateOf(ctx, p, projectModelOf(p))
	if err != nil || !u.IsEmpty() {
		t.Fatalf("the project's own model: want an empty update, got %+v, %v", u, err)
	}

	want := &redirects.Project{ID: p.ID, OrgID: p.OrgID, Name: "docs", Hosts: []string{"docs.example.com"},
		ShrinkLimit: 50, ExportRetention: 5, Settings: redirects.Settings{CaseInsensitive: true, IgnoreTrailingSlash: true}}
	u, err = projectUpdateOf(ctx, p, projectModelOf(want))
	if err != nil {
		t.Fatal(err)
	}
	switch {
	case u.Name == nil || *u.Name != "docs",
		u.Hosts == nil || len(*u.Hosts) != 1 || (*u.Hosts)[0] != "docs.example.com",
		u.ShrinkLimit == nil || *u.ShrinkLimit != 50,
		u.ExportRetention == nil || *u.ExportRetention != 5,
		u.CaseInsensitive == nil || !*u.CaseInsensitive,
		u.IgnoreTrailingSlash == nil || !*u.IgnoreTrailingSlash,
		u.RequireStage != nil:
		t.Fatalf("every field changed: got %+v", u)
	}

	// Back again: the hosts removed are an update to none.
	u, err = projectUpdateOf(ctx, want, projectModelOf(p))
	if err != nil {
		t.Fatal(err)
	}
	if u.Hosts == nil || len(*u.Hosts) != 0 {
		t.Fatalf("hosts removed: want an update to none, got %#v", u.Hosts)
	}
	if u.CaseInsensitive == nil || *u.CaseInsensitive || u.IgnoreTrailingSlash == nil || *u.IgnoreTrailingSlash {
		t.Fatalf("settings back to the default: got %+v", u)
	}

	m := projectModelOf(p)
	m.TrailingSlash = m.Name // "www"
	if _, err := projectUpdateOf(ctx, p, m); redirects.ErrorCode(err) != redirects.EINVALID {
		t.Fatalf("trailing_slash \"www\": want EINVALID, got %v", err)
	}
}

// TestCanonicalOf: the rules the service answers for the draft have the
// canonical form of the text that configured them.
func TestCanonicalOf(t *testing.T) {
	text := "source,destination,statusCode,matchType\n/old,/new,301,exact\n/docs/,https://docs.example.com/,308,starts_with\n"
	want, err := canonicalize(text)
	if err != nil {
		t.Fatal(err)
	}
	rules := append([]redirects.Rule(nil), want.Rules...)
	for i := range rules {
		rules[i].ID, rules[i].ProjectID = int64(i+7), "prj_1" // as the draft holds them
	}
	got, err := canonicalOf(rules)
	if err != nil {
		t.Fatal(err)
	}
	if got.Text != want.Text || got.Digest != want.Digest {
		t.Fatalf("canonicalOf: want\n%s\ngot\n%s", want.Text, got.Text)
	}
}
