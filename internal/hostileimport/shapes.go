// Package hostileimport makes hostile import files of any size, streamed
// rather than held, and measures what sending one through the management
// API of a running node costs it: the shapes of issue #31 (one line, many
// lines, lines of a megabyte, deep nesting, a structure left open, a huge
// header), for every format the import route reads. The resource test of
// cmd/redirects and bench/hostile's imports mode both use it.
package hostileimport

import (
	"fmt"
	"io"
	"strings"
)

// Shape is one hostile file: Head, then Unit(0), Unit(1), ... until the
// file has its size less Tail, then Tail. The last unit is cut to fit, or
// when it holds a line end, replaced by as many blank lines.
type Shape struct {
	// Name is "FORMAT/SHAPE", FORMAT being "draft" for the draft CSV
	// route (no from=).
	Name string
	// From is the import's from= ("" for the draft CSV route).
	From string
	Head string
	Unit func(i int) string
	Tail string
}

// Reader returns the shape's file of size bytes, made as it is read.
func (s Shape) Reader(size int64) io.Reader {
	return &shapeReader{s: s, size: size}
}

func (s Shape) String() string { return s.Name }

// shapeReader makes a shape's file as it is read.
type shapeReader struct {
	s    Shape
	size int64
	pos  int64 // bytes made, those of buf included
	unit int
	buf  string // what is left of the piece being sent
	head bool   // the head is made
}

func (r *shapeReader) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		if r.buf == "" {
			left := r.size - r.pos
			if left <= 0 {
				break
			}
			var piece string
			switch {
			case !r.head:
				r.head = true
				piece = r.s.Head
			case left <= int64(len(r.s.Tail)):
				piece = r.s.Tail[int64(len(r.s.Tail))-left:]
			default:
				piece = r.s.Unit(r.unit)
				r.unit++
				if room := left - int64(len(r.s.Tail)); int64(len(piece)) > room {
					// A unit of lines is not cut, so that a file of good
					// lines stays good: blank lines fill the room.
					if strings.Contains(piece, "\n") {
						piece = strings.Repeat("\n", int(room))
					} else {
						piece = piece[:room]
					}
				}
			}
			if int64(len(piece)) > left {
				piece = piece[:left]
			}
			r.pos += int64(len(piece))
			r.buf = piece
			continue
		}
		k := copy(p[n:], r.buf)
		r.buf = r.buf[k:]
		n += k
	}
	if n == 0 && len(p) > 0 {
		return 0, io.EOF
	}
	return n, nil
}

// repeat returns a unit of one string.
func repeat(s string) func(int) string { return func(int) string { return s } }

// filler is 64 KiB of a byte: the unit of a file of one long line.
func filler(c byte) func(int) string { return repeat(strings.Repeat(string(c), 64<<10)) }

// numbered returns a unit of format with i in each %d.
func numbered(format string) func(int) string {
	n := strings.Count(format, "%d")
	return func(i int) string {
		args := make([]any, n)
		for k := range args {
			args[k] = i
		}
		return fmt.Sprintf(format, args...)
	}
}

// megabyteLines returns a unit of lines of about a megabyte each: prefix,
// a megabyte of 'a', then suffix (each line one rule of the format, with a
// huge source or pattern).
func megabyteLines(prefix, suffix string) func(int) string {
	mb := strings.Repeat("a", 1<<20)
	return func(i int) string { return fmt.Sprintf(prefix, i) + mb + suffix }
}

// formatShapes are each format's shapes beside the draft CSV route's:
// its rule, line and header, where it nests and how it is left open.
type formatShapes struct {
	head    string // a header, or what opens the file
	line    string // one rule, %d its number
	tail    string
	mbLine  [2]string // a line of a megabyte: before and after the filler
	header  string    // for CSV formats: a header that a huge column name ends
	nest    [2]string // for formats that nest: the head and the unit that nests once more
	open    [2]string // a structure left open: the head and its unit
	oneLine string    // what a file of one line starts with
}

// formats are the shapes of each format of migrate (redirects rule import
// --from), by name.
var formats = map[string]formatShapes{
	"apache": {line: "Redirect 301 /a%d /b%d\n", mbLine: [2]string{"RedirectMatch 301 ^/a%d", "(.*)$ /b/$1\n"},
		nest: [2]string{"", "<IfModule mod_alias.c>\n"}, open: [2]string{"<IfModule mod_alias.c>\n", "Redirect 301 /a /b\n"}, oneLine: "Redirect 301 /"},
	"cloudflare": {line: "example.com/a%d,https://example.com/b%d,301,,,,\n", mbLine: [2]string{"example.com/a%d", ",/b,301,,,,\n"},
		header: "source,target,status,", open: [2]string{"\"example.com/a", ",/b,301,,,,\n"}, oneLine: "example.com/"},
	"haproxy": {line: "acl r%d path /a%d\nhttp-request redirect code 301 location /b if r%d\n", mbLine: [2]string{"acl r%d path_reg ^/", "\n"},
		open: [2]string{"acl r path \"/a", " /b\n"}, oneLine: "acl r path /"},
	"haproxy-map":      {line: "/a%d 301 /b%d\n", mbLine: [2]string{"/a%d", " 301 /b\n"}, oneLine: "/"},
	"cloudflare-pages": {line: "/a%d /b%d 301\n", mbLine: [2]string{"/a%d", " /b 301\n"}, oneLine: "/"},
	"netlify":          {line: "/a%d /b%d 301\n", mbLine: [2]string{"/a%d", " /b 301\n"}, oneLine: "/"},
	"netlify-toml": {line: "[[redirects]]\nfrom = \"/a%d\"\nto = \"/b%d\"\n", mbLine: [2]string{"[[redirects]]\nfrom = \"/a%d", "\"\nto = \"/b\"\n"},
		nest: [2]string{"x = ", "["}, open: [2]string{"x = \"\"\"\n", "[[redirects]]\nfrom = \"/a\"\n"}, oneLine: "x = \""},
	"nginx": {head: "server {\n", line: "location = /a%d { return 301 /b%d; }\n", tail: "}\n", mbLine: [2]string{"location ~ ^/a%d", " { return 301 /b; }\n"},
		nest: [2]string{"", "location /a {\n"}, open: [2]string{"server {\n", "location = /a { return 301 /b; }\n"}, oneLine: "location = /"},
	"csv": {head: "source,destination,statusCode,matchType\n", line: "/a%d,/b%d,301,exact\n", mbLine: [2]string{"/a%d", ",/b,301,exact\n"},
		header: "source,destination,statusCode,matchType,", open: [2]string{"source,destination,statusCode,matchType\n\"/a", ",/b,301,exact\n"}, oneLine: "source,destination,statusCode,matchType,"},
	"shopify": {head: "Redirect from,Redirect to\n", line: "/a%d,/b%d\n", mbLine: [2]string{"/a%d", ",/b\n"},
		header: "Redirect from,Redirect to,", open: [2]string{"Redirect from,Redirect to\n\"/a", ",/b\n"}, oneLine: "Redirect from,Redirect to\n/"},
	"vercel": {head: "{\"redirects\":[\n", line: "{\"source\":\"/a%d\",\"destination\":\"/b%d\"},\n", tail: "{\"source\":\"/z\",\"destination\":\"/b\"}]}\n",
		mbLine: [2]string{"{\"source\":\"/a%d", "\",\"destination\":\"/b\"},\n"},
		nest:   [2]string{"{\"redirects\":", "["}, open: [2]string{"{\"redirects\":[\n", "{\"source\":\"/a\",\"destination\":\"/b\"},\n"}, oneLine: "{\"redirects\":[{\"source\":\"/"},
	"vercel-bulk": {head: "source,destination,permanent\n", line: "/a%d,/b%d,true\n", mbLine: [2]string{"/a%d", ",/b,true\n"},
		header: "source,destination,", nest: [2]string{"", "["}, open: [2]string{"[\n", "{\"source\":\"/a\",\"destination\":\"/b\"},\n"}, oneLine: "source,destination,permanent\n/"},
	"wordpress": {head: "source,target,regex,code,type,hits,title,status\n", line: "\"/a%d\",\"/b%d\",0,301,\"url\",0,\"\",\"active\"\n",
		mbLine: [2]string{"\"^/a%d", "$\",\"/b\",1,301,\"url\",0,\"\",\"active\"\n"},
		header: "source,target,", nest: [2]string{"{\"redirects\":", "["}, open: [2]string{"source,target,regex,code,type,hits,title,status\n\"/a", ",/b,0,301\n"},
		oneLine: "source,target,regex,code,type,hits,title,status\n\"/"},
}

// Shapes returns the hostile shapes of the draft CSV route and of each
// of the formats named (importer.FormatNames less "auto"); a format this
// package has no shapes for gets the generic ones (one line, many lines).
func Shapes(names []string) []Shape {
	header := "source,destination,statusCode,matchType\n"
	out := []Shape{
		{Name: "draft/header", Head: "source,destination,statusCode,matchType,", Unit: filler('x')},
		{Name: "draft/one-line", Head: header + "/a,/", Unit: filler('x')},
		{Name: "draft/many-rules", Head: header, Unit: numbered("/a%d,/b%d,301,exact\n")},
		{Name: "draft/bad-lines", Head: header, Unit: numbered("/a%d,/b,999,exact\n")},
		{Name: "draft/megabyte-lines", Head: header, Unit: megabyteLines("/a%d", ",/b,301,exact\n")},
		{Name: "draft/open-quote", Head: header + "\"/a", Unit: repeat(",/b,301,exact\n")},
	}
	for _, name := range names {
		f, ok := formats[name]
		if !ok {
			f = formatShapes{line: "/a%d /b%d\n", oneLine: "/"}
		}
		add := func(shape string, s Shape) {
			s.Name, s.From = name+"/"+shape, name
			out = append(out, s)
		}
		add("one-line", Shape{Head: f.oneLine, Unit: filler('a')})
		add("many-lines", Shape{Head: f.head, Unit: numbered(f.line), Tail: f.tail})
		if f.mbLine[0] != "" {
			add("megabyte-lines", Shape{Head: f.head, Unit: megabyteLines(f.mbLine[0], f.mbLine[1]), Tail: f.tail})
		}
		if f.header != "" {
			add("header", Shape{Head: f.header, Unit: filler('x')})
		}
		if f.nest[1] != "" {
			add("nesting", Shape{Head: f.nest[0], Unit: repeat(strings.Repeat(f.nest[1], 1<<10))})
		}
		if f.open[1] != "" {
			add("open", Shape{Head: f.open[0], Unit: repeat(f.open[1])})
		}
	}
	return out
}

// PlanShapes are the hostile files of redirects plan: "rulesFile/..."
// are draft CSV files a project file names as its rulesFile (the draft
// route's shapes), "project/..." the project file itself.
func PlanShapes() []Shape {
	var out []Shape
	for _, s := range Shapes(nil) {
		s.Name = "rulesFile/" + strings.TrimPrefix(s.Name, "draft/")
		out = append(out, s)
	}
	return append(out,
		Shape{Name: "project/nesting", Head: `{"project":"PROJECT","rules":`, Unit: repeat(strings.Repeat("[", 1<<10))},
		Shape{Name: "project/nested-objects", Head: `{"project":"PROJECT","settings":`, Unit: repeat(strings.Repeat(`{"a":`, 1<<10))},
		Shape{Name: "project/one-line", Head: `{"project":"PROJECT","rules":[{"source":"/`, Unit: filler('a')},
		Shape{Name: "project/many-rules", Head: `{"project":"PROJECT","rules":[` + "\n", Unit: numbered(`{"source":"/a%d","destination":"/b%d"},` + "\n"),
			Tail: `{"source":"/z","destination":"/b"}]}` + "\n"},
	)
}

// ApacheSkips is a file of Apache RewriteRule [S=n] skips whose windows
// all stay open (each ends where the one before it does), each followed
// by a redirect inside them all: the import's work for a rule grows with
// the windows over it unless they are bounded (the importer's test and
// benchmark of skips read it). It is not among Shapes: every line of it
// is skipped, and an import keeps a report line for each skipped line,
// so that 100 MB of it, as of any lines the import skips, grows a node by
// more than the resource test's bound, whatever the skips cost.
func ApacheSkips() Shape {
	return Shape{Name: "apache/skips", From: "apache", Head: "RewriteEngine On\n", Unit: func(i int) string {
		return fmt.Sprintf("RewriteRule ^/?(\\d+)/w%d - [S=%d]\nRewriteRule ^/?(\\d+)/([a-z]+) /d/$1#$2 [R=302,L,NE]\n", i, 1_000_000_000-2*i)
	}}
}

// ReportShapes are files whose every line the import lists in its report,
// one by one: lines skipped in apache, nginx, netlify and vercel files,
// and lines changed in an Apache file. They are not hostile (each line is
// valid, and the answer lists each), but a report line costs a node more
// than the line does: the resource test of reports bounds what they cost.
func ReportShapes() []Shape {
	return []Shape{
		{Name: "apache/skipped", From: "apache", Unit: func(i int) string {
			return fmt.Sprintf("RewriteRule ^/a%d$ /b%d [R=301,L]\n", i, i)
		}},
		{Name: "apache/changed", From: "apache", Head: "RewriteEngine On\n", Unit: func(i int) string {
			return fmt.Sprintf("RewriteRule ^/a%d$ /b%d [R=301]\n", i, i)
		}},
		{Name: "nginx/skipped", From: "nginx", Unit: func(i int) string {
			return fmt.Sprintf("rewrite ^/a%d$ /b%d permanent;\n", i, i)
		}},
		{Name: "netlify/skipped", From: "netlify", Unit: func(i int) string {
			return fmt.Sprintf("/a%d /b%d 200\n", i, i)
		}},
		{Name: "vercel/skipped", From: "vercel", Head: "{\"redirects\": [\n", Tail: "{\"source\": \"/z\", \"destination\": \"/y\", \"permanent\": true}]}\n", Unit: func(i int) string {
			return fmt.Sprintf("{\"source\": \"/a%d\", \"destination\": \"/b%d\", \"permanent\": true, \"has\": [{\"type\": \"header\", \"key\": \"x\"}]},\n", i, i)
		}},
	}
}
