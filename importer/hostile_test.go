package importer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"
	"testing/iotest"

	"redirects"
)

// Hostile files (issue #31): each shape once drove a reader past its input
// (a stack overflow, quadratic work, a reply echoing megabytes).

// deepTOML is netlify.toml's "x = [[[...]]]" nested levels deep, in a
// [[redirects]] table, on one line or one level a line.
func deepTOML(levels int, perLine bool) string {
	sep := ""
	if perLine {
		sep = "\n"
	}
	return "[[redirects]]\nfrom = \"/a\"\nto = \"/b\"\nx = " + strings.Repeat("["+sep, levels) + strings.Repeat("]"+sep, levels) + "\n"
}

// TestNetlifyTOMLDeepNesting: a 1.9-million-level array in netlify.toml
// (3.8 MB) is refused with a clear error, read as netlify-toml or
// detected by its name; it once overflowed the stack, which nothing can
// recover.
func TestNetlifyTOMLDeepNesting(t *testing.T) {
	for _, perLine := range []bool{false, true} {
		in := deepTOML(1_900_000, perLine)
		for _, from := range []string{"netlify-toml", "auto"} {
			_, err := readFile(context.Background(), strings.NewReader(in), from, Options{FileName: "netlify.toml"}, 0)
			if err == nil {
				t.Fatalf("perLine %v, from %s: a 1.9-million-level array was read", perLine, from)
			}
			msg := err.Error()
			want := "line 4 is 3800004 bytes long"
			if perLine {
				want = "nested more than 64 levels deep"
			}
			if !strings.Contains(msg, want) || len(msg) > 1000 {
				t.Errorf("perLine %v, from %s: error %.300q (%d bytes), want one short error saying %q", perLine, from, msg, len(msg), want)
			}
		}
	}
}

// TestTOMLLibraryDeepNesting holds the TOML library itself to the
// hostile shape, past the scan that bounds nesting before it: it must
// refuse the table, not overflow the stack.
func TestTOMLLibraryDeepNesting(t *testing.T) {
	sink := newSink()
	readTOMLTable(1, deepTOML(1_900_000, false)[len("[[redirects]]\n"):], &Options{}, sink)
	readTOMLTable(1, deepTOML(1_900_000, false), &Options{}, sink)
	if len(sink.bad) != 2 || !strings.Contains(sink.bad[1].Message, "nested more than") {
		t.Fatalf("bad lines %+v, want the library's refusal of the nesting", sink.bad)
	}
}

// endless is a reader of head then body repeated without end; reads
// counts its calls.
type endless struct {
	head, body []byte
	off        int
	reads      int
	// cancel, when set, is called at the read numbered cancelAt.
	cancel   func()
	cancelAt int
}

func (e *endless) Read(p []byte) (int, error) {
	e.reads++
	if e.cancel != nil && e.reads == e.cancelAt {
		e.cancel()
	}
	n := 0
	for n < len(p) {
		var src []byte
		if e.off < len(e.head) {
			src = e.head[e.off:]
		} else {
			src = e.body[(e.off-len(e.head))%len(e.body):]
		}
		k := copy(p[n:], src)
		n += k
		e.off += k
	}
	return n, nil
}

// TestNetlifyTOMLUnclosedArray: an array never closed is refused at the
// line of its table, in work linear in the file: the table is bounded,
// and no line rescans all that is pending (200 KB once took 51 s: this
// 8 MB file would take hours so).
func TestNetlifyTOMLUnclosedArray(t *testing.T) {
	in := "[build]\n  publish = \"x\"\n[[redirects]]\nfrom = \"/a\"\nto = [\"/b\",\n" + strings.Repeat("  \"/c\",\n", 1<<20)
	_, err := readFile(context.Background(), strings.NewReader(in), "netlify-toml", Options{}, 0)
	var be *BadLinesError
	if !errors.As(err, &be) || len(be.Lines) != 1 || be.Lines[0].Line != 3 || !strings.Contains(be.Lines[0].Message, "longer than 1048576 bytes") {
		t.Fatalf("err %v, want line 3 refused as a table longer than 1 MiB", err)
	}
	// A short one is refused by the library, at its line.
	_, err = readFile(context.Background(), strings.NewReader("[[redirects]]\nfrom = \"/a\"\nto = [\"/b\",\n  \"/c\",\n"), "netlify-toml", Options{}, 0)
	if !errors.As(err, &be) || len(be.Lines) != 1 || be.Lines[0].Line < 3 || !strings.Contains(be.Lines[0].Message, "not valid TOML") {
		t.Fatalf("err %v, want the unclosed array refused", err)
	}
}

// TestReadStopsWhenContextEnds: a client that goes away (the request's
// context cancelled) ends the read of an endless file within a read of
// the cancellation, whatever the format, and Read returns
// context.Canceled.
func TestReadStopsWhenContextEnds(t *testing.T) {
	for _, c := range []struct{ from, head, body string }{
		{"netlify-toml", "[[redirects]]\nfrom = \"/a\"\nto = [\"/b\",\n", "  \"/c\",\n"},
		{"netlify", "", "/a /b 301\n"},
		{"nginx", "server {\n", "  location = /a { return 301 /b; }\n"},
		{"apache", "", "Redirect 301 /a /b\n"},
		{"vercel", "{\"redirects\": [\n", "{\"source\": \"/a\", \"destination\": \"/b\"},\n"},
		{"cloudflare", "", "example.com/a,https://example.com/b\n"},
	} {
		ctx, cancel := context.WithCancel(context.Background())
		in := &endless{head: []byte(c.head), body: []byte(c.body), cancel: cancel, cancelAt: 8}
		_, err := readFile(ctx, in, c.from, Options{}, 0)
		cancel()
		if !errors.Is(err, context.Canceled) {
			t.Errorf("%s: err %v, want context.Canceled", c.from, err)
		}
		if in.reads > 9 {
			t.Errorf("%s: %d reads of the file, want the read to stop at the first after the cancellation (8)", c.from, in.reads)
		}
	}
}

// TestMaxRulesCheckedWhileReading: the rule limit ends the read at the
// line that passes it, before the file is read whole (an endless file
// here), with an error naming the limit and the line.
func TestMaxRulesCheckedWhileReading(t *testing.T) {
	in := &endless{body: []byte("/a /b 301\n")}
	_, err := readFile(context.Background(), in, "netlify", Options{}, 1000)
	if redirects.ErrorCode(err) != redirects.EINVALID || !strings.Contains(err.Error(), "1000 rules") || !strings.Contains(err.Error(), "line 1001") {
		t.Fatalf("err %v, want EINVALID naming the limit of 1000 rules and line 1001", err)
	}
	if in.off > 4<<20 {
		t.Errorf("read %d bytes of the file, want the read to stop soon after line 1001", in.off)
	}
}

// TestBinaryAnywhere: a NUL or an invalid UTF-8 byte past the head that
// detection sees (64 KiB) refuses the whole file, naming the offset and
// the line, as in the head; the lines before it are not imported.
func TestBinaryAnywhere(t *testing.T) {
	var b strings.Builder
	for i := 0; b.Len() < 100<<10; i++ {
		fmt.Fprintf(&b, "/a%d /b%d 301\n", i, i)
	}
	lines := strings.Count(b.String(), "\n")
	for _, c := range []struct {
		bad  string
		want string
	}{
		{"/x\x00 /y\n", "holds NUL bytes), not a redirect file: the first at"},
		{"/x\xff /y\n", "not UTF-8 text (invalid byte at offset"},
		{"/x\xe2\x82", "not UTF-8 text (invalid byte at offset"}, // cut at the end
	} {
		in := b.String() + c.bad + "/last /z\n"
		for _, from := range []string{"netlify", "auto"} {
			_, err := readFile(context.Background(), strings.NewReader(in), from, Options{FileName: "_redirects"}, 0)
			off := fmt.Sprintf("offset %d", b.Len()+2)
			line := fmt.Sprintf("line %d", lines+1)
			if redirects.ErrorCode(err) != redirects.EINVALID || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), off) || !strings.Contains(err.Error(), line) {
				t.Errorf("%q from %s: err %v, want %q at %s, %s", c.bad, from, err, c.want, off, line)
			}
		}
	}
	// A file whose reader stops early (a JSON value, then the rest) is
	// checked whole too.
	_, err := readFile(context.Background(), strings.NewReader(`{"redirects": []}`+strings.Repeat(" ", 70<<10)+"\x00"), "vercel", Options{}, 0)
	if err == nil || !strings.Contains(err.Error(), "NUL bytes") {
		t.Errorf("a NUL after a vercel.json: err %v, want the NUL named", err)
	}
}

// TestLongLineRefused: a line longer than MaxLineLen refuses the file,
// naming the line and its length; a one-line JSON file may be longer.
func TestLongLineRefused(t *testing.T) {
	in := "/a /b\n/c /d\n/" + strings.Repeat("x", 70_000) + " /e\n/f /g\n"
	_, err := readFile(context.Background(), strings.NewReader(in), "netlify", Options{}, 0)
	if redirects.ErrorCode(err) != redirects.EINVALID || !strings.Contains(err.Error(), "line 3 is 70004 bytes long") {
		t.Fatalf("err %v, want line 3 named with its length", err)
	}
	// However the file arrives in reads (the last with io.EOF).
	for _, r := range []io.Reader{iotest.DataErrReader(strings.NewReader(in)), iotest.HalfReader(iotest.DataErrReader(strings.NewReader(in))), iotest.OneByteReader(strings.NewReader(in[:70_020]))} {
		_, err := readFile(context.Background(), r, "netlify", Options{}, 0)
		if err == nil || !strings.Contains(err.Error(), "line 3 is 70004 bytes long") {
			t.Errorf("err %v, want line 3 named with its length", err)
		}
	}
	var js strings.Builder
	js.WriteString(`{"redirects": [`)
	for i := 0; js.Len() < 100<<10; i++ {
		fmt.Fprintf(&js, `{"source": "/a%d", "destination": "/b"},`, i)
	}
	js.WriteString(`{"source": "/z", "destination": "/b"}]}`)
	if _, err := readFile(context.Background(), strings.NewReader(js.String()), "vercel", Options{}, 0); err != nil {
		t.Fatalf("a one-line vercel.json of %d bytes: %v", js.Len(), err)
	}
}

// TestReportQuotesExcerpts: 150 lines each holding a long regular
// expression make a report (and a refusal of 150 long bad lines an error)
// under 1 MiB: notes quote a short excerpt of the file, not the whole of
// a value.
func TestReportQuotesExcerpts(t *testing.T) {
	long := strings.Repeat("a", 60<<10)
	var skipped, bad strings.Builder
	for i := 0; i < 150; i++ {
		fmt.Fprintf(&skipped, "RedirectMatch 301 ^/(x|y)%s[0-9]%d$ /b\n", long, i)
		fmt.Fprintf(&bad, "RewriteRule ^/a%s$ /b [R=301,%sZ]\n", long[:30<<10], long[:30<<10])
	}
	res, err := readFile(context.Background(), strings.NewReader(skipped.String()), "apache", Options{}, 0)
	if err != nil {
		t.Fatal(err)
	}
	j, _ := json.Marshal(res)
	if res.Skipped != 150 || len(j) > 1<<20 {
		t.Fatalf("%d lines skipped, a report of %d bytes; want 150, under 1 MiB", res.Skipped, len(j))
	}
	if !strings.Contains(res.Lines[0].Notes[0], "…") {
		t.Errorf("note %q, want an excerpt ending in an ellipsis", res.Lines[0].Notes[0])
	}
	_, err = readFile(context.Background(), strings.NewReader(bad.String()), "apache", Options{}, 0)
	var be *BadLinesError
	if !errors.As(err, &be) || len(be.Lines) != 150 || len(err.Error()) > 1<<20 {
		t.Fatalf("err of %d bytes, want 150 bad lines under 1 MiB", len(fmt.Sprint(err)))
	}
}

// TestExcerpt: what a note quotes is short, cut on a character, plain
// text.
func TestExcerpt(t *testing.T) {
	for _, c := range []struct{ in, s, q string }{
		{"/a", "/a", `"/a"`},
		{"/a\x00\n\x1b", `/a\x00\n\x1b`, `"/a\x00\n\x1b"`},
		{"/\xffb", "/\uFFFDb", "\"/\uFFFDb\""},
		{strings.Repeat("é", 50), strings.Repeat("é", 40) + "…", `"` + strings.Repeat("é", 40) + `"…`},
		{strings.Repeat("x", 79) + "é", strings.Repeat("x", 79) + "…", `"` + strings.Repeat("x", 79) + `"…`},
	} {
		if got := fmt.Sprintf("%s", excerpt(c.in)); got != c.s {
			t.Errorf("%%s of %q = %q, want %q", c.in, got, c.s)
		}
		if got := fmt.Sprintf("%q", excerpt(c.in)); got != c.q {
			t.Errorf("%%q of %q = %q, want %q", c.in, got, c.q)
		}
	}
}

// TestIncludesReportedSkipped: nginx's include and Apache's Include,
// IncludeOptional and RewriteMap bring in rules the import does not read:
// each is reported skipped, with the reason, at every level.
func TestIncludesReportedSkipped(t *testing.T) {
	nginx := "include /etc/nginx/redirects.conf;\n" + // 1
		"server {\n" + // 2
		"  include snippets/r.conf;\n" + // 3
		"  location /a/ {\n" + // 4
		"    include more.conf;\n" + // 5
		"  }\n" + // 6
		"  location = /b { return 301 /c; }\n" + // 7
		"}\n"
	res, err := readFile(context.Background(), strings.NewReader(nginx), "nginx", Options{}, 0)
	if err != nil {
		t.Fatal(err)
	}
	wantSkipped(t, res, map[int]string{1: "include /etc/nginx/redirects.conf: the included file is not read", 3: "include snippets/r.conf", 5: "include more.conf"})
	apache := "Include conf/redirects.conf\n" + // 1
		"<VirtualHost *:80>\n" + // 2
		"  IncludeOptional conf.d/*.conf\n" + // 3
		"  RewriteEngine On\n" + // 4
		"  RewriteMap moved txt:/etc/apache2/moved.txt\n" + // 5
		"  <Location /x>\n" + // 6
		"    Include loc.conf\n" + // 7
		"  </Location>\n" + // 8
		"  Redirect 301 /a /b\n" + // 9
		"</VirtualHost>\n"
	res, err = readFile(context.Background(), strings.NewReader(apache), "apache", Options{}, 0)
	if err != nil {
		t.Fatal(err)
	}
	wantSkipped(t, res, map[int]string{1: "Include conf/redirects.conf: the included files are not read", 3: "IncludeOptional conf.d/*.conf", 5: "RewriteMap moved", 7: "Include loc.conf"})
}

func wantSkipped(t *testing.T, res *Result, want map[int]string) {
	t.Helper()
	for l, note := range want {
		o := outcomeAt(res, l)
		if o.Class != Skipped || !strings.Contains(strings.Join(o.Notes, "; "), note) {
			t.Errorf("line %d: %+v, want skipped saying %q", l, o, note)
		}
	}
}

// guardReadsAll: reading through the guard by bytes cut at every place
// (characters split between reads) finds the same bad byte.
func TestGuardSplitReads(t *testing.T) {
	in := []byte("/é /ü\n/a /b\n€\xe2\x82x\n")
	for size := 1; size < 8; size++ {
		g := newInputGuard(context.Background(), &chunked{b: in, n: size}, nil)
		_, err := io.Copy(io.Discard, g)
		if err == nil || !strings.Contains(err.Error(), "offset 17) at line 3") {
			t.Errorf("reads of %d bytes: err %v, want the invalid byte at offset 17, line 3", size, err)
		}
		g = newInputGuard(context.Background(), &chunked{b: in[:17], n: size}, nil)
		if _, err := io.Copy(io.Discard, g); err != nil {
			t.Errorf("reads of %d bytes of valid text: %v", size, err)
		}
	}
}

type chunked struct {
	b []byte
	n int
}

func (c *chunked) Read(p []byte) (int, error) {
	if len(c.b) == 0 {
		return 0, io.EOF
	}
	k := copy(p[:min(len(p), c.n)], c.b)
	c.b = c.b[k:]
	return k, nil
}

// TestDeepJSON: JSON files are exempt from the line limit, so their
// nesting is bounded by encoding/json's (10,000 levels): a
// 1.9-million-level array in each JSON format is refused, not a stack
// overflow.
func TestDeepJSON(t *testing.T) {
	deep := strings.Repeat("[", 1_900_000) + strings.Repeat("]", 1_900_000)
	for _, c := range []struct{ from, in string }{
		{"vercel", `{"redirects": [` + deep + `]}`},
		{"vercel", `{"redirects": [{"source": "/a", "destination": "/b", "has": ` + deep + `}]}`},
		{"vercel-bulk", `[` + deep + `]`},
		{"vercel-bulk", `{"source": "/a", "destination": ` + deep + `}`},
		{"wordpress", `{"redirects": [` + deep + `]}`},
	} {
		_, err := readFile(context.Background(), strings.NewReader(c.in), c.from, Options{}, 0)
		if err == nil || len(err.Error()) > 4096 {
			t.Errorf("%s %.60s: err %.300v, want a short refusal", c.from, c.in, err)
		}
	}
}

// TestEnoughBadLines: past MaxBadLines broken lines the reader stops, and
// the rest of the file is still checked for binary bytes.
func TestEnoughBadLines(t *testing.T) {
	bad := strings.Repeat("/a\n", MaxBadLines+500)
	_, err := readFile(context.Background(), strings.NewReader(bad), "netlify", Options{}, 0)
	var be *BadLinesError
	if !errors.As(err, &be) || len(be.Lines) != MaxBadLines {
		t.Fatalf("err %.200v, want the first %d bad lines", err, MaxBadLines)
	}
	_, err = readFile(context.Background(), strings.NewReader(bad+strings.Repeat("/b /c\n", 20000)+"\x00"), "netlify", Options{}, 0)
	if err == nil || !strings.Contains(err.Error(), "NUL bytes") {
		t.Fatalf("err %.200v, want the NUL after the bad lines named", err)
	}
}

// TestVercelPlaceholderExpansionCapped: a 122-byte vercel.json whose
// source holds 16 placeholders of two values each once made 65,536 rules
// (30 ran out of memory, before the rule limit could see them); the line
// is skipped past maxPlaceholderExpansions, as in _redirects.
func TestVercelPlaceholderExpansionCapped(t *testing.T) {
	var src strings.Builder
	ph := map[string][]string{}
	for i := 0; i < 16; i++ {
		fmt.Fprintf(&src, "/:p%d", i)
		ph[fmt.Sprintf("p%d", i)] = []string{"a", "b"}
	}
	in := `{"redirects": [{"source": "` + src.String() + `", "destination": "/x"}]}`
	res, err := readFile(context.Background(), strings.NewReader(in), "vercel", Options{Placeholders: ph}, 0)
	if err != nil {
		t.Fatal(err)
	}
	o := outcomeAt(res, 1)
	if len(res.Rules) != 0 || o.Class != Skipped || !strings.Contains(strings.Join(o.Notes, "; "), "would expand into more than 10000 rules") {
		t.Fatalf("%d rules, line 1 %+v; want it skipped past the cap", len(res.Rules), o)
	}
	// Under the cap, every combination is a rule.
	delete(ph, "p15")
	for i := 3; i < 15; i++ {
		delete(ph, fmt.Sprintf("p%d", i))
	}
	in = `{"redirects": [{"source": "/:p0/:p1/:p2", "destination": "/x/:p2/:p1/:p0"}]}`
	res, err = readFile(context.Background(), strings.NewReader(in), "vercel", Options{Placeholders: ph}, 0)
	if err != nil || len(res.Rules) != 8 || res.Rules[0].Source != "/a/a/a" || res.Rules[1].Destination != "/x/b/a/a" {
		t.Fatalf("err %v, rules %+v; want 8 in order", err, res.Rules)
	}
}

// allocsOf returns the bytes allocated while fn runs.
func allocsOf(fn func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	fn()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestApacheNestingBounded: sections nest at most 64 deep (a deeper one
// is a bad line naming its line), and a directive's scope is worked out
// once per section, not again for each directive: 64 <VirtualHost> of a
// 10 KB argument then 500 Redirect lines once allocated 64 notes of 10 KB
// per line (a 0.97 MB file of <IfModule> and Redirect lines took 37 s).
func TestApacheNestingBounded(t *testing.T) {
	for _, depth := range []int{64, 65} {
		in := strings.Repeat("<IfModule m>\n", depth) + "Redirect 301 /a /b\n" + strings.Repeat("</IfModule>\n", depth)
		res, err := readFile(context.Background(), strings.NewReader(in), "apache", Options{}, 0)
		if depth == 64 {
			if err != nil || res.AsIs != 1 {
				t.Fatalf("64 levels: err %v, %+v, want the line imported", err, res)
			}
			continue
		}
		var be *BadLinesError
		if !errors.As(err, &be) || len(be.Lines) != 1 || be.Lines[0].Line != 65 || !strings.Contains(be.Lines[0].Message, "nested more than 64 levels deep") {
			t.Errorf("65 levels: err %v, want line 65 refused as nested too deep", err)
		}
	}
	arg := strings.Repeat("h", 10<<10)
	in := strings.Repeat("<VirtualHost "+arg+">\n", 64) + strings.Repeat("Redirect 301 /a /b\n", 500) + strings.Repeat("</VirtualHost>\n", 64)
	var res *Result
	alloc := allocsOf(func() {
		var err error
		if res, err = readFile(context.Background(), strings.NewReader(in), "apache", Options{}, 0); err != nil {
			t.Fatal(err)
		}
	})
	if alloc > uint64(10*len(in)) {
		t.Errorf("a file of %d bytes allocated %d bytes, want under 10 times the file", len(in), alloc)
	}
	for _, n := range outcomeAt(res, 65).Notes {
		if len(n) > 300 {
			t.Errorf("note of %d bytes: %.100q…, want an excerpt of the argument", len(n), n)
		}
	}
}

// TestNginxNestingBounded: blocks nest at most 64 deep, a deeper one a
// bad line naming its line (a return inside N nested ifs once walked back
// through all of them: 1.56 MB of them took 6.2 s); within the limit the
// block around the ifs is known as they open.
func TestNginxNestingBounded(t *testing.T) {
	for _, depth := range []int{64, 65} {
		in := "server {\n" + strings.Repeat("if ($x) {\nreturn 301 /a;\n", depth-1) + strings.Repeat("}\n", depth)
		res, err := readFile(context.Background(), strings.NewReader(in), "nginx", Options{}, 0)
		if depth == 64 {
			if err != nil || res.Skipped != 63 {
				t.Fatalf("64 levels: err %v, %+v, want the returns read", err, res)
			}
			continue
		}
		var be *BadLinesError
		if !errors.As(err, &be) || len(be.Lines) != 1 || be.Lines[0].Line != 128 || !strings.Contains(be.Lines[0].Message, "nested more than 64 levels deep") {
			t.Fatalf("65 levels: err %v, want line 128 refused as nested too deep", err)
		}
	}
	// The map used in an if inside ifs in a server block is still read
	// at the server's level.
	in := "map $uri $new {\n  /a /b;\n}\nserver {\n  if ($y) {\n    if ($new) {\n      return 301 $new;\n    }\n  }\n}\n"
	res, err := readFile(context.Background(), strings.NewReader(in), "nginx", Options{}, 0)
	if err != nil || len(res.Rules) != 1 || res.Rules[0].Source != "/a" {
		t.Fatalf("err %v, %+v; want the map's rule", err, res)
	}
}

// TestNetlifyTOMLDeepOneLine: the nesting the scan bounds is the deepest
// reached inside a line, not the depth at its end: "x = [[[…]]]" 9,000
// levels deep on one line was handed to the library and imported.
func TestNetlifyTOMLDeepOneLine(t *testing.T) {
	for _, levels := range []int{64, 65, 9000} {
		_, err := readFile(context.Background(), strings.NewReader(deepTOML(levels, false)), "netlify-toml", Options{}, 0)
		deep := err != nil && strings.Contains(err.Error(), "line 4: arrays and inline tables nested more than 64 levels deep")
		if deep != (levels > 64) {
			t.Errorf("%d levels on one line: err %v, want refused at line 4 only past 64", levels, err)
		}
	}
}

// TestNotesQuoteExcerptsEverywhere: a message a reader composes before
// the sink sees it quotes the file's values as excerpts too: a 10 KB
// <VirtualHost> argument, a source our rules refuse (1,000 control
// characters), a long
// regex's destination, a long host, a long TOML key.
func TestNotesQuoteExcerptsEverywhere(t *testing.T) {
	long := strings.Repeat("\x01", 1000) // under the 2,048 bytes of a source, escaped 4 times as long
	for _, c := range []struct{ from, in string }{
		{"apache", "<VirtualHost " + strings.Repeat("h", 10<<10) + ">\nRedirect 301 /a /b\n</VirtualHost>\n"},
		{"netlify", "/a" + long + " /b 301\n"},
		{"apache", "RedirectMatch 301 ^/a(.*)$ /b" + strings.Repeat("$", 10<<10) + "\n"},
		{"netlify", "https://" + strings.Repeat("h", 10<<10) + ".example/a /b 301\n"},
		{"netlify-toml", "[[redirects]]\nfrom = \"/a\"\nto = \"/b\"\n" + strings.Repeat("k", 10<<10) + " = 1\n" + strings.Repeat("k", 10<<10) + " = 2\n"},
	} {
		res, err := readFile(context.Background(), strings.NewReader(c.in), c.from, Options{Hosts: []string{"example.com"}}, 0)
		var notes []string
		var be *BadLinesError
		switch {
		case errors.As(err, &be):
			for _, l := range be.Lines {
				notes = append(notes, l.Message)
			}
		case err != nil:
			t.Fatalf("%s: %v", c.from, err)
		default:
			for _, l := range res.Lines {
				notes = append(notes, l.Notes...)
			}
		}
		if len(notes) == 0 {
			t.Errorf("%s %.40q: no note", c.from, c.in)
		}
		for _, n := range notes {
			if len(n) > 300 {
				t.Errorf("%s %.40q: note of %d bytes: %.120q…, want excerpts", c.from, c.in, len(n), n)
			}
		}
	}
}

// TestJSONByteOrderMark: a UTF-8 byte order mark before a JSON file is
// passed over (encoding/json refused it: "invalid character 'ï'"), and
// lines are still counted right.
func TestJSONByteOrderMark(t *testing.T) {
	for _, c := range []struct{ from, in string }{
		{"vercel", "{\"redirects\": [\n{\"source\": \"/a\", \"destination\": \"/b\"},\n{\"source\": \"/c\", \"destination\": \"/d\", \"has\": [{\"type\": \"cookie\", \"key\": \"x\"}]}]}\n"},
		{"vercel-bulk", "[\n{\"source\": \"/a\", \"destination\": \"/b\"},\n{\"source\": \"/c\", \"destination\": \"/d\", \"statusCode\": 302}]\n"},
		{"wordpress", `{"redirects": [
{"id": 1, "url": "/a", "match_url": "/a", "action_data": {"url": "/b"}, "action_type": "url", "action_code": 301, "match_type": "url", "regex": false, "enabled": true},
{"id": 2, "url": "/c", "match_url": "/c", "action_data": {"url": "/d"}, "action_type": "url", "action_code": 301, "match_type": "url", "regex": false, "enabled": true}]}
`},
	} {
		for _, from := range []string{c.from, "auto"} {
			res, err := readFile(context.Background(), strings.NewReader("\uFEFF"+c.in), from, Options{}, 0)
			if err != nil {
				t.Errorf("%s as %s: %v", c.from, from, err)
				continue
			}
			want, _ := readFile(context.Background(), strings.NewReader(c.in), from, Options{}, 0)
			got, _ := json.Marshal(res)
			wantJSON, _ := json.Marshal(want)
			if res.Format != c.from || string(got) != string(wantJSON) || len(res.Rules) != len(want.Rules) || res.AsIs+len(res.Lines) != 2 {
				t.Errorf("%s as %s: %s, want as without the mark: %s", c.from, from, got, wantJSON)
			}
		}
	}
}

// TestMaxRulesWhileReadingJSON: the rule limit ends the read of an
// endless JSON file soon after the redirect that passes it, whatever the
// JSON format; vercel.json's redirects, held until its settings are
// known, are counted as they are read (they were all decoded first).
func TestMaxRulesWhileReadingJSON(t *testing.T) {
	for _, c := range []struct{ from, head, body, want string }{
		{"vercel", "{\"redirects\": [\n", "{\"source\": \"/a\", \"destination\": \"/b\"},\n", "holds more than the 1000 redirects one import takes (line 1002 holds redirect 1001)"},
		{"vercel-bulk", "[\n", "{\"source\": \"/a\", \"destination\": \"/b\"},\n", "more than the 1000 rules"},
		{"vercel-bulk", "", "{\"source\": \"/a\", \"destination\": \"/b\"}\n", "more than the 1000 rules"},
		{"wordpress", "{\"redirects\": [\n", `{"id": 1, "url": "/a", "match_url": "/a", "action_data": {"url": "/b"}, "action_type": "url", "action_code": 301, "match_type": "url", "regex": false, "enabled": true},` + "\n", "more than the 1000 rules"},
	} {
		in := &endless{head: []byte(c.head), body: []byte(c.body)}
		_, err := readFile(context.Background(), in, c.from, Options{}, 1000)
		if redirects.ErrorCode(err) != redirects.EINVALID || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %.20q: err %.300v, want EINVALID saying %q", c.from, c.head, err, c.want)
		}
		if in.off > 8<<20 {
			t.Errorf("%s %.20q: read %d bytes of the file, want the read to stop soon after the limit", c.from, c.head, in.off)
		}
	}
}

// TestJSONLongString: a JSON string longer than 64 KiB is a bad line
// naming the line where it starts, refused as it is read: an 8 MB string
// in a vercel.json once took about 11 times its size in memory (the
// decoder's buffer, the raw value, the decoded string, the line count's
// copy).
func TestJSONLongString(t *testing.T) {
	long := strings.Repeat("x", 8<<20)
	for _, c := range []struct{ from, in string }{
		{"vercel", "{\"redirects\": [\n{\"source\": \"/a\", \"destination\": \"/b\"},\n{\"source\": \"/" + long + "\", \"destination\": \"/b\"}]}"},
		{"vercel-bulk", "[\n{\"source\": \"/a\", \"destination\": \"/b\"},\n{\"source\": \"/a\", \"destination\": \"/" + long + "\"}]"},
		{"wordpress", "{\"redirects\": [\n{\"id\": 1},\n{\"id\": 2, \"url\": \"/" + long + "\"}]}"},
	} {
		var err error
		alloc := allocsOf(func() {
			_, err = readFile(context.Background(), strings.NewReader(c.in), c.from, Options{}, 0)
		})
		var be *BadLinesError
		if !errors.As(err, &be) || be.Lines[len(be.Lines)-1].Line != 3 || !strings.Contains(be.Lines[len(be.Lines)-1].Message, "a string longer than 65536 bytes") {
			t.Errorf("%s: err %.300v, want line 3 refused for its long string", c.from, err)
		}
		if alloc > 4<<20 {
			t.Errorf("%s: %d bytes allocated for a string of %d, want the read stopped at 64 KiB of it", c.from, alloc, len(long))
		}
	}
	// 64 KiB is taken (our rules refuse such a source, later).
	in := "{\"redirects\": [{\"source\": \"/" + strings.Repeat("x", MaxLineLen-1) + "\", \"destination\": \"/b\"}]}"
	if _, err := readFile(context.Background(), strings.NewReader(in), "vercel", Options{}, 0); err != nil {
		t.Errorf("a string of 64 KiB: %.300v", err)
	}
}

// TestLongLineCRLF: a line's length is counted without its line break,
// the CR of a CRLF included; a lone CR counts as a byte of the line.
func TestLongLineCRLF(t *testing.T) {
	line := func(n int) string { return "/" + strings.Repeat("x", n-len("/ /b")) + " /b" }
	for _, c := range []struct {
		in   string
		want string
	}{
		{"/a /b\r\n" + line(MaxLineLen) + "\r\n/c /d\r\n", ""},
		{"/a /b\r\n" + line(MaxLineLen+1) + "\r\n/c /d\r\n", "line 2 is 65537 bytes long"},
		{"/a /b\r\n" + line(MaxLineLen) + "\r\r\n", "line 2 is 65537 bytes long"},
	} {
		_, err := readFile(context.Background(), strings.NewReader(c.in), "netlify", Options{}, 0)
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%.20q…: err %.200v, want %q", c.in, err, c.want)
		}
	}
}

// TestCSVOpenQuoteBounded: a quoted field left open, then 10 MB of lines,
// is refused as a bad line naming the line where the field starts, in
// every CSV format, and the reader holds at most a record of 64 KiB of it
// (encoding/csv once gathered the rest of the file into the one field:
// 400 to 500 MiB of a node's memory for a 100 MB file).
func TestCSVOpenQuoteBounded(t *testing.T) {
	rest := strings.Repeat("/c,/d,301\n", 1<<20) // 10 MiB of lines
	// inBuf is the reader's own input buffer, past Read's HeadSize: the
	// formats that may be JSON read through 1 MiB.
	for _, tc := range []struct {
		from, head string
		inBuf      int
	}{
		{"cloudflare", "example.com/a,https://example.com/b,301\nexample.com/c,\"https://example.com/d\n", 0},
		{"shopify", "Redirect from,Redirect to\n/a,\"/b\n", 0},
		{"vercel-bulk", "source,destination,permanent\n/a,\"/b,true\n", 1 << 20},
		{"wordpress", "source,target,regex,code,type,hits,title,status\n\"/a\",\"/b\n", 1 << 20},
	} {
		in := tc.head + rest
		var err error
		alloc := allocsOf(func() {
			_, err = readFile(context.Background(), strings.NewReader(in), tc.from, Options{}, 0)
		})
		var be *BadLinesError
		if !errors.As(err, &be) || len(be.Lines) != 1 || be.Lines[0].Line != 2 ||
			!strings.Contains(be.Lines[0].Message, "quoted field that starts on this line runs on past 64 KiB") {
			t.Errorf("%s: err %v, want line 2 refused as a quoted field past 64 KiB", tc.from, err)
		} else if len(be.Lines[0].Message) > 200 {
			t.Errorf("%s: a message of %d bytes: %.100q…", tc.from, len(be.Lines[0].Message), be.Lines[0].Message)
		}
		if max := uint64(8*MaxLineLen + HeadSize + tc.inBuf); alloc > max {
			t.Errorf("%s: a file of %d bytes allocated %d bytes while read, want under %d", tc.from, len(in), alloc, max)
		}
	}
}
