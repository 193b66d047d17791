package export

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"redirects"
)

// csvColumns are the columns of an import file: the first four are
// required, priority and id optional.
var csvColumns = []string{"source", "destination", "statusCode", "matchType", "priority", "id"}

// The indexes of csvColumns.
const (
	colSource = iota
	colDest
	colStatus
	colMatch
	colPriority
	colID
	numColumns
)

// columnNames maps a header name, folded by foldName, to its column. Beside
// the names themselves, "status" and "match" are accepted, as spreadsheets
// and other tools name them.
var columnNames = map[string]int{
	"source": colSource, "destination": colDest, "statuscode": colStatus, "status": colStatus,
	"matchtype": colMatch, "match": colMatch, "priority": colPriority, "id": colID,
}

// matchNames maps a match type, folded by foldName, to the match type:
// exact, starts_with in any case, with a space or none ("Starts With",
// "startsWith"), and prefix for starts_with.
var matchNames = map[string]redirects.MatchType{
	"exact": redirects.Exact, "startswith": redirects.StartsWith, "prefix": redirects.StartsWith,
}

// foldName lower-cases s and drops its spaces, underscores and hyphens, so
// "Status Code", "status_code" and "statusCode" are one name.
func foldName(s string) string {
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '_' || c == '-' || c == '\t':
		case 'A' <= c && c <= 'Z':
			b = append(b, c+'a'-'A')
		default:
			b = append(b, c)
		}
	}
	return string(b)
}

// LineError is one bad line of an import file: its 1-based line number in
// the file (the header is line 1), as a text editor or a spreadsheet
// shows it, and what is wrong with it.
type LineError struct {
	Line    int    `json:"line"`
	Message string `json:"message"`
}

// ReadOptions tunes ReadRules.
type ReadOptions struct {
	// Hosts are the hosts the project declares (redirects.Project.Hosts):
	// a source that is an http or https URL on one of them is read as its
	// path, so https://www.example.com/old is /old.
	Hosts []string
	// MaxRows, when positive, is the most rules a file may hold; the first
	// line beyond it is reported and ends the reading.
	MaxRows int
}

// ReadCSV reads an import file as ReadRules does, for a project that
// declares no hosts, and returns the rules and the line number of each, or
// an EINVALID error that lists every bad line, one "line N: ..." per line.
func ReadCSV(in io.Reader) ([]redirects.Rule, []int, error) {
	rules, lines, bad, err := ReadRules(in, ReadOptions{})
	if err != nil {
		return nil, nil, err
	}
	if len(bad) > 0 {
		return nil, nil, LineErrors(bad)
	}
	return rules, lines, nil
}

// LineErrors returns the one EINVALID error of bad lines: "line N: ..."
// for each, one per line.
func LineErrors(bad []LineError) error {
	var sb strings.Builder
	for i, e := range bad {
		if i > 0 {
			sb.WriteByte('\n')
		}
		fmt.Fprintf(&sb, "line %d: %s", e.Line, e.Message)
	}
	return &redirects.Error{Code: redirects.EINVALID, Message: sb.String()}
}

// ReadRules reads an import file: CSV (RFC 4180) whose header names the
// columns source, destination, statusCode and matchType, and optionally
// priority and id, in any order. It accepts the files that spreadsheets
// and other tools write:
//
//   - a UTF-8 byte order mark, CRLF or LF line ends;
//   - ',', ';' or a tab between fields, whichever the header line holds
//     most of (',' on a tie);
//   - header names in any case, with spaces, underscores or hyphens
//     ("Status Code", "status_code", "STATUSCODE"), and "status" and
//     "match" for statusCode and matchType;
//   - match types in any case, with or without a space or underscore
//     ("Exact", "EXACT", "Starts With", "startsWith"), and "prefix" for
//     starts_with;
//   - spaces around every value, which are dropped, and lines whose
//     fields are all empty, which are skipped;
//   - an empty priority, which is redirects.DefaultPriority;
//   - a source that is an http or https URL on one of opts.Hosts, read as
//     its path.
//
// The id column (which rules.csv of the management API writes) is read
// and ignored: an import matches rules by match type and source.
//
// It returns the rules and the line number of each, or every bad line
// with its line number (the header's problems as line 1) and no rules. A
// broken quote ends the report there, since the lines after it can no
// longer be told apart. err is only a failure to read in.
func ReadRules(in io.Reader, opts ReadOptions) (rules []redirects.Rule, lines []int, bad []LineError, err error) {
	br := bufio.NewReaderSize(in, 1<<20)
	if bom, _ := br.Peek(3); string(bom) == "\uFEFF" {
		br.Discard(3)
	}
	comma, err := sniffComma(br)
	if err != nil {
		return nil, nil, nil, redirects.Errorf(redirects.EINVALID, "reading: %v", err)
	}
	r := csv.NewReader(br)
	r.Comma = comma
	r.FieldsPerRecord = -1
	r.ReuseRecord = true
	r.LazyQuotes = false
	header, err := r.Read()
	if err == io.EOF {
		return nil, nil, []LineError{{1, "the file is empty; it needs the header " + strings.Join(csvColumns[:4], ",")}}, nil
	} else if err != nil {
		var pe *csv.ParseError
		if errors.As(err, &pe) {
			return nil, nil, []LineError{{pe.StartLine, pe.Err.Error()}}, nil
		}
		return nil, nil, nil, redirects.Errorf(redirects.EINVALID, "reading: %v", err)
	}
	index, msg := readHeader(header)
	if msg != "" {
		return nil, nil, []LineError{{1, msg}}, nil
	}
	cols := len(header)
	hosts := make(map[string]bool, len(opts.Hosts))
	for _, h := range opts.Hosts {
		hosts[strings.ToLower(h)] = true
	}
	var (
		seen = map[ruleKey]int{} // -> line
		line int
		rows int
	)
	fail := func(format string, args ...any) {
		bad = append(bad, LineError{line, fmt.Sprintf(format, args...)})
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
				bad = append(bad, LineError{pe.StartLine, pe.Err.Error()})
				break
			}
			return nil, nil, nil, redirects.Errorf(redirects.EINVALID, "reading: %v", err)
		}
		line, _ = r.FieldPos(0)
		blank := true
		for i := range rec {
			rec[i] = strings.TrimSpace(rec[i])
			blank = blank && rec[i] == ""
		}
		if blank {
			continue // a blank line, or one of empty fields
		}
		if rows++; opts.MaxRows > 0 && rows > opts.MaxRows {
			fail("the file has more than %d rules, the most one import takes; split it", opts.MaxRows)
			break
		}
		if len(rec) != cols {
			fail("has %d fields, the header has %d", len(rec), cols)
			continue
		}
		field := func(c int) string {
			if index[c] < 0 {
				return ""
			}
			return rec[index[c]]
		}
		rule := redirects.Rule{Source: field(colSource), Destination: field(colDest), Priority: redirects.DefaultPriority}
		status := field(colStatus)
		code, err := strconv.Atoi(status)
		if err != nil {
			fail("statusCode %q is not one of 301, 302", status)
			continue
		}
		rule.StatusCode = code
		match := field(colMatch)
		mt, ok := matchNames[foldName(match)]
		if !ok {
			fail("matchType %q is not one of exact, starts_with", match)
			continue
		}
		rule.MatchType = mt
		if p := field(colPriority); p != "" {
			n, err := strconv.Atoi(p)
			if err != nil {
				fail("priority %q is not a whole number", p)
				continue
			}
			rule.Priority = n
		}
		if src, msg := sourcePath(rule.Source, hosts); msg != "" {
			fail("%s", msg)
			continue
		} else {
			rule.Source = src
		}
		if err := rule.Validate(); err != nil {
			fail("%s", redirects.ErrorMessage(err))
			continue
		}
		k := ruleKey{rule.Source, mt}
		if first, dup := seen[k]; dup {
			fail("a %s rule for source %q already appears on line %d", mt, rule.Source, first)
			continue
		}
		seen[k] = line
		rules = append(rules, rule)
		lines = append(lines, line)
	}
	if len(bad) > 0 {
		return nil, nil, bad, nil
	}
	return rules, lines, nil, nil
}

// ruleKey is what makes a rule one of a kind in a project.
type ruleKey struct {
	source string
	match  redirects.MatchType
}

// readHeader maps each column of csvColumns to its index in header, or -1
// for an optional column the file lacks, or says what is wrong.
func readHeader(header []string) ([]int, string) {
	index := make([]int, numColumns)
	for i := range index {
		index[i] = -1
	}
	var problem string
	for i, name := range header {
		c, ok := columnNames[foldName(name)]
		switch {
		case !ok && strings.TrimSpace(name) == "":
			problem = fmt.Sprintf("column %d has no name", i+1)
		case !ok:
			problem = fmt.Sprintf("column %q is not one of %s", strings.TrimSpace(name), strings.Join(csvColumns, ", "))
		case index[c] >= 0:
			problem = fmt.Sprintf("column %q appears twice", csvColumns[c])
		default:
			index[c] = i
		}
		if problem != "" {
			break
		}
	}
	if problem == "" {
		for c := range colPriority {
			if index[c] < 0 {
				problem = fmt.Sprintf("column %s is missing", csvColumns[c])
				break
			}
		}
	}
	if problem != "" {
		return nil, fmt.Sprintf("header is %q; want the columns %s, then optionally priority and id (%s)",
			strings.Join(header, ","), strings.Join(csvColumns[:4], ","), problem)
	}
	return index, ""
}

// sniffComma returns the delimiter of the header line: ',', ';' or a tab,
// whichever it holds most of outside quotes, ',' on a tie.
func sniffComma(br *bufio.Reader) (rune, error) {
	head, err := br.Peek(64 << 10)
	if err != nil && err != io.EOF && err != bufio.ErrBufferFull {
		return 0, err
	}
	if i := bytes.IndexByte(head, '\n'); i >= 0 {
		head = head[:i]
	}
	var counts [3]int
	quoted := false
	for _, c := range head {
		switch c {
		case '"':
			quoted = !quoted
		case ',':
			if !quoted {
				counts[0]++
			}
		case ';':
			if !quoted {
				counts[1]++
			}
		case '\t':
			if !quoted {
				counts[2]++
			}
		}
	}
	comma, most := ',', counts[0]
	if counts[1] > most {
		comma, most = ';', counts[1]
	}
	if counts[2] > most {
		comma = '\t'
	}
	return comma, nil
}

// sourcePath returns a source as a rule holds it: a path as it is, an
// http or https URL on one of hosts as its path (its query kept, for
// Validate to refuse), or a message saying why a URL is refused.
func sourcePath(src string, hosts map[string]bool) (string, string) {
	lower := strings.ToLower(src)
	if !strings.HasPrefix(lower, "http://") && !strings.HasPrefix(lower, "https://") {
		return src, ""
	}
	u, err := url.Parse(src)
	if err != nil || u.Host == "" || u.User != nil {
		return "", fmt.Sprintf("source %q is not a path starting with '/' nor a URL with a host", src)
	}
	host := strings.ToLower(u.Host)
	if !hosts[host] && !hosts[strings.ToLower(u.Hostname())] {
		declared := "the project declares no hosts"
		if len(hosts) > 0 {
			declared = "it is not one of the hosts the project declares"
		}
		return "", fmt.Sprintf("source %q is a URL on host %s, and %s; declare it (redirects project update --host %s, or PATCH the project's hosts) or write the path alone",
			src, host, declared, u.Hostname())
	}
	path := u.EscapedPath()
	if path == "" {
		path = "/"
	}
	if u.RawQuery != "" || u.ForceQuery {
		path += "?" + u.RawQuery
	}
	if u.Fragment != "" {
		path += "#" + u.EscapedFragment()
	}
	return path, ""
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

// StoreLineErrors returns the problems of a store's import error (see
// redirects.Store.ImportRules: one "rule N: ..." per line, N a position
// in the batch) as bad lines of the file, from lines as ReadRules returns
// them. A line of the message that names no rule gets line 0.
func StoreLineErrors(msg string, lines []int) []LineError {
	var out []LineError
	for _, m := range strings.Split(msg, "\n") {
		e := LineError{Message: m}
		if rest, ok := strings.CutPrefix(m, "rule "); ok {
			num, text, ok := strings.Cut(rest, ": ")
			if n, err := strconv.Atoi(num); ok && err == nil && n >= 1 && n <= len(lines) {
				e = LineError{Line: lines[n-1], Message: text}
			}
		}
		out = append(out, e)
	}
	return out
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

// draftHeader is the first record of the draft file that WriteDraftCSV
// writes: the import columns and each rule's ID.
const draftHeader = "source,destination,statusCode,matchType,priority,id\r\n"

// WriteDraftCSV writes draft rules, in the order given, as the draft file
// of the management API's rules.csv: WriteCSV's columns and then each
// rule's ID. ReadRules reads it back (the id column is ignored), so a
// draft exported and imported with replace deploys to the same answers.
func WriteDraftCSV(w io.Writer, rules []redirects.Rule) error {
	bw := bufio.NewWriterSize(w, 1<<20)
	bw.WriteString(draftHeader)
	var b []byte
	for i := range rules {
		r := &rules[i]
		b = appendCSVFields(b[:0], r.Source, r.Destination, int32(r.StatusCode), r.MatchType)
		b = append(b, ',')
		b = strconv.AppendInt(b, int64(r.Priority), 10)
		b = append(b, ',')
		b = strconv.AppendInt(b, r.ID, 10)
		b = append(b, '\r', '\n')
		if _, err := bw.Write(b); err != nil {
			return err
		}
	}
	return bw.Flush()
}
