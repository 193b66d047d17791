package importer

import (
	"context"
	"fmt"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"redirects"
)

// reportFile is a Netlify file of n lines: a third skipped for a condition
// (one note, the same words on every such line), a third skipped as
// rewrites (a note naming each line's destination), a third as is.
func reportFile(n int) (string, func(i int) string) {
	line := func(i int) string {
		switch i % 3 {
		case 0:
			return fmt.Sprintf("/a%d /b%d 301 Country=us", i, i)
		case 1:
			return fmt.Sprintf("/r%d /s%d 200", i, i)
		}
		return fmt.Sprintf("/c%d /d%d 301", i, i)
	}
	var b strings.Builder
	for i := range n {
		b.WriteString(line(i))
		b.WriteByte('\n')
	}
	return b.String(), line
}

// TestReportListsEveryLineAsAlone: the report of a file of many listed
// lines lists each as the report of a file of that line alone does (the
// model: no line of this file bears on another), with its notes, text and
// counts: notes shared between lines come out as each line's own.
func TestReportListsEveryLineAsAlone(t *testing.T) {
	const n = 3000
	file, line := reportFile(n)
	res, err := Read(context.Background(), strings.NewReader(file), "netlify", Options{})
	if err != nil {
		t.Fatal(err)
	}
	var want []Outcome
	asIs := 0
	for i := range n {
		one, err := Read(context.Background(), strings.NewReader(line(i)+"\n"), "netlify", Options{})
		if err != nil {
			t.Fatal(err)
		}
		asIs += one.AsIs
		for _, o := range one.Lines {
			o.Line = i + 1
			want = append(want, o)
		}
	}
	if !reflect.DeepEqual(res.Lines, want) {
		for i := range min(len(res.Lines), len(want)) {
			if !reflect.DeepEqual(res.Lines[i], want[i]) {
				t.Fatalf("%d listed lines, want %d; first difference: %+v, want %+v", len(res.Lines), len(want), res.Lines[i], want[i])
			}
		}
		t.Fatalf("%d listed lines, want %d", len(res.Lines), len(want))
	}
	if res.Skipped != 2*n/3 || res.Changed != 0 || res.AsIs != asIs || asIs != n/3 {
		t.Fatalf("skipped %d, changed %d, as is %d; want %d, 0, %d", res.Skipped, res.Changed, res.AsIs, 2*n/3, n/3)
	}
}

// TestSharedNotesStayEachLines: a line's first note is shared with every
// line noted in the same words; a second note of one line leaves the
// others' notes as they were.
func TestSharedNotesStayEachLines(t *testing.T) {
	s := newSink()
	for l := 1; l <= 3; l++ {
		s.Skip(l, "not imported: %s", "the same reason")
	}
	s.Note(2, "and another")
	s.Note(3, "and a third")
	s.Note(3, "and a fourth")
	want := map[int][]string{
		1: {"not imported: the same reason"},
		2: {"not imported: the same reason", "and another"},
		3: {"not imported: the same reason", "and a third", "and a fourth"},
	}
	for l, w := range want {
		if got := s.outs.get(l).notes; !reflect.DeepEqual(got, w) {
			t.Errorf("line %d: notes %q, want %q", l, got, w)
		}
	}
}

// TestReportLineMemory: a report's listed lines, skipped in the same words
// each, hold (heap in use after a collection, the report alive) less than
// 160 bytes a line: an Outcome (80 bytes) and the line's text, their note
// shared. A note of its own each took some 100 bytes more a line.
func TestReportLineMemory(t *testing.T) {
	const n = 200_000
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "/a%d /b%d 301 Country=us\n", i, i)
	}
	file := b.String()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	res, err := Read(context.Background(), strings.NewReader(file), "netlify", Options{Settings: redirects.Settings{}})
	if err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	if len(res.Lines) != n {
		t.Fatalf("%d listed lines, want %d", len(res.Lines), n)
	}
	per := (int64(after.HeapInuse) - int64(before.HeapInuse)) / n
	t.Logf("%d bytes of heap a listed line", per)
	if per >= 160 {
		t.Errorf("a listed line holds %d bytes of heap; want under 160", per)
	}
	runtime.KeepAlive(res)
	runtime.KeepAlive(file)
}
