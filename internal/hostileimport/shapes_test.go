package hostileimport

import (
	"io"
	"strings"
	"testing"
)

// TestShapeReaderMakesItsSize: every shape's file has exactly the size
// asked for, starts with its head and ends with its tail.
func TestShapeReaderMakesItsSize(t *testing.T) {
	for _, s := range append(Shapes([]string{"vercel", "nginx", "netlify", "unknown"}), PlanShapes()...) {
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
