// Command importgen writes a redirect file of another platform's format
// with N rule lines, for bench/import-formats: nine exact redirects in ten
// and one prefix (or pattern) redirect, in each format's most common shape.
//
//	go run ./bench/importgen -format netlify -lines 1000000 > _redirects
//	go run ./bench/importgen -list
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"sort"
)

// gens writes line i of a file; head and tail frame it.
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
		if i%10 == 0 {
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

func main() {
	format := flag.String("format", "csv", "the format to write")
	lines := flag.Int("lines", 1_000_000, "rule lines to write")
	list := flag.Bool("list", false, "list the formats and exit")
	flag.Parse()
	if *list {
		var names []string
		for n := range gens {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			fmt.Println(n)
		}
		return
	}
	g, ok := gens[*format]
	if !ok {
		fmt.Fprintf(os.Stderr, "importgen: unknown format %q (-list names them)\n", *format)
		os.Exit(2)
	}
	w := bufio.NewWriterSize(os.Stdout, 1<<20)
	w.WriteString(g.head)
	for i := 0; i < *lines; i++ {
		g.line(w, i, i == *lines-1)
	}
	w.WriteString(g.tail)
	if err := w.Flush(); err != nil {
		fmt.Fprintln(os.Stderr, "importgen:", err)
		os.Exit(1)
	}
}
