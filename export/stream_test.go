package export_test

import (
	"bytes"
	"errors"
	"testing"

	"redirects"
	"redirects/export"
	"redirects/internal/rulegen"
)

// TestStreamIsBuild checks that Stream, the builder a deploy uses, hands
// over the seven files one at a time byte for byte as Build renders them
// (and so as the golden files hold them): the same bodies, tags and
// encodings, in the order of redirects.Formats, with the same report, for
// the golden option rules under both settings and for generated rules.
func TestStreamIsBuild(t *testing.T) {
	gen := rulegen.Rules(3000, 0.4, 11)
	for i := range gen {
		gen[i].PreserveQuery = i%5 == 0
		gen[i].PreservePath = gen[i].MatchType == redirects.StartsWith && i%3 == 0
	}
	cases := []struct {
		name  string
		rules []redirects.Rule
		set   redirects.Settings
	}{
		{"options", optionRules(), redirects.Settings{}},
		{"settings", optionRules(), redirects.Settings{CaseInsensitive: true, IgnoreTrailingSlash: true}},
		{"generated", rulegen.Rules(3000, 0.4, 7), redirects.Settings{}},
		{"generated-options", gen, redirects.Settings{IgnoreTrailingSlash: true}},
	}
	for _, tc := range cases {
		want, err := export.Build(tc.rules, tc.set)
		if err != nil {
			t.Fatal(err)
		}
		got, err := export.Stream(tc.rules, tc.set)
		if err != nil {
			t.Fatal(err)
		}
		if len(got.Exports) != 0 || got.Each == nil {
			t.Fatalf("%s: Stream returned %d files at once and Each %v: want none at once, all through Each", tc.name, len(got.Exports), got.Each != nil)
		}
		if got.Report != want.Report {
			t.Errorf("%s: report %q, want Build's %q", tc.name, got.Report, want.Report)
		}
		n := 0
		err = got.Range(func(e *redirects.Export) error {
			if n >= len(want.Exports) {
				t.Fatalf("%s: more than %d files", tc.name, len(want.Exports))
			}
			w := want.Exports[n]
			n++
			if e.Format != w.Format || e.ETag != w.ETag || !bytes.Equal(e.Body, w.Body) {
				t.Errorf("%s: file %d is %s %s (%d bytes), want %s %s (%d bytes)", tc.name, n, e.Format, e.ETag, len(e.Body), w.Format, w.ETag, len(w.Body))
			}
			if len(e.Encodings) != len(w.Encodings) {
				t.Fatalf("%s %s: %d encodings, want %d", tc.name, e.Format, len(e.Encodings), len(w.Encodings))
			}
			for i := range e.Encodings {
				g, x := e.Encodings[i], w.Encodings[i]
				if g.Coding != x.Coding || g.ETag != x.ETag || !bytes.Equal(g.Body, x.Body) {
					t.Errorf("%s %s: encoding %s %s differs from Build's %s %s", tc.name, e.Format, g.Coding, g.ETag, x.Coding, x.ETag)
				}
			}
			return nil
		})
		if err != nil || n != len(redirects.Formats) {
			t.Fatalf("%s: ranged over %d files, %v; want %d, nil", tc.name, n, err, len(redirects.Formats))
		}
	}
}

// TestStreamStopsAtTheFirstError checks that Each renders no file after
// yield fails and returns that error as it is: a deploy whose write of one
// file fails renders nothing more and rolls back with the store's error.
func TestStreamStopsAtTheFirstError(t *testing.T) {
	c, err := export.Stream(rulegen.Rules(500, 0.5, 3), redirects.Settings{})
	if err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	var seen []string
	err = c.Each(func(e *redirects.Export) error {
		seen = append(seen, e.Format)
		if len(seen) == 3 {
			return boom
		}
		return nil
	})
	if err != boom || len(seen) != 3 {
		t.Fatalf("Each returned %v after %v; want boom after three files", err, seen)
	}
	if _, err := export.Stream([]redirects.Rule{{ID: 9, Source: "/a", Destination: "/b", StatusCode: 301, MatchType: 7}}, redirects.Settings{}); redirects.ErrorCode(err) != redirects.EINVALID {
		t.Fatalf("an unknown match type: %v, want EINVALID", err)
	}
}
