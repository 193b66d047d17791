package hostileimport

import (
	"io"
	"strings"
	"testing"
)

// TestShapeReaderMakesItsSize: every shape's file has exactly the size
// asked for, starts with its head and ends with its tail.
func TestShapeReaderMakesItsSize(t *testing.T) {
	for _, s := range append(Shapes([]string{"vercel", "nginx", "netlify", "unknown"}), append(PlanShapes(), ApacheSkips())...) {
		for _, size := range []int64{3 << 20, 1<<20 + 7} {
			b, err := io.ReadAll(s.Reader(size))
			if err != nil || int64(len(b)) != size {
				t.Fatalf("%s of %d bytes: read %d bytes, err %v", s, size, len(b), err)
			}
			if !strings.HasPrefix(string(b), s.Head) || !strings.HasSuffix(string(b), s.Tail) {
				t.Errorf("%s: starts %.40q, ends %.40q; want its head %.40q and tail %q", s, b, b[len(b)-40:], s.Head, s.Tail)
			}
		}
	}
}

// TestTailWriterKeepsTheLastBytes: whatever the writes' sizes, last is the
// last tailBytes bytes of the kept beginning and what was written.
func TestTailWriterKeepsTheLastBytes(t *testing.T) {
	for _, kept := range []string{"", "{", "0123456789abcdefXYZ"} {
		for _, sizes := range [][]int{nil, {1}, {3, 40, 1}, {16, 16}, {5, 0, 7, 2, 100}} {
			var w tailWriter
			all := kept
			for i, n := range sizes {
				p := strings.Repeat(string(rune('a'+i)), n)
				w.Write([]byte(p))
				all += p
			}
			if got, want := w.last(kept), all[max(0, len(all)-tailBytes):]; got != want {
				t.Errorf("kept %q, writes %v: %q, want %q", kept, sizes, got, want)
			}
		}
	}
}
