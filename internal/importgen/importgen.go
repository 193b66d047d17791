// Package importgen writes redirect files of other platforms' formats with
// N rule lines, for bench/import-formats and the tests that hold a dry run's
// report to what it was: nine exact redirects in ten and one prefix (or
// pattern) redirect, in each format's most common shape.
package importgen

import (
	"bufio"
	"fmt"
	"io"
	"sort"
)

// gen writes line i of a file; head and tail frame it.
type gen struct {
	head, tail string
	line       func(w *bufio.Writer, i int, last bool)
}

var gens = map[string]gen{
	"csv": {head: "source,destination,statusCode,matchType\n", line: func(w *bufio.Writer, i int, _ bool) {
		if i%10 == 0 {
			fmt.Fprintf(w, "/section-%d/,/new/section-%d/,301,starts_with\n", i, i)
		} else {
			fmt.Fprintf(w, "/old/page-%d.html,/new/page-%d,301,exact\n", i, i)
		}
	}},
	"netlify": {line: func(w *bufio.Writer, i int, _ bool) {
		if i%10 == 0 {
			fmt.Fprintf(w, "/section-%d/*  /new/section-%d/:splat  301\n", i, i)
		} else {
			fmt.Fprintf(w, "/old/page-%d.html  /new/page-%d  301\n", i, i)
		}
	}},
	"cloudflare": {line: func(w *bufio.Writer, i int, _ bool) {
		if i%10 == 0 {
			fmt.Fprintf(w, "example.com/section-%d/,https://example.com/new/section-%d/,301,,,TRUE,TRUE\n", i, i)
		} else {
			fmt.Fprintf(w, "example.com/old/page-%d.html,https://example.com/new/page-%d,301\n", i, i)
		}
	}},
	"shopify": {head: "Redirect from,Redirect to\n", line: func(w *bufio.Writer, i int, _ bool) {
		fmt.Fprintf(w, "/old/page-%d.html,/new/page-%d\n", i, i)
	}},
	"vercel": {head: "{\"redirects\": [\n", tail: "]}\n", line: func(w *bufio.Writer, i int, last bool) {
		comma := ","
		if last {
			comma = ""
		}
		// One wildcard line in a hundred: each becomes a regex rule, of
		// which a project holds at most 10,000 (a tenth, as the other
		// formats' prefixes, made 100,000 at a million lines: past the
		// cap, each fell back to two rules and the file to more rules
		// than one import takes).
		if i%100 == 0 {
			fmt.Fprintf(w, "{\"source\": \"/section-%d/:path*\", \"destination\": \"/new/section-%d/:path*\", \"permanent\": true}%s\n", i, i, comma)
		} else {
			fmt.Fprintf(w, "{\"source\": \"/old/page-%d.html\", \"destination\": \"/new/page-%d\", \"permanent\": true}%s\n", i, i, comma)
		}
	}},
	"vercel-bulk": {head: "source,destination,permanent\n", line: func(w *bufio.Writer, i int, _ bool) {
		fmt.Fprintf(w, "/old/page-%d.html,/new/page-%d,true\n", i, i)
	}},
	"wordpress": {head: "source,target,regex,code,type,hits,title,status\n", line: func(w *bufio.Writer, i int, _ bool) {
		fmt.Fprintf(w, "/old/page-%d.html,/new/page-%d,0,301,url,0,,enabled\n", i, i)
	}},
	"cloudflare-pages": {head: "# Cloudflare Pages _redirects\n", line: func(w *bufio.Writer, i int, _ bool) {
		if i%10 == 0 {
			fmt.Fprintf(w, "/section-%d/*  /new/section-%d/:splat  301\n", i, i)
		} else {
			fmt.Fprintf(w, "/old/page-%d.html  /new/page-%d  301\n", i, i)
		}
	}},
	// netlify-toml: one [[redirects]] table is four lines, so N lines are
	// N/4 redirects.
	"netlify-toml": {line: func(w *bufio.Writer, i int, _ bool) {
		switch i % 4 {
		case 0:
			w.WriteString("[[redirects]]\n")
		case 1:
			fmt.Fprintf(w, "  from = \"/old/page-%d.html\"\n", i)
		case 2:
			fmt.Fprintf(w, "  to = \"/new/page-%d\"\n", i)
		case 3:
			w.WriteString("  status = 301\n")
		}
	}},
	// haproxy: the haproxy export's shape, two lines a rule.
	"haproxy": {head: "# haproxy export\n", line: func(w *bufio.Writer, i int, _ bool) {
		n := i / 2
		switch {
		case i%2 == 0 && n%10 == 0:
			fmt.Fprintf(w, "acl redirect_%d path_beg -i /section-%d/\n", n, n)
		case i%2 == 0:
			fmt.Fprintf(w, "acl redirect_%d path -i /old/page-%d.html\n", n, n)
		default:
			fmt.Fprintf(w, "http-request redirect code 301 location /new/page-%d if redirect_%d\n", n, n)
		}
	}},
	"haproxy-map": {line: func(w *bufio.Writer, i int, _ bool) {
		fmt.Fprintf(w, "/old/page-%d.html /new/page-%d\n", i, i)
	}},
	"apache": {line: func(w *bufio.Writer, i int, _ bool) {
		if i%10 == 0 {
			fmt.Fprintf(w, "RedirectMatch 301 ^/section-%d/(.*)$ /new/section-%d/$1\n", i, i)
		} else {
			fmt.Fprintf(w, "RedirectMatch 301 ^/old/page-%d\\.html$ /new/page-%d\n", i, i)
		}
	}},
	"nginx": {line: func(w *bufio.Writer, i int, _ bool) {
		if i%10 == 0 {
			fmt.Fprintf(w, "location ^~ /section-%d/ { rewrite ^/section-%d/(.*)$ /new/section-%d/$1 permanent; }\n", i, i, i)
		} else {
			fmt.Fprintf(w, "location = /old/page-%d.html { return 301 /new/page-%d; }\n", i, i)
		}
	}},
}

// Formats returns the formats Write writes, sorted.
func Formats() []string {
	var names []string
	for n := range gens {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Write writes a file of format with lines rule lines to w.
func Write(w io.Writer, format string, lines int) error {
	g, ok := gens[format]
	if !ok {
		return fmt.Errorf("unknown format %q (-list names them)", format)
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	bw.WriteString(g.head)
	for i := 0; i < lines; i++ {
		g.line(bw, i, i == lines-1)
	}
	bw.WriteString(g.tail)
	return bw.Flush()
}
