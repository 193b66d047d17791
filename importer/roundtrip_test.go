package importer

import (
	"bytes"
	"context"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"redirects"
	"redirects/export"
	"redirects/internal/rulemodel"
)

// exportReader is the format that reads each export back.
var exportReader = map[string]string{
	"csv":                "csv",
	"nginx":              "nginx",
	"nginx-map-exact":    "nginx",
	"nginx-map-prefix":   "nginx",
	"haproxy":            "haproxy",
	"haproxy-map-exact":  "haproxy-map",
	"haproxy-map-prefix": "haproxy-map",
}

// exportDeclared returns the test of the rules a file declares as answered
// otherwise: its "# Differs:" lines (docs/exports.md "Rule options and
// settings"), and for a project that uses no option nor setting, the
// differences docs/exports.md documents for the format (the map files'
// statuses, served as 301; the case that nginx map keys and HAProxy's -i
// ignore).
func exportDeclared(format string, body []byte, ext bool) func(*redirects.Rule) bool {
	type cond struct {
		mt   string
		test func(*redirects.Rule) bool
	}
	var conds []cond
	for line := range bytes.SplitSeq(body, []byte("\n")) {
		l, ok := strings.CutPrefix(string(line), "# Differs: ")
		if !ok {
			continue
		}
		mt, rest, _ := strings.Cut(l, " rules with ")
		c, _, _ := strings.Cut(rest, ": ")
		var test func(*redirects.Rule) bool
		switch {
		case strings.HasPrefix(c, "statusCode "):
			codes := c
			test = func(r *redirects.Rule) bool { return strings.Contains(codes, strconv.Itoa(r.StatusCode)) }
		case c == "preservePath":
			test = func(r *redirects.Rule) bool { return r.PreservePath }
		case c == "preserveQuery":
			test = func(r *redirects.Rule) bool { return r.PreserveQuery }
		case c == "mergeQuery":
			test = func(r *redirects.Rule) bool { return r.MergeQuery }
		case c == "exceptHosts":
			test = func(r *redirects.Rule) bool { return len(r.ExceptHosts) > 0 }
		case c == "a letter in the source":
			test = func(r *redirects.Rule) bool { return hasLetter(r.Source) }
		case c == "a source ending in /":
			test = func(r *redirects.Rule) bool { return strings.HasSuffix(r.Source, "/") }
		case c == "a source longer than 255 bytes":
			test = func(r *redirects.Rule) bool { return len(r.Source) > 255 }
		default:
			panic("unknown declaration " + l)
		}
		conds = append(conds, cond{mt, test})
	}
	if !ext {
		switch format {
		case "nginx-map-exact":
			conds = append(conds, cond{"exact", func(r *redirects.Rule) bool { return r.StatusCode != 301 || hasLetter(r.Source) }})
		case "haproxy":
			conds = append(conds, cond{"all", func(r *redirects.Rule) bool { return hasLetter(r.Source) }})
		case "haproxy-map-exact":
			conds = append(conds, cond{"exact", func(r *redirects.Rule) bool { return r.StatusCode != 301 }})
		}
	}
	return func(r *redirects.Rule) bool {
		for _, c := range conds {
			if (c.mt == "all" || c.mt == r.MatchType.String()) && c.test(r) {
				return true
			}
		}
		return false
	}
}

// TestExportsRoundTrip: random projects rendered in each of the seven
// export formats and read back answer every random path as the file
// itself does: as the lookup API over the project's rules (rulemodel),
// but for the paths a rule the file declares as answered otherwise
// matches (regardless of case and trailing slash), and the paths the
// import answers with a line it reports as changed.
func TestExportsRoundTrip(t *testing.T) {
	loose := rulemodel.Settings{CaseInsensitive: true, IgnoreTrailingSlash: true}
	compared := map[string]int{}
	for seed := uint64(0); seed < 200; seed++ {
		rng := rand.New(rand.NewPCG(seed, 23))
		set, rules := rulemodel.Project(rng, 10)
		if seed%3 == 0 {
			// A third of the projects use no option nor setting: the files
			// of the formats' fixed shapes.
			set = redirects.Settings{}
			for i := range rules {
				rules[i].PreservePath, rules[i].PreserveQuery = false, false
				if rules[i].StatusCode != 301 && rules[i].StatusCode != 302 && rules[i].StatusCode != 410 {
					rules[i].StatusCode = 301
				}
				if strings.ContainsAny(rules[i].Destination, "#") {
					rules[i].Destination = "/plain"
				}
			}
		} else {
			// Its own draws, so that the paths below are those of the
			// projects without it.
			rulemodel.WithQueryAfterFragment(rand.New(rand.NewPCG(seed, 29)), rules)
			if seed%3 == 2 {
				rulemodel.WithMergeQuery(rand.New(rand.NewPCG(seed, 31)), rules)
			}
			for i := range rules {
				if rules[i].QueryAfterFragment {
					compared["queryAfterFragment"]++
				}
				if rules[i].MergeQuery {
					compared["mergeQuery"]++
				}
			}
		}
		content, err := export.Build(rules, set)
		if err != nil {
			t.Fatal(err)
		}
		ext := !set.IsDefault()
		for i := range rules {
			ext = ext || rules[i].UsesOptions()
		}
		ms := rulemodel.Of(set)
		paths := rulemodel.Paths(rng, rules, 60)
		for _, e := range content.Exports {
			from := exportReader[e.Format]
			res, err := Read(context.Background(), bytes.NewReader(e.Body), from, Options{Settings: set})
			if err != nil {
				t.Fatalf("seed %d %s: %v\n%s", seed, e.Format, err, e.Body)
			}
			if f, _ := Detect(e.Body[:min(len(e.Body), HeadSize)], ""); len(rules) > 0 && (f == nil || f.Name != from) {
				t.Errorf("seed %d %s: detected as %v, want %s", seed, e.Format, f, from)
			}
			decl := e.Body
			if e.Format == "csv" {
				// The csv file has no comment: its declarations are in
				// the deploy report's "csv: " lines.
				var b bytes.Buffer
				for l := range strings.SplitSeq(content.Report, "\n") {
					if d, ok := strings.CutPrefix(l, "csv: "); ok {
						b.WriteString("# Differs: " + d + "\n")
					}
				}
				decl = b.Bytes()
			}
			isDeclared := exportDeclared(e.Format, decl, ext)
			cl, _ := classes(res)
			// The map files hold one match type each.
			held := rules
			if strings.HasSuffix(e.Format, "-map-exact") || strings.HasSuffix(e.Format, "-map-prefix") {
				mt := redirects.Exact
				if strings.HasSuffix(e.Format, "-map-prefix") {
					mt = redirects.StartsWith
				}
				held = nil
				for _, r := range rules {
					if r.MatchType == mt {
						held = append(held, r)
					}
				}
			}
			if e.Format == "csv" {
				// The csv format's four columns carry no priority: the file
				// answers as its rules with the default priority.
				held = append([]redirects.Rule(nil), rules...)
				for i := range held {
					held[i].Priority = redirects.DefaultPriority
				}
			}
			for _, p := range paths {
				want, wok := rulemodel.Lookup(held, ms, p)
				got, gok := rulemodel.Lookup(res.Rules, ms, p)
				if gok && cl[res.RuleLines[got.Rule]] == Changed {
					continue
				}
				excused := false
				for i := range held {
					if _, ok := rulemodel.Lookup(held[i:i+1], loose, p); ok && isDeclared(&held[i]) {
						excused = true
						break
					}
				}
				if excused {
					continue
				}
				if wok != gok || wok && (want.Status != got.Status || want.Destination != got.Destination) {
					t.Fatalf("seed %d %s (%s): path %q: the file answers %+v %v, the import %+v %v\n%s\nreport %+v", seed, e.Format, set, p, want, wok, got, gok, e.Body, res.Lines)
				}
				compared[e.Format]++
			}
		}
	}
	for _, f := range redirects.Formats {
		if compared[f] < 1000 {
			t.Errorf("%s: only %d paths compared", f, compared[f])
		}
	}
	if compared["queryAfterFragment"] == 0 {
		t.Errorf("no project had a queryAfterFragment rule")
	}
	if compared["mergeQuery"] == 0 {
		t.Errorf("no project had a mergeQuery rule")
	}
	t.Logf("paths compared: %v", compared)
}
