package engine_test

import (
	"encoding/binary"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

	"redirects"
	"redirects/engine"
	"redirects/internal/rulemodel"
)

// encodedRules are rules of every match type, with hosts, conditions and
// options, as Validate stores them.
func encodedRules() []redirects.Rule {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC)
	rules := []redirects.Rule{
		{ID: 1, MatchType: redirects.Exact, Source: "/index.php?p=123", Destination: "/post-123", StatusCode: 301},
		{ID: 2, MatchType: redirects.StartsWith, Source: "/blog", Destination: "/b", StatusCode: 302, Host: "old.example.com", PreservePath: true},
		{ID: 3, MatchType: redirects.Pattern, Source: "/:lang/guide/*", Destination: "/:lang/docs/:splat", StatusCode: 308, Priority: 5, PreserveQuery: true},
		{ID: 4, MatchType: redirects.Regex, Source: `/(dom|d)/(?P<id>\d+)$?p=:p`, Destination: "/dd/$1/${id}/${p}", StatusCode: 301, Host: "*.example.org"},
		{ID: 5, MatchType: redirects.Pattern, Source: "/gone/*", StatusCode: 410, Host: "xn--bcher-kva.example"},
		{ID: 6, MatchType: redirects.Exact, Source: "/plain", Destination: "/p", StatusCode: 301},
	}
	for i := range rules {
		rules[i].ProjectID = "prj_x"
		rules[i].CreatedAt = t0.Add(time.Duration(i) * time.Second)
		if rules[i].Priority == 0 {
			rules[i].Priority = redirects.DefaultPriority
		}
		if err := rules[i].Validate(); err != nil {
			panic(err)
		}
	}
	return rules
}

// TestEncodeRulesPatterns: a version with an Extended rule is written in
// format 3 and reads back with every field; one without is written as
// before (formats 1 and 2).
func TestEncodeRulesPatterns(t *testing.T) {
	rules := encodedRules()
	b := engine.EncodeRules(rules)
	if b[0] != 3 {
		t.Fatalf("format %d for pattern rules, want 3", b[0])
	}
	got, err := engine.DecodeRules("prj_x", b)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, rules) {
		t.Fatalf("round trip changed the rules:\n got %+v\nwant %+v", got, rules)
	}
	// One extended rule is enough for format 3, wherever it is.
	plain := rules[5:]
	if b := engine.EncodeRules(plain); b[0] != 1 {
		t.Fatalf("format %d for a literal rule without options, want 1", b[0])
	}
	mixed := append([]redirects.Rule{rules[5]}, rules[1])
	if b := engine.EncodeRules(mixed); b[0] != 3 {
		t.Fatalf("format %d for a host-scoped rule after a plain one, want 3", b[0])
	}
	// Random literal projects are encoded by EncodeRules exactly as by the
	// encoder of formats 1 and 2 that stored every version before.
	rng := rand.New(rand.NewPCG(7, 11))
	for round := 0; round < 100; round++ {
		_, rules := rulemodel.Project(rng, 1+rng.IntN(20))
		if got, want := engine.EncodeRules(rules), encodeV2(rules); string(got) != string(want) {
			t.Fatalf("a literal project is encoded otherwise than before pattern rules")
		}
	}
	// Cut short anywhere, or with a match type past regex, it is corrupt.
	for n := 1; n < len(b); n++ {
		if _, err := engine.DecodeRules("prj_x", b[:n]); err == nil || !strings.Contains(err.Error(), "corrupt") {
			t.Fatalf("DecodeRules of %d of %d bytes = %v, want corrupt", n, len(b), err)
		}
	}
}

// TestDecodeRulesNewerVersion: a version number this node does not know was
// written by a newer redirects, and the error says to upgrade, not that the
// snapshot is corrupt.
func TestDecodeRulesNewerVersion(t *testing.T) {
	b := engine.EncodeRules(encodedRules())
	b[0] = 7
	_, err := engine.DecodeRules("prj_x", b)
	if redirects.ErrorCode(err) != redirects.EINTERNAL || !strings.Contains(err.Error(), "newer redirects") ||
		!strings.Contains(err.Error(), "upgrade") || strings.Contains(err.Error(), "corrupt") {
		t.Fatalf("DecodeRules of format 7 = %v, want an error that says a newer redirects wrote it and to upgrade", err)
	}
}

// TestEncodeRulesQueryAfterFragment: a version with a queryAfterFragment
// rule is written in format 4 and reads back with every field; format 3
// (and 2) with that flag set is corrupt, so a node that reads format 3
// never takes it for another flag; versions without it keep their format.
func TestEncodeRulesQueryAfterFragment(t *testing.T) {
	rules := encodedRules()
	qaf := redirects.Rule{ID: 7, ProjectID: "prj_x", MatchType: redirects.StartsWith, Source: "/design", Destination: "/doc?a=1#design",
		StatusCode: 301, Priority: redirects.DefaultPriority, PreservePath: true, PreserveQuery: true, QueryAfterFragment: true,
		CreatedAt: time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC)}
	if err := qaf.Validate(); err != nil {
		t.Fatal(err)
	}
	for _, set := range [][]redirects.Rule{append(rules[:len(rules):len(rules)], qaf), {qaf}, {rules[5], qaf}} {
		b := engine.EncodeRules(set)
		if b[0] != 4 {
			t.Fatalf("format %d for a queryAfterFragment rule, want 4", b[0])
		}
		got, err := engine.DecodeRules("prj_x", b)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, set) {
			t.Fatalf("round trip changed the rules:\n got %+v\nwant %+v", got, set)
		}
		for _, old := range []byte{2, 3} {
			b := append([]byte(nil), b...)
			b[0] = old
			if _, err := engine.DecodeRules("prj_x", b); err == nil || !strings.Contains(err.Error(), "corrupt") {
				t.Fatalf("format %d with the queryAfterFragment flag: %v, want corrupt", old, err)
			}
		}
	}
	if b := engine.EncodeRules(rules); b[0] != 3 {
		t.Fatalf("format %d for pattern rules without queryAfterFragment, want 3", b[0])
	}
}

// TestEncodeRulesMergeQuery: a version with a mergeQuery rule is written in
// format 5 and reads back with every field; formats 2 to 4 with that flag
// set are corrupt, so a node that reads format 4 never takes it for
// another flag; versions without it keep their format.
func TestEncodeRulesMergeQuery(t *testing.T) {
	rules := encodedRules()
	mq := redirects.Rule{ID: 8, ProjectID: "prj_x", MatchType: redirects.Pattern, Source: "/:path*", Destination: "https://ex.com/items?itemName=x",
		StatusCode: 308, Priority: redirects.DefaultPriority, PreserveQuery: true, MergeQuery: true, Host: "vscode.excalidraw.com",
		CreatedAt: time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC)}
	qaf := redirects.Rule{ID: 9, ProjectID: "prj_x", Source: "/design", Destination: "/doc#design",
		StatusCode: 301, Priority: redirects.DefaultPriority, PreserveQuery: true, QueryAfterFragment: true,
		CreatedAt: time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC)}
	for _, r := range []redirects.Rule{mq, qaf} {
		if err := r.Validate(); err != nil {
			t.Fatal(err)
		}
	}
	for _, set := range [][]redirects.Rule{append(rules[:len(rules):len(rules)], mq), {mq}, {qaf, mq}, {mq, qaf}} {
		b := engine.EncodeRules(set)
		if b[0] != 5 {
			t.Fatalf("format %d for a mergeQuery rule, want 5", b[0])
		}
		got, err := engine.DecodeRules("prj_x", b)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, set) {
			t.Fatalf("round trip changed the rules:\n got %+v\nwant %+v", got, set)
		}
		for _, old := range []byte{2, 3, 4} {
			b := append([]byte(nil), b...)
			b[0] = old
			if _, err := engine.DecodeRules("prj_x", b); err == nil || !strings.Contains(err.Error(), "corrupt") {
				t.Fatalf("format %d with the mergeQuery flag: %v, want corrupt", old, err)
			}
		}
	}
	if b := engine.EncodeRules([]redirects.Rule{qaf}); b[0] != 4 {
		t.Fatalf("format %d for a queryAfterFragment rule without mergeQuery, want 4", b[0])
	}
}

// TestOldNodeRefusesPatternVersion holds what CHANGELOG.md "Upgrading"
// says: a node older than pattern rules (its decoder, kept below as it
// was) refuses a version holding pattern rules, hosts or query conditions
// with a clear error, and still reads every version without them.
func TestOldNodeRefusesPatternVersion(t *testing.T) {
	for i, r := range encodedRules() {
		if !r.Extended() {
			continue
		}
		b := engine.EncodeRules([]redirects.Rule{r})
		if _, err := decodeV2("prj_x", b); err == nil || err.Error() != "stored rule snapshot of project prj_x is corrupt" {
			t.Errorf("rule %d (%s %q host %q): the old decoder answered %v, want it to refuse the version", i, r.MatchType, r.Source, r.Host, err)
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for round := 0; round < 50; round++ {
		_, rules := rulemodel.Project(rng, 1+rng.IntN(20))
		for i := range rules {
			rules[i].ProjectID = "prj_x"
		}
		got, err := decodeV2("prj_x", engine.EncodeRules(rules))
		if err != nil || !reflect.DeepEqual(got, rules) {
			t.Fatalf("the old decoder cannot read a literal version: %v", err)
		}
	}
}

// encodeV2 and decodeV2 are EncodeRules and DecodeRules as they were
// before format 3 (formats 1 and 2 only), what a node older than pattern
// rules runs.
func encodeV2(rules []redirects.Rule) []byte {
	version := byte(1)
	for i := range rules {
		if rules[i].PreservePath || rules[i].PreserveQuery {
			version = 2
			break
		}
	}
	b := []byte{version}
	b = binary.AppendUvarint(b, uint64(len(rules)))
	for i := range rules {
		r := &rules[i]
		b = binary.AppendVarint(b, r.ID)
		b = binary.AppendUvarint(b, uint64(len(r.Source)))
		b = append(b, r.Source...)
		b = binary.AppendUvarint(b, uint64(len(r.Destination)))
		b = append(b, r.Destination...)
		b = binary.AppendUvarint(b, uint64(r.StatusCode))
		b = append(b, byte(r.MatchType))
		b = binary.AppendVarint(b, int64(r.Priority))
		b = binary.AppendVarint(b, r.CreatedAt.UnixNano())
		if version == 2 {
			var flags byte
			if r.PreservePath {
				flags |= 1
			}
			if r.PreserveQuery {
				flags |= 2
			}
			b = append(b, flags)
		}
	}
	return b
}

func decodeV2(projectID string, b []byte) ([]redirects.Rule, error) {
	bad := redirects.Errorf(redirects.EINTERNAL, "stored rule snapshot of project %s is corrupt", projectID)
	if len(b) == 0 || (b[0] != 1 && b[0] != 2) {
		return nil, bad
	}
	options := b[0] == 2
	b = b[1:]
	fail := false
	uv := func() uint64 {
		v, n := binary.Uvarint(b)
		if n <= 0 {
			fail = true
			return 0
		}
		b = b[n:]
		return v
	}
	sv := func() int64 {
		v, n := binary.Varint(b)
		if n <= 0 {
			fail = true
			return 0
		}
		b = b[n:]
		return v
	}
	one := func() byte {
		if len(b) == 0 {
			fail = true
			return 0
		}
		c := b[0]
		b = b[1:]
		return c
	}
	str := func() string {
		n := uv()
		if fail || n > uint64(len(b)) {
			fail = true
			return ""
		}
		s := string(b[:n])
		b = b[n:]
		return s
	}
	n := uv()
	if fail || n > uint64(len(b))+1 {
		return nil, bad
	}
	rules := make([]redirects.Rule, n)
	for i := range rules {
		r := &rules[i]
		r.ProjectID = projectID
		r.ID = sv()
		r.Source = str()
		r.Destination = str()
		r.StatusCode = int(uv())
		r.MatchType = redirects.MatchType(one())
		r.Priority = int(sv())
		r.CreatedAt = time.Unix(0, sv()).UTC()
		if options {
			flags := one()
			if flags&^3 != 0 {
				return nil, bad
			}
			r.PreservePath, r.PreserveQuery = flags&1 != 0, flags&2 != 0
		}
		if fail {
			return nil, bad
		}
	}
	if len(b) != 0 {
		return nil, bad
	}
	return rules, nil
}

// TestEncodeRulesExceptHosts: a version with an exceptHosts rule is
// written in format 6 and reads back with every field; versions without it
// keep their format; a format before 6 does not read the hosts, so it finds
// bytes left and calls the snapshot corrupt.
func TestEncodeRulesExceptHosts(t *testing.T) {
	rules := encodedRules()
	ex := redirects.Rule{ID: 8, ProjectID: "prj_x", MatchType: redirects.Exact, Source: "/", Destination: "https://example.com/",
		StatusCode: 301, Priority: redirects.DefaultPriority, ExceptHosts: []string{"Example.com.", "*.bücher.example"},
		CreatedAt: time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC)}
	if err := ex.Validate(); err != nil {
		t.Fatal(err)
	}
	if want := []string{"example.com", "*.xn--bcher-kva.example"}; !reflect.DeepEqual(ex.ExceptHosts, want) {
		t.Fatalf("exceptHosts stored as %q, want %q", ex.ExceptHosts, want)
	}
	for _, set := range [][]redirects.Rule{append(rules[:len(rules):len(rules)], ex), {ex}, {rules[5], ex}} {
		b := engine.EncodeRules(set)
		if b[0] != 6 {
			t.Fatalf("format %d for an exceptHosts rule, want 6", b[0])
		}
		got, err := engine.DecodeRules("prj_x", b)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, set) {
			t.Fatalf("round trip changed the rules:\n got %+v\nwant %+v", got, set)
		}
		for n := 1; n < len(b); n++ {
			if _, err := engine.DecodeRules("prj_x", b[:n]); err == nil || !strings.Contains(err.Error(), "corrupt") {
				t.Fatalf("DecodeRules of %d of %d bytes = %v, want corrupt", n, len(b), err)
			}
		}
		for _, old := range []byte{3, 4, 5} {
			b := append([]byte(nil), b...)
			b[0] = old
			if _, err := engine.DecodeRules("prj_x", b); err == nil || !strings.Contains(err.Error(), "corrupt") {
				t.Fatalf("format %d with exceptHosts: %v, want corrupt", old, err)
			}
		}
	}
	if b := engine.EncodeRules(rules); b[0] != 3 {
		t.Fatalf("format %d for pattern rules without exceptHosts, want 3", b[0])
	}
}
