// Command importgen writes a redirect file of another platform's format
// with N rule lines, for bench/import-formats (see internal/importgen).
//
//	go run ./bench/importgen -format netlify -lines 1000000 > _redirects
//	go run ./bench/importgen -list
package main

import (
	"flag"
	"fmt"
	"os"

	"redirects/internal/importgen"
)

func main() {
	format := flag.String("format", "csv", "the format to write")
	lines := flag.Int("lines", 1_000_000, "rule lines to write")
	list := flag.Bool("list", false, "list the formats and exit")
	flag.Parse()
	if *list {
		for _, n := range importgen.Formats() {
			fmt.Println(n)
		}
		return
	}
	if err := importgen.Write(os.Stdout, *format, *lines); err != nil {
		fmt.Fprintln(os.Stderr, "importgen:", err)
		os.Exit(1)
	}
}
