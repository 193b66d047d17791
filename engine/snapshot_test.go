package engine

import (
	"redirects"

	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"pgregory.net/rapid"
)

// modelLookup is the lookup of docs/contract.md#matching written as
// plainly as possible, to hold the compiled snapshot against: cut the path at
// the first '?' or '#', an exact rule equal to it wins, otherwise the best
// (by Better) of the starts_with rules whose source prefixes it.
func modelLookup(rules []redirects.Rule, path string) (*redirects.Rule, bool) {
	if i := strings.IndexAny(path, "?#"); i >= 0 {
		path = path[:i]
	}
	for i := range rules {
		if rules[i].MatchType == redirects.Exact && rules[i].Source == path {
			return &rules[i], true
		}
	}
	var best *redirects.Rule
	for i := range rules {
		r := &rules[i]
		if r.MatchType == redirects.StartsWith && strings.HasPrefix(path, r.Source) && (best == nil || Better(r, best)) {
			best = r
		}
	}
	return best, best != nil
}

// modelJSON renders the lookup body with encoding/json, the reference for
// Match.JSON: HTML escaping off, no trailing newline.
func modelJSON(dest string, status int, mt redirects.MatchType) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	err := enc.Encode(struct {
		Destination string `json:"destination"`
		StatusCode  int    `json:"statusCode"`
		MatchType   string `json:"matchType"`
	}{dest, status, mt.String()})
	if err != nil {
		panic(err) // a struct of a string and an int always encodes
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

// checkLookup compares s.Lookup(path) with the model and fails with both
// answers when they differ.
func checkLookup(t interface {
	Helper()
	Fatalf(string, ...any)
}, s *Snapshot, rules []redirects.Rule, path string) {
	t.Helper()
	want, wantOK := modelLookup(rules, path)
	got, ok := s.Lookup(path)
	if ok != wantOK {
		t.Fatalf("Lookup(%q): found=%v, model found=%v (model rule %+v)", path, ok, wantOK, want)
	}
	if !ok {
		if got.JSON() != nil || got.Destination() != "" || got.StatusCode() != 0 {
			t.Fatalf("Lookup(%q) missed but returned a non-zero Match %+v", path, got)
		}
		return
	}
	if got.Destination() != want.Destination || got.StatusCode() != want.StatusCode || got.MatchType() != want.MatchType {
		t.Fatalf("Lookup(%q) = {%q %d %v}, model picks rule %d {%q %d %v} (source %q, priority %d)",
			path, got.Destination(), got.StatusCode(), got.MatchType(),
			want.ID, want.Destination, want.StatusCode, want.MatchType, want.Source, want.Priority)
	}
	if wantJSON := modelJSON(want.Destination, want.StatusCode, want.MatchType); !bytes.Equal(got.JSON(), wantJSON) {
		t.Fatalf("Lookup(%q).JSON() = %s, want %s", path, got.JSON(), wantJSON)
	}
}

var t0 = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)

func TestLookupTable(t *testing.T) {
	rule := func(id int64, mt redirects.MatchType, src, dest string, prio int, created int) redirects.Rule {
		return redirects.Rule{ID: id, Source: src, Destination: dest, StatusCode: 301, MatchType: mt, Priority: prio,
			CreatedAt: t0.Add(time.Duration(created) * time.Hour)}
	}
	tests := []struct {
		name  string
		rules []redirects.Rule
		path  string
		dest  string // "" = no match
	}{
		{"empty rule set", nil, "/a", ""},
		{"exact hit", []redirects.Rule{rule(1, redirects.Exact, "/a", "/x", 100, 0)}, "/a", "/x"},
		{"exact is not a prefix", []redirects.Rule{rule(1, redirects.Exact, "/a", "/x", 100, 0)}, "/a/b", ""},
		{"exact is case-sensitive", []redirects.Rule{rule(1, redirects.Exact, "/a", "/x", 100, 0)}, "/A", ""},
		{"exact beats prefix", []redirects.Rule{
			rule(1, redirects.StartsWith, "/a", "/prefix", 0, 0),
			rule(2, redirects.Exact, "/a/b", "/exact", 1000, 1),
		}, "/a/b", "/exact"},
		{"exact beats prefix with the same source", []redirects.Rule{
			rule(1, redirects.StartsWith, "/a", "/prefix", 0, 0),
			rule(2, redirects.Exact, "/a", "/exact", 1000, 1),
		}, "/a", "/exact"},
		{"lower priority beats longer source", []redirects.Rule{
			rule(1, redirects.StartsWith, "/blog", "/short", 5, 1),
			rule(2, redirects.StartsWith, "/blog/2019", "/long", 10, 0),
		}, "/blog/2019/05", "/short"},
		{"priority tie goes to the longer source", []redirects.Rule{
			rule(1, redirects.StartsWith, "/blog", "/short", 10, 0),
			rule(2, redirects.StartsWith, "/blog/2019", "/long", 10, 1),
		}, "/blog/2019/05", "/long"},
		{"priority and length tie goes to the older rule", []redirects.Rule{
			rule(1, redirects.StartsWith, "/blog/a", "/newer", 10, 2),
			rule(2, redirects.StartsWith, "/blog/b", "/older", 10, 1),
			rule(3, redirects.StartsWith, "/blog/", "/older-yet-shorter", 10, 0),
		}, "/blog/b/x", "/older"},
		{"a prefix is a string prefix: /blog matches /blogger", []redirects.Rule{rule(1, redirects.StartsWith, "/blog", "/x", 100, 0)}, "/blogger", "/x"},
		{"a prefix matches itself", []redirects.Rule{rule(1, redirects.StartsWith, "/blog", "/x", 100, 0)}, "/blog", "/x"},
		{"a longer source does not match a shorter path", []redirects.Rule{rule(1, redirects.StartsWith, "/blog/", "/x", 100, 0)}, "/blog", ""},
		{"query ignored for exact", []redirects.Rule{rule(1, redirects.Exact, "/a", "/x", 100, 0)}, "/a?b=/c", "/x"},
		{"fragment ignored for exact", []redirects.Rule{rule(1, redirects.Exact, "/a", "/x", 100, 0)}, "/a#frag", "/x"},
		{"query ignored for prefix", []redirects.Rule{rule(1, redirects.StartsWith, "/a/b", "/x", 100, 0)}, "/a?/b", ""},
		{"first of ? and # cuts", []redirects.Rule{rule(1, redirects.Exact, "/a", "/x", 100, 0)}, "/a#b?c", "/x"},
		{"path of only a query", []redirects.Rule{rule(1, redirects.StartsWith, "/", "/root", 100, 0)}, "?/a", ""},
		{"root prefix matches everything", []redirects.Rule{rule(1, redirects.StartsWith, "/", "/root", 100, 0)}, "/anything/at/all", "/root"},
		{"winner of a shorter source beats the longest match", []redirects.Rule{
			rule(1, redirects.StartsWith, "/", "/root", 0, 0),
			rule(2, redirects.StartsWith, "/a/b/c", "/abc", 1, 0),
			rule(3, redirects.Exact, "/a/b/c/d", "/exact", 1, 0),
		}, "/a/b/c/e", "/root"},
		{"no match below a diverging edge", []redirects.Rule{
			rule(1, redirects.StartsWith, "/abc/def", "/x", 100, 0),
			rule(2, redirects.StartsWith, "/abc/deg", "/y", 100, 0),
		}, "/abc/de", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := Compile(tt.rules)
			m, ok := s.Lookup(tt.path)
			if ok != (tt.dest != "") || m.Destination() != tt.dest {
				t.Fatalf("Lookup(%q) = %q, %v; want %q", tt.path, m.Destination(), ok, tt.dest)
			}
			checkLookup(t, s, tt.rules, tt.path)
		})
	}
}

func TestMatchJSON(t *testing.T) {
	rules := []redirects.Rule{
		{ID: 1, Source: "/old", Destination: "/new", StatusCode: 301, MatchType: redirects.Exact, CreatedAt: t0},
		{ID: 2, Source: "/shop", Destination: "https://example.com/a?x=1&y=<2>", StatusCode: 302, MatchType: redirects.StartsWith, CreatedAt: t0},
		{ID: 3, Source: "/é", Destination: "/ünïcödé/%20", StatusCode: 301, MatchType: redirects.Exact, CreatedAt: t0},
	}
	s := Compile(rules)
	for path, want := range map[string]string{
		"/old":       `{"destination":"/new","statusCode":301,"matchType":"exact"}`,
		"/shop/cart": `{"destination":"https://example.com/a?x=1&y=<2>","statusCode":302,"matchType":"starts_with"}`,
		"/é":         `{"destination":"/ünïcödé/%20","statusCode":301,"matchType":"exact"}`,
	} {
		m, ok := s.Lookup(path)
		if !ok || string(m.JSON()) != want {
			t.Errorf("Lookup(%q).JSON() = %s (found %v), want %s", path, m.JSON(), ok, want)
		}
		if cap(m.JSON()) != len(m.JSON()) {
			t.Errorf("Lookup(%q).JSON() has capacity %d beyond its length %d: an append would write into the arena", path, cap(m.JSON()), len(m.JSON()))
		}
	}
	var zero Match
	if zero.JSON() != nil || zero.Destination() != "" || zero.StatusCode() != 0 {
		t.Errorf("zero Match = %+v, want nothing", zero)
	}
}

// TestJSONEscapingMatchesEncodingJSON holds the body renderer against
// encoding/json on arbitrary strings, including the ones validation rejects,
// so a body is well-formed JSON whatever reaches Compile.
func TestJSONEscapingMatchesEncodingJSON(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		dest := rapid.OneOf(
			rapid.String(),
			rapid.StringOf(rapid.RuneFrom([]rune{'"', '\\', '<', '>', '&', '\b', '\f', '\n', '\r', '\t', 0, 0x1f, 0x7f, 'é', '\u2028', '\u2029', 0xfffd, 'a'})),
			rapid.Map(rapid.SliceOf(rapid.Byte()), func(b []byte) string { return string(b) }),
		).Draw(t, "dest")
		status := rapid.SampledFrom([]int{301, 302, 0, 7, 99999, -5}).Draw(t, "status")
		mt := rapid.SampledFrom([]redirects.MatchType{redirects.Exact, redirects.StartsWith}).Draw(t, "mt")
		got := appendBody(nil, dest, status, mt)
		if want := modelJSON(dest, status, mt); !bytes.Equal(got, want) {
			t.Fatalf("appendBody(%q) = %s, encoding/json gives %s", dest, got, want)
		}
		if n := bodyLen(len(AppendJSONString(nil, dest)), status, mt); n != len(got) {
			t.Fatalf("bodyLen for %q = %d, rendered body is %d bytes", dest, n, len(got))
		}
		// Compile must give the raw destination back even when the body
		// had to escape it.
		s := Compile([]redirects.Rule{{ID: 1, Source: "/x", Destination: dest, StatusCode: status, MatchType: mt}})
		m, ok := s.Lookup("/x")
		if !ok || m.Destination() != dest || !bytes.Equal(m.JSON(), got) {
			t.Fatalf("Lookup after Compile of %q = %q %s, %v", dest, m.Destination(), m.JSON(), ok)
		}
	})
}

// genSource draws a source from a tiny alphabet so that sources prefix one
// another often.
var genSource = rapid.Custom(func(t *rapid.T) string {
	parts := rapid.SliceOfN(rapid.SampledFrom([]string{"/", "a", "b", "ab"}), 0, 4).Draw(t, "parts")
	return "/" + strings.Join(parts, "")
})

// genRules draws a rule set with overlapping sources, exact and starts_with
// rules sharing sources, many priority and age ties, and destinations that
// name the rule so the check knows which one answered.
var genRules = rapid.Custom(func(t *rapid.T) []redirects.Rule {
	n := rapid.IntRange(0, 24).Draw(t, "n")
	seen := map[[2]string]bool{}
	var rules []redirects.Rule
	for i := 0; i < n; i++ {
		mt := rapid.SampledFrom([]redirects.MatchType{redirects.Exact, redirects.StartsWith, redirects.StartsWith}).Draw(t, "matchType")
		src := genSource.Draw(t, "source")
		if seen[[2]string{mt.String(), src}] {
			continue
		}
		seen[[2]string{mt.String(), src}] = true
		id := int64(len(rules) + 1)
		rules = append(rules, redirects.Rule{
			ID:          id,
			Source:      src,
			Destination: rapid.SampledFrom([]string{"/d", "https://e.com/?a=1&b=<2>", "/ü/"}).Draw(t, "dest") + "r" + strconv.FormatInt(id, 10),
			StatusCode:  rapid.SampledFrom([]int{301, 302}).Draw(t, "status"),
			MatchType:   mt,
			Priority:    rapid.SampledFrom([]int{0, 1, 2, 100, 1_000_000}).Draw(t, "priority"),
			CreatedAt:   t0.Add(time.Duration(rapid.IntRange(0, 3).Draw(t, "age")) * time.Minute),
		})
	}
	// Shuffle so neither rule order nor ID order lines up with anything.
	return rapid.Permutation(rules).Draw(t, "order")
})

// genPath draws a path to look up: a random one from the same alphabet, or
// a source with bytes added or removed, sometimes with a query or fragment.
func genPath(t *rapid.T, rules []redirects.Rule) string {
	var p string
	if len(rules) > 0 && rapid.Bool().Draw(t, "fromSource") {
		p = rapid.SampledFrom(rules).Draw(t, "rule").Source
		switch rapid.IntRange(0, 3).Draw(t, "edit") {
		case 1:
			p += rapid.SampledFrom([]string{"/", "a", "b", "ab", "c"}).Draw(t, "more")
		case 2:
			p = p[:rapid.IntRange(0, len(p)).Draw(t, "cut")]
		case 3:
			p = p[:rapid.IntRange(0, len(p)).Draw(t, "cut")] + genSource.Draw(t, "tail")[1:]
		}
	} else {
		p = genSource.Draw(t, "path")
	}
	switch rapid.IntRange(0, 4).Draw(t, "suffix") {
	case 1:
		p += "?" + rapid.SampledFrom([]string{"", "a", "/a", "x=/b#c"}).Draw(t, "query")
	case 2:
		p += "#" + rapid.SampledFrom([]string{"", "a", "/a?b"}).Draw(t, "fragment")
	}
	return p
}

// bucketConfigs are the prefix index shapes the model tests run against:
// the default, no buckets (every source a node), and buckets as large as
// possible (the whole tree one bucket when it fits), so both ways of
// matching are held against the model on every kind of rule set.
var bucketConfigs = []struct {
	name  string
	keys  int32
	bytes int
}{
	{"default", bucketMaxKeys, bucketMaxBytes},
	{"no-buckets", 0, 0},
	{"all-buckets", 1 << 14, 1 << 14},
	{"tiny-buckets", 2, 24},
}

// withBuckets runs f with the prefix index's bucket limits set to keys and
// bytes.
func withBuckets(keys int32, bytes int, f func()) {
	k, b := bucketMaxKeys, bucketMaxBytes
	bucketMaxKeys, bucketMaxBytes = keys, bytes
	defer func() { bucketMaxKeys, bucketMaxBytes = k, b }()
	f()
}

func TestLookupMatchesModel(t *testing.T) {
	for _, cfg := range bucketConfigs {
		t.Run(cfg.name, func(t *testing.T) {
			withBuckets(cfg.keys, cfg.bytes, func() {
				rapid.Check(t, func(t *rapid.T) {
					rules := genRules.Draw(t, "rules")
					s := Compile(rules)
					if s.Len() != len(rules) || s.ExactLen()+s.PrefixLen() != len(rules) {
						t.Fatalf("Len %d = ExactLen %d + PrefixLen %d, want %d rules", s.Len(), s.ExactLen(), s.PrefixLen(), len(rules))
					}
					for i := 0; i < 20; i++ {
						checkLookup(t, s, rules, genPath(t, rules))
					}
					for _, r := range rules {
						checkLookup(t, s, rules, r.Source)
					}
				})
			})
		})
	}
}

func TestNilSnapshot(t *testing.T) {
	var s *Snapshot
	if _, ok := s.Lookup("/a"); ok || s.Len() != 0 || s.ExactLen() != 0 || s.PrefixLen() != 0 {
		t.Fatal("a nil snapshot should match nothing and hold no rules")
	}
}
