package importer

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/pprof"
	"strings"
	"testing"
)

// numberedReader yields head, then n lines of format (each %d the line's
// index), without holding the file.
type numberedReader struct {
	format string
	i, n   int
	buf    []byte
}

func (r *numberedReader) Read(p []byte) (int, error) {
	for len(r.buf) < len(p) && r.i < r.n {
		r.buf = fmt.Appendf(r.buf, r.format, fmtArgs(r.format, r.i)...)
		r.i++
	}
	if len(r.buf) == 0 {
		return 0, io.EOF
	}
	k := copy(p, r.buf)
	r.buf = r.buf[:copy(r.buf, r.buf[k:])]
	return k, nil
}

func fmtArgs(format string, i int) []any {
	args := make([]any, strings.Count(format, "%d"))
	for j := range args {
		args[j] = i
	}
	return args
}

// TestHeldRulesAtLimit reads files of more than a million short lines
// with MaxRules 1,000,000 and measures the live heap when the limit is
// reached: what the read holds for a million rules.
func TestHeldRulesAtLimit(t *testing.T) {
	if testing.Short() {
		t.Skip("reads million-line files")
	}
	const maxRules = 1_000_000
	for _, c := range []struct{ from, head, line string }{
		{"nginx", "server {\n", "location = /a%d { return 301 /b%d; }\n"},
		{"apache", "", "Redirect 301 /a%d /b%d\n"},
		{"haproxy", "", "acl r%d path /a%d\nhttp-request redirect code 301 location /b if r%d\n"},
		{"haproxy-map", "", "/a%d 301 /b%d\n"},
		{"netlify", "", "/a%d /b%d 301\n"},
		{"netlify-toml", "", "[[redirects]]\nfrom = \"/a%d\"\nto = \"/b%d\"\n"},
		{"vercel", "{\"redirects\":[\n", "{\"source\":\"/a%d\",\"destination\":\"/b%d\"},\n"},
	} {
		t.Run(c.from, func(t *testing.T) {
			runtime.GC()
			var base, at runtime.MemStats
			runtime.ReadMemStats(&base)
			reached := false
			ruleLimitHook = func() {
				reached = true
				runtime.GC()
				runtime.ReadMemStats(&at)
				if p := os.Getenv("HELD_HEAP_PROFILE"); p != "" {
					f, err := os.Create(p + "." + c.from)
					if err == nil {
						pprof.WriteHeapProfile(f)
						f.Close()
					}
				}
			}
			defer func() { ruleLimitHook = nil }()
			in := io.MultiReader(strings.NewReader(c.head), &numberedReader{format: c.line, n: maxRules + maxRules/10})
			_, err := Read(context.Background(), in, c.from, Options{MaxRules: maxRules})
			if err == nil || !reached {
				t.Fatalf("the limit was not reached: %v", err)
			}
			held := int64(at.HeapInuse) - int64(base.HeapInuse)
			perRule := held / maxRules
			t.Logf("%s: %d MiB held at the limit, %d bytes a rule", c.from, held>>20, perRule)
			if perRule > maxHeldPerRule {
				t.Errorf("%s holds %d bytes a rule at the limit, want at most %d", c.from, perRule, maxHeldPerRule)
			}
		})
	}
}

// maxHeldPerRule is the most live heap a rule may take while a file is read.
const maxHeldPerRule = 200
