package importer

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"testing"

	"redirects"
	"redirects/internal/rulemodel"
)

// lineFormat is a first-match format for the pipeline's tests only: each
// line "E source destination" or "P source destination".
func init() {
	Register(&Format{Name: "test-lines", Title: "test lines", FirstMatch: true, Read: func(in io.Reader, o *Options, sink *Sink) error {
		sc := bufio.NewScanner(in)
		line := 0
		for sc.Scan() {
			line++
			f := strings.Fields(sc.Text())
			if len(f) == 0 {
				continue
			}
			if len(f) != 3 || (f[0] != "E" && f[0] != "P") {
				sink.Bad(line, "want E|P SOURCE DESTINATION")
				continue
			}
			mt := redirects.Exact
			if f[0] == "P" {
				mt = redirects.StartsWith
			}
			sink.Rule(line, redirects.Rule{Source: f[1], Destination: f[2], MatchType: mt, StatusCode: 301})
			sink.Text(line, sc.Text())
		}
		return sc.Err()
	}})
}

func TestPipelineClasses(t *testing.T) {
	in := "P /docs/ /d\nE /docs/a /x\nE /b /y\n\nE /b /z\nP /docs/ /e\nE /bad%zz /q\nP /do /ee\nP /d /dd\n"
	res, err := Read(context.Background(), strings.NewReader(in), "test-lines", Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[int]Outcome{}
	for _, o := range res.Lines {
		got[o.Line] = o
	}
	want := map[int]struct {
		class  Class
		winner int
	}{2: {Skipped, 1}, 5: {Skipped, 3}, 6: {Skipped, 1}, 7: {Skipped, 0}}
	for l, w := range want {
		o, ok := got[l]
		if !ok || o.Class != w.class || o.Winner != w.winner {
			t.Errorf("line %d: got %+v, want class %s winner %d", l, o, w.class, w.winner)
		}
	}
	if len(res.Lines) != len(want) {
		t.Errorf("outcomes %+v, want lines %v", res.Lines, want)
	}
	if res.AsIs != 4 || res.Skipped != 4 || res.Changed != 0 {
		t.Errorf("counts %d/%d/%d, want 4 as is, 0 changed, 4 skipped", res.AsIs, res.Changed, res.Skipped)
	}
	if fmt.Sprint(res.AsIsLines) != "[[1 1] [3 3] [8 9]]" {
		t.Errorf("as-is ranges %v", res.AsIsLines)
	}
	for p, want := range map[string]string{"/dox": "/ee", "/dx": "/dd", "/docs/a": "/d", "/b": "/y"} {
		a, ok := rulemodel.Lookup(res.Rules, rulemodel.Settings{}, p)
		if !ok || a.Destination != want {
			t.Errorf("%s answers %+v %v, want %s", p, a, ok, want)
		}
	}
	if !strings.Contains(strings.Join(got[7].Notes, ";"), "our rules refuse it") {
		t.Errorf("line 7 notes %q", got[7].Notes)
	}
}

// TestPipelineSlashTwin: under trailingSlash=ignore a prefix "/a/" covers
// an exact "/a" (the path "/a" is all it matches), not a prefix "/a",
// which also matches "/ab".
func TestPipelineSlashTwin(t *testing.T) {
	res, err := Read(context.Background(), strings.NewReader("P /a/ /x\nP /a /y\nE /a /z\n"), "test-lines", Options{Settings: redirects.Settings{IgnoreTrailingSlash: true}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Lines) != 1 || res.Lines[0].Line != 3 || res.Lines[0].Class != Skipped || res.Lines[0].Winner != 1 {
		t.Fatalf("outcomes %+v, want only line 3 skipped, line 1 winning", res.Lines)
	}
	a, ok := rulemodel.Lookup(res.Rules, rulemodel.Settings{IgnoreTrailingSlash: true}, "/ab")
	if !ok || a.Destination != "/y" {
		t.Fatalf("/ab answers %+v %v, want /y", a, ok)
	}
}

func TestPipelineBadLines(t *testing.T) {
	_, err := Read(context.Background(), strings.NewReader("E /a /b\nX\nE /c /d\nbroken line here too\n"), "test-lines", Options{})
	be, ok := err.(*BadLinesError)
	if !ok || len(be.Lines) != 2 || be.Lines[0].Line != 2 || be.Lines[1].Line != 4 {
		t.Fatalf("err %v, want lines 2 and 4 reported", err)
	}
}

func TestDetectRefusesBinary(t *testing.T) {
	for _, in := range []string{"\x00\x01\x02", "a\xff\xfeb\n", "   \n"} {
		_, err := Read(context.Background(), strings.NewReader(in), "auto", Options{})
		if redirects.ErrorCode(err) != redirects.EINVALID {
			t.Errorf("%q: err %v, want EINVALID", in, err)
		}
	}
}

// TestPipelineFirstMatchModel: for random first-match files under random
// settings, the imported rules answer every path as the file's first
// matching line does (the source platform's semantics), by the model.
func TestPipelineFirstMatchModel(t *testing.T) {
	for seed := uint64(0); seed < 300; seed++ {
		rng := rand.New(rand.NewPCG(seed, 7))
		set, pool := rulemodel.Project(rng, 12)
		var file []redirects.Rule
		var b strings.Builder
		for _, r := range pool {
			if r.StatusCode == 410 || r.PreservePath || r.PreserveQuery || strings.ContainsAny(r.Destination, " ") {
				continue
			}
			r.StatusCode = 301
			// Repeat some sources, in other case or slash, so that lines shadow.
			if rng.IntN(4) == 0 && len(file) > 0 {
				o := file[rng.IntN(len(file))]
				r.Source = o.Source
				if rng.IntN(2) == 0 {
					r.Source = strings.ToUpper(r.Source)
				}
			}
			if strings.ContainsAny(r.Source, "% \t") {
				continue
			}
			kind := "E"
			if r.MatchType == redirects.StartsWith {
				kind = "P"
			}
			fmt.Fprintf(&b, "%s %s %s\n", kind, r.Source, r.Destination)
			file = append(file, r)
		}
		res, err := Read(context.Background(), strings.NewReader(b.String()), "test-lines", Options{Settings: set})
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		ms := rulemodel.Of(set)
		for _, p := range rulemodel.Paths(rng, file, 60) {
			var want *redirects.Rule
			for i := range file {
				if _, ok := rulemodel.Lookup(file[i:i+1], ms, p); ok {
					want = &file[i]
					break
				}
			}
			got, ok := rulemodel.Lookup(res.Rules, ms, p)
			switch {
			case want == nil && ok:
				t.Fatalf("seed %d %s: path %q answers %+v, the file answers nothing\n%s", seed, set, p, got, b.String())
			case want != nil && (!ok || got.Destination != want.Destination):
				t.Fatalf("seed %d %s: path %q answers %+v (%v), the file's first match is %s %s\n%s", seed, set, p, got, ok, want.Source, want.Destination, b.String())
			}
		}
	}
}
