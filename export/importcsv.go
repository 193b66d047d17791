package export

import (
	"bufio"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"

	"redirects"
)

// csvColumns are the columns of an import file, priority optional.
var csvColumns = []string{"source", "destination", "statusCode", "matchType", "priority"}

// ReadCSV reads an import file: RFC 4180 CSV with the header
// source,destination,statusCode,matchType[,priority]. It returns the rules
// and the line number of each, or an EINVALID error that lists every bad
// line with its line number. A broken quote ends the report there, since
// the lines after it can no longer be told apart.
func ReadCSV(in io.Reader) ([]redirects.Rule, []int, error) {
	r := csv.NewReader(bufio.NewReaderSize(in, 1<<20))
	r.FieldsPerRecord = -1
	r.ReuseRecord = true
	header, err := r.Read()
	if err == io.EOF {
		return nil, nil, redirects.Errorf(redirects.EINVALID, "line 1: the file is empty; it needs the header %s", strings.Join(csvColumns[:4], ","))
	} else if err != nil {
		return nil, nil, redirects.Errorf(redirects.EINVALID, "%v", err)
	}
	if len(header) > 0 {
		header[0] = strings.TrimPrefix(header[0], "\uFEFF")
	}
	cols := len(header)
	if (cols != 4 && cols != 5) || !equalFold(header, csvColumns[:cols]) {
		return nil, nil, redirects.Errorf(redirects.EINVALID, "line 1: header is %q; want %s or %s", strings.Join(header, ","), strings.Join(csvColumns[:4], ","), strings.Join(csvColumns, ","))
	}
	var (
		rules    []redirects.Rule
		lines    []int
		problems []string
		seen     = map[string]int{} // matchType+source -> line
	)
	bad := func(line int, format string, args ...any) {
		problems = append(problems, fmt.Sprintf("line %d: ", line)+fmt.Sprintf(format, args...))
	}
	for {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				// A broken quote leaves the rest of the file misaligned, so
				// the report stops here.
				bad(pe.StartLine, "%v", pe.Err)
				break
			}
			return nil, nil, redirects.Errorf(redirects.EINVALID, "reading: %v", err)
		}
		line, _ := r.FieldPos(0)
		if len(rec) == 1 && rec[0] == "" {
			continue // a blank line
		}
		if len(rec) != cols {
			bad(line, "has %d fields, the header has %d", len(rec), cols)
			continue
		}
		rule := redirects.Rule{Source: rec[0], Destination: rec[1], Priority: redirects.DefaultPriority}
		code, err := strconv.Atoi(rec[2])
		if err != nil {
			bad(line, "statusCode %q is not one of 301, 302", rec[2])
			continue
		}
		rule.StatusCode = code
		mt, err := redirects.ParseMatchType(rec[3])
		if err != nil {
			bad(line, "%s", redirects.ErrorMessage(err))
			continue
		}
		rule.MatchType = mt
		if cols == 5 && rec[4] != "" {
			p, err := strconv.Atoi(rec[4])
			if err != nil {
				bad(line, "priority %q is not a whole number", rec[4])
				continue
			}
			rule.Priority = p
		}
		if err := rule.Validate(); err != nil {
			bad(line, "%s", redirects.ErrorMessage(err))
			continue
		}
		k := rec[3] + " " + rec[0]
		if first, dup := seen[k]; dup {
			bad(line, "a %s rule for source %q already appears on line %d", rec[3], rec[0], first)
			continue
		}
		seen[k] = line
		rules = append(rules, rule)
		lines = append(lines, line)
	}
	if len(problems) > 0 {
		return nil, nil, redirects.Errorf(redirects.EINVALID, "%s", strings.Join(problems, "\n"))
	}
	return rules, lines, nil
}

var ruleRef = regexp.MustCompile(`\brule (\d+)\b`)

// RuleLines rewrites every "rule N" of a store's import error message (N the
// 1-based position in the batch, see redirects.Store.ImportRules) into the
// line number, from lines as ReadCSV returns them, that the operator can
// find in the file.
func RuleLines(msg string, lines []int) string {
	return ruleRef.ReplaceAllStringFunc(msg, func(m string) string {
		n, err := strconv.Atoi(m[len("rule "):])
		if err != nil || n < 1 || n > len(lines) {
			return m
		}
		return "line " + strconv.Itoa(lines[n-1])
	})
}

func equalFold(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !strings.EqualFold(strings.TrimSpace(a[i]), b[i]) {
			return false
		}
	}
	return true
}

// importHeader is the first record of an import file that WriteCSV writes:
// the csv export's columns and the priority.
const importHeader = "source,destination,statusCode,matchType,priority\r\n"

// WriteCSV writes rules, in the order given, as an import file that ReadCSV
// reads back: the header source,destination,statusCode,matchType,priority,
// then one record per rule, fields quoted as in the csv export. Unlike the
// export, it keeps each rule's priority, so a rule set survives the round
// trip whole.
func WriteCSV(w io.Writer, rules []redirects.Rule) error {
	bw := bufio.NewWriterSize(w, 1<<20)
	bw.WriteString(importHeader)
	var b []byte
	for i := range rules {
		r := &rules[i]
		b = appendCSVFields(b[:0], r.Source, r.Destination, int32(r.StatusCode), r.MatchType)
		b = append(b, ',')
		b = strconv.AppendInt(b, int64(r.Priority), 10)
		b = append(b, '\r', '\n')
		if _, err := bw.Write(b); err != nil {
			return err
		}
	}
	return bw.Flush()
}
