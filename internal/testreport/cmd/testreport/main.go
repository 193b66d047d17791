// Command testreport prints the report file that REDIRECTS_TEST_REPORT
// named during a test run as a table: per external suite, the tests that
// ran against it and those that skipped it, and why. .ci/run runs it at
// the end: go run ./internal/testreport/cmd/testreport FILE
package main

import (
	"fmt"
	"os"
	"strings"

	"redirects/internal/testreport"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: testreport FILE")
		os.Exit(2)
	}
	f, err := os.Open(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "testreport:", err)
		os.Exit(1)
	}
	defer f.Close()
	lines, err := testreport.Parse(f)
	if err != nil {
		fmt.Fprintf(os.Stderr, "testreport: %s: %v\n", os.Args[1], err)
		os.Exit(1)
	}
	notRun := testreport.Table(os.Stdout, lines)
	if len(notRun) > 0 {
		fmt.Printf("\nno test ran against: %s\n", strings.Join(notRun, ", "))
	}
}
