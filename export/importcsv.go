package export

import (
	"bufio"
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"redirects"
)

// The limits of what one line of an import file may make ReadRules hold.
const (
	// MaxLineBytes is the most bytes one record of an import file may
	// hold: a line, or the lines a quoted field spans. encoding/csv holds
	// a whole record in memory, so a longer one is refused as it is read,
	// never held whole. A rule's source and destination are at most 2,048
	// bytes each (redirects.MaxSourceLen), so no good line comes near it.
	MaxLineBytes = 64 << 10
	// excerptBytes is the most bytes of a value, header or line that an
	// error message quotes.
	excerptBytes = 80
)

// csvColumns are the columns of an import file: the first four are
// required, priority, id, the options and host optional.
var csvColumns = []string{"source", "destination", "statusCode", "matchType", "priority", "id", "preservePath", "preserveQuery", "host", "queryAfterFragment", "mergeQuery", "exceptHosts"}

// The indexes of csvColumns.
const (
	colSource = iota
	colDest
	colStatus
	colMatch
	colPriority
	colID
	colPreservePath
	colPreserveQuery
	colHost
	colQueryAfterFragment
	colMergeQuery
	colExceptHosts
	numColumns
)

// columnNames maps a header name, folded by foldName, to its column. Beside
// the names themselves, "status" and "match" are accepted, as spreadsheets
// and other tools name them.
var columnNames = map[string]int{
	"source": colSource, "destination": colDest, "statuscode": colStatus, "status": colStatus,
	"matchtype": colMatch, "match": colMatch, "priority": colPriority, "id": colID,
	"preservepath": colPreservePath, "preservequery": colPreserveQuery, "host": colHost,
	"queryafterfragment": colQueryAfterFragment, "mergequery": colMergeQuery, "excepthosts": colExceptHosts,
}

// matchNames maps a match type, folded by foldName, to the match type:
// exact, starts_with, pattern and regex in any case, with a space or none
// ("Starts With", "startsWith"), and prefix for starts_with.
var matchNames = map[string]redirects.MatchType{
	"exact": redirects.Exact, "startswith": redirects.StartsWith, "prefix": redirects.StartsWith,
	"pattern": redirects.Pattern, "regex": redirects.Regex,
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
	// Settings are the project's matching settings: two rules of one match
	// type whose sources have the same key under them (Settings.Key: "/a"
	// and "/A" when case is ignored) are reported as a clash of their two
	// lines. The zero value reports identical sources only.
	Settings redirects.Settings
	// MaxErrors, when positive, is how many bad lines ReadFile keeps;
	// File.BadCount counts them all. An API answer lists only the first
	// few, so it need not hold a million.
	MaxErrors int
	// Each, when set, takes each good rule with its line as it is read,
	// and ReadFile returns no rule (File.Rules and File.Lines stay
	// empty): for a caller that holds them its own way, and that drops
	// them when File.Bad lists a line. ReadFile still holds each rule
	// (with the record it was read from) until it returns, to find the
	// lines that repeat one.
	Each func(line int, r redirects.Rule)
}

// File is what ReadFile reads from an import file: the rules and the line
// number of each, or the bad lines (the first ReadOptions.MaxErrors when
// that is set) and how many there are in all.
type File struct {
	Rules    []redirects.Rule
	Lines    []int
	Bad      []LineError
	BadCount int
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
// priority, id, preservePath, preserveQuery, host, queryAfterFragment and
// mergeQuery and exceptHosts (the hosts joined by spaces), in any order. It
// accepts
// the files that spreadsheets and other tools write:
//
//   - a UTF-8 byte order mark, CRLF or LF line ends;
//   - ',', ';' or a tab between fields, whichever the header line holds
//     most of (',' on a tie);
//   - header names in any case, with spaces, underscores or hyphens
//     ("Status Code", "status_code", "STATUSCODE"), and "status" and
//     "match" for statusCode and matchType;
//   - match types (exact, starts_with, pattern, regex) in any case, with
//     or without a space or underscore ("Exact", "EXACT", "Starts With",
//     "startsWith"), and "prefix" for starts_with;
//   - spaces around every value, which are dropped, and lines whose
//     fields are all empty, which are skipped;
//   - an empty priority, which is redirects.DefaultPriority;
//   - preservePath, preserveQuery, queryAfterFragment and mergeQuery as
//     true or false in any case
//     (spreadsheets write TRUE and FALSE), an empty cell or a file
//     without the column being false;
//   - an empty destination, which a 410 (Gone) rule has and needs;
//   - a source of an exact or starts_with rule that is an http or https
//     URL on one of opts.Hosts, read as its path;
//   - an empty host, or a file without the column: a rule of every host.
//
// The id column (which rules.csv of the management API writes) is read
// and ignored: an import matches rules by match type and source.
//
// It returns the rules and the line number of each, or every bad line
// with its line number (the header's problems as line 1) and no rules. A
// broken quote ends the report there, since the lines after it can no
// longer be told apart. err is only a failure to read in.
func ReadRules(in io.Reader, opts ReadOptions) (rules []redirects.Rule, lines []int, bad []LineError, err error) {
	f, err := ReadFile(context.Background(), in, opts)
	if err != nil {
		return nil, nil, nil, err
	}
	return f.Rules, f.Lines, f.Bad, nil
}

// ReadFile reads an import file as ReadRules does, and stops with ctx's
// error once ctx is done (the client of a request gone). A record longer
// than MaxLineBytes is a bad line that ends the report, as a broken quote
// does, and is never held whole; every value, header or line an error
// quotes is cut to a short excerpt.
func ReadFile(ctx context.Context, in io.Reader, opts ReadOptions) (*File, error) {
	f := &File{}
	br := bufio.NewReaderSize(in, 1<<20)
	if bom, _ := br.Peek(3); string(bom) == "\uFEFF" {
		br.Discard(3)
	}
	comma, err := sniffComma(br)
	if err != nil {
		return nil, redirects.Errorf(redirects.EINVALID, "reading: %v", err)
	}
	r := csv.NewReader(bufio.NewReaderSize(LimitRecords(ctx, br, MaxLineBytes), 64<<10))
	r.Comma = comma
	r.FieldsPerRecord = -1
	r.ReuseRecord = true
	r.LazyQuotes = false
	var line int
	addBad := func(e LineError) {
		f.BadCount++
		if opts.MaxErrors <= 0 || len(f.Bad) < opts.MaxErrors {
			f.Bad = append(f.Bad, e)
		}
	}
	fail := func(format string, args ...any) {
		addBad(LineError{line, fmt.Sprintf(format, args...)})
	}
	// readErr turns an error of r.Read into the bad line that ends the
	// report, or a failure to read in.
	readErr := func(err error) error {
		var pe *csv.ParseError
		var le *RecordTooLongError
		switch {
		case errors.As(err, &pe):
			addBad(LineError{pe.StartLine, pe.Err.Error()})
			return nil
		case errors.As(err, &le):
			addBad(LineError{le.Line, le.Error()})
			return nil
		case ctx.Err() != nil:
			return ctx.Err()
		}
		return redirects.Errorf(redirects.EINVALID, "reading: %v", err)
	}
	header, err := r.Read()
	if err == io.EOF {
		f.Bad, f.BadCount = []LineError{{1, "the file is empty; it needs the header " + strings.Join(csvColumns[:4], ",")}}, 1
		return f, nil
	} else if err != nil {
		if err := readErr(err); err != nil {
			return nil, err
		}
		return f, nil
	}
	index, msg := readHeader(header)
	if msg != "" {
		f.Bad, f.BadCount = []LineError{{1, msg}}, 1
		return f, nil
	}
	cols := len(header)
	hosts := make(map[string]bool, len(opts.Hosts))
	for _, h := range opts.Hosts {
		hosts[strings.ToLower(h)] = true
	}
	// rules are held compact while the file is read: a file refused (a
	// bad line, or more rules than MaxRows) never holds the rules whole,
	// and a good one only at the end. The rules of opts.Each are held
	// for their keys (a held rule's strings share the record's one
	// string, so the destination costs nothing more).
	var rules heldRules
	seen := newSeenRules(func(i int32) redirects.RuleKey {
		h := rules.at(i)
		return opts.Settings.RuleKey(&redirects.Rule{MatchType: h.match, Host: h.host, Source: h.source})
	})
	rows := 0
	for {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			// A broken quote or a record past MaxLineBytes leaves the rest
			// of the file misaligned, so the report stops here.
			if err := readErr(err); err != nil {
				return nil, err
			}
			break
		}
		line, _ = r.FieldPos(0)
		if line > math.MaxInt32 {
			fail("the file has more than %s lines, the most one import reads; split it", thousands(math.MaxInt32))
			break
		}
		blank := true
		for i := range rec {
			rec[i] = strings.TrimSpace(rec[i])
			blank = blank && rec[i] == ""
		}
		if blank {
			continue // a blank line, or one of empty fields
		}
		if rows++; opts.MaxRows > 0 && rows > opts.MaxRows {
			fail("the file has more than %s rules, the most one import takes; split it", thousands(opts.MaxRows))
			break
		}
		if rows%4096 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
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
		rule := redirects.Rule{Source: field(colSource), Destination: field(colDest), Priority: redirects.DefaultPriority,
			Host: field(colHost), ExceptHosts: hostList(field(colExceptHosts))}
		status := field(colStatus)
		code, err := strconv.Atoi(status)
		if err != nil {
			fail("statusCode %s is not one of %s", excerpt(status), statusList)
			continue
		}
		rule.StatusCode = code
		match := field(colMatch)
		mt, ok := matchNames[foldName(match)]
		if !ok {
			fail("matchType %s is not one of exact, starts_with, pattern, regex", excerpt(match))
			continue
		}
		rule.MatchType = mt
		if p := field(colPriority); p != "" {
			n, err := strconv.Atoi(p)
			if err != nil {
				fail("priority %s is not a whole number", excerpt(p))
				continue
			}
			rule.Priority = n
		}
		if rule.PreservePath, ok = parseBool(field(colPreservePath)); !ok {
			fail("preservePath %s is not true or false (an empty cell is false)", excerpt(field(colPreservePath)))
			continue
		}
		if rule.PreserveQuery, ok = parseBool(field(colPreserveQuery)); !ok {
			fail("preserveQuery %s is not true or false (an empty cell is false)", excerpt(field(colPreserveQuery)))
			continue
		}
		if rule.QueryAfterFragment, ok = parseBool(field(colQueryAfterFragment)); !ok {
			fail("queryAfterFragment %s is not true or false (an empty cell is false)", excerpt(field(colQueryAfterFragment)))
			continue
		}
		if rule.MergeQuery, ok = parseBool(field(colMergeQuery)); !ok {
			fail("mergeQuery %s is not true or false (an empty cell is false)", excerpt(field(colMergeQuery)))
			continue
		}
		if mt.Literal() {
			// A pattern or a regex is not a URL: "https?://..." is an
			// expression, not a path on a host.
			if src, msg := sourcePath(rule.Source, hosts); msg != "" {
				fail("%s", msg)
				continue
			} else {
				rule.Source = src
			}
		}
		if err := rule.Validate(); err != nil {
			fail("%s", redirects.ErrorMessage(err))
			continue
		}
		k := opts.Settings.RuleKey(&rule)
		if i, dup := seen.get(k); dup {
			first := rules.at(i)
			if other := first.source; other != rule.Source {
				fail("source %q clashes with the %s rule for source %q%s on line %d: the project's settings (%s) compare them as one",
					rule.Source, mt, other, onHost(rule.Host), first.line, opts.Settings)
			} else {
				fail("a %s rule for source %q%s already appears on line %d", mt, rule.Source, onHost(rule.Host), first.line)
			}
			continue
		}
		seen.add(k)
		if opts.Each != nil {
			opts.Each(line, rule)
		}
		rules.add(hold(&rule, line))
	}
	if f.BadCount == 0 && opts.Each == nil {
		seen = nil
		f.Rules, f.Lines = make([]redirects.Rule, rules.n), make([]int, rules.n)
		i := 0
		for c := range rules.chunks {
			for j := range rules.chunks[c] {
				f.Rules[i], f.Lines[i] = rules.chunks[c][j].rule(), int(rules.chunks[c][j].line)
				i++
			}
			rules.chunks[c] = nil // its strings are f.Rules's now
		}
	}
	return f, nil
}

// LimitRecords returns a reader of r to put in front of encoding/csv: it
// passes r through, counting its lines and the bytes of the record being
// read (a record spans lines inside a quoted field, a quote opening and
// closing one as in RFC 4180), and fails with a *RecordTooLongError once a
// record passes max bytes (its line break counted), so that csv never
// holds more than max bytes of one: a quote left open no longer makes csv
// gather the rest of the file into one field. The records before the long
// one are read first. It also fails with ctx's error once ctx is done.
func LimitRecords(ctx context.Context, r io.Reader, max int) io.Reader {
	return &recordLimiter{ctx: ctx, r: r, max: max, line: 1, recLine: 1}
}

// recordLimiter is the reader of LimitRecords.
type recordLimiter struct {
	ctx context.Context
	r   io.Reader
	max int
	// line is the 1-based line of the next byte; recLine the line where
	// the record being read starts.
	line, recLine int
	// recBytes and lineBytes are the bytes read of the record and of the
	// line.
	recBytes, lineBytes int
	quoted              bool
	err                 error
}

func (l *recordLimiter) Read(p []byte) (int, error) {
	if l.err != nil {
		return 0, l.err
	}
	if err := l.ctx.Err(); err != nil {
		l.err = err
		return 0, err
	}
	n, err := l.r.Read(p)
	for i := 0; i < n; i++ {
		l.recBytes++
		l.lineBytes++
		if l.recBytes > l.max {
			l.err = l.tooLong(p[i:n])
			if i == 0 {
				return 0, l.err
			}
			return i, nil // the records before it first
		}
		switch p[i] {
		case '"':
			l.quoted = !l.quoted
		case '\n':
			l.line++
			l.lineBytes = 0
			if !l.quoted {
				l.recBytes, l.recLine = 0, l.line
			}
		}
	}
	return n, err
}

// tooLong returns the error of the record that passed the limit at the
// first byte of rest. A line too long is read on to its end, without
// being held, so that the error gives its length; a quoted field that
// runs over many lines is reported where it passed the limit.
func (l *recordLimiter) tooLong(rest []byte) error {
	if l.recLine != l.line {
		return &RecordTooLongError{Line: l.recLine, At: l.line, Max: l.max}
	}
	length := l.lineBytes - 1
	var buf []byte
	cr := false // the byte before rest is '\r'
	for {
		if i := bytes.IndexByte(rest, '\n'); i >= 0 {
			length += i
			if i > 0 && rest[i-1] == '\r' || i == 0 && cr {
				length-- // a CRLF line end is not the line's
			}
			break
		}
		length += len(rest)
		cr = len(rest) > 0 && rest[len(rest)-1] == '\r'
		if err := l.ctx.Err(); err != nil {
			return err
		}
		if buf == nil {
			buf = make([]byte, 64<<10)
		}
		n, err := l.r.Read(buf)
		rest = buf[:n]
		if err != nil && n == 0 {
			break
		}
	}
	return &RecordTooLongError{Line: l.line, Length: length, Max: l.max}
}

// RecordTooLongError is the error of LimitRecords: a record of a CSV file
// longer than Max bytes. Its message names no line, which is Line.
type RecordTooLongError struct {
	// Line is the 1-based line where the record starts.
	Line int
	// At, for a quoted field that runs on over lines, is the line where
	// the record passed Max; 0 for one line too long, which is Length
	// bytes long (without its line break).
	At, Length int
	Max        int
}

func (e *RecordTooLongError) Error() string {
	if e.At > 0 {
		return fmt.Sprintf("the quoted field that starts on this line runs on past %s bytes, the most a line may hold (at line %d): is a quote left open?",
			thousands(e.Max), e.At)
	}
	return fmt.Sprintf("the line is %s bytes long, more than the %s a line may hold", thousands(e.Length), thousands(e.Max))
}

// excerpt quotes s as strconv.Quote does, invalid UTF-8 as U+FFFD, cut to
// its first excerptBytes bytes (on a character's boundary) with an
// ellipsis and its length when it is longer: an error message never
// echoes a value whole.
func excerpt(s string) string {
	if len(s) <= excerptBytes {
		return strconv.Quote(strings.ToValidUTF8(s, "\uFFFD"))
	}
	cut := excerptBytes
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return strconv.Quote(strings.ToValidUTF8(s[:cut], "\uFFFD")+"…") + fmt.Sprintf(" (%d bytes)", len(s))
}

// shortName is a name as it is when it is short and valid UTF-8, its
// excerpt otherwise.
func shortName(s string) string {
	if len(s) <= excerptBytes && utf8.ValidString(s) {
		return s
	}
	return excerpt(s)
}

// thousands writes n with a comma between each group of three digits.
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// onHost names a rule's host in a message: " on host H", or nothing for a
// rule of every host.
func onHost(host string) string {
	if host == "" {
		return ""
	}
	return " on host " + host
}

// statusList names the statuses a rule may have, for error messages.
var statusList = func() string {
	s := make([]string, len(redirects.StatusCodes))
	for i, c := range redirects.StatusCodes {
		s[i] = strconv.Itoa(c)
	}
	return strings.Join(s, ", ")
}()

// parseBool reads an option's cell: true or false in any case, an empty
// cell being false. ok is false for anything else.
func parseBool(v string) (b, ok bool) {
	switch strings.ToLower(v) {
	case "", "false":
		return false, true
	case "true":
		return true, true
	}
	return false, false
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
			problem = fmt.Sprintf("column %s is not one of %s", excerpt(strings.TrimSpace(name)), strings.Join(csvColumns, ", "))
			if len(header) > 1 {
				problem += fmt.Sprintf(": it is column %d", i+1)
			}
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
		return nil, fmt.Sprintf("header is %s; want the columns %s, then optionally %s (%s)",
			excerpt(strings.Join(header, ",")), strings.Join(csvColumns[:4], ","), optionalColumns, problem)
	}
	return index, ""
}

// optionalColumns names the optional columns, for the header's error.
var optionalColumns = strings.Join(csvColumns[colPriority:len(csvColumns)-1], ", ") + " and " + csvColumns[len(csvColumns)-1]

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
		return "", fmt.Sprintf("source %s is not a path starting with '/' nor a URL with a host", excerpt(src))
	}
	host := strings.ToLower(u.Host)
	if !hosts[host] && !hosts[strings.ToLower(u.Hostname())] {
		declared := "the project declares no hosts"
		if len(hosts) > 0 {
			declared = "it is not one of the hosts the project declares"
		}
		return "", fmt.Sprintf("source %s is a URL on host %s, and %s; declare it (redirects project update --host %s, or PATCH the project's hosts) or write the path alone",
			excerpt(src), shortName(host), declared, shortName(u.Hostname()))
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
// the csv export's columns and the priority; draftHeader adds each rule's
// ID. optionsHeader ends either when a rule of the file uses an option,
// and hostHeader, after it, when a rule of the file has a host.
const (
	importHeader  = "source,destination,statusCode,matchType,priority"
	draftHeader   = importHeader + ",id"
	optionsHeader = ",preservePath,preserveQuery"
	hostHeader    = ",host"
	// qafHeader ends the header, after the host's, when a rule of the file
	// has queryAfterFragment.
	qafHeader = ",queryAfterFragment"
	// mergeHeader follows queryAfterFragment's (or the host's, or the
	// options') when a rule of the file has mergeQuery.
	mergeHeader = ",mergeQuery"
	// exceptHeader ends the header, after every other, when a rule of the
	// file has exceptHosts: a cell holds them joined by a space, which no
	// host key holds.
	exceptHeader = ",exceptHosts"
)

// WriteCSV writes rules, in the order given, as an import file that ReadCSV
// reads back: the header source,destination,statusCode,matchType,priority
// (and preservePath,preserveQuery at the end when a rule uses either, and
// host after them when a rule has one, then queryAfterFragment when a rule
// has it, and mergeQuery last when a rule has it), then
// one record per rule, fields quoted as in the csv export. Unlike the
// export, it keeps each rule's priority and options, so a rule set
// survives the round trip whole.
func WriteCSV(w io.Writer, rules []redirects.Rule) error {
	return writeRules(w, rules, false)
}

// WriteDraftCSV writes draft rules, in the order given, as the draft file
// of the management API's rules.csv: WriteCSV's columns with each rule's ID
// after the priority, so the header is
// source,destination,statusCode,matchType,priority,id, with
// preservePath,preserveQuery at the end when a rule uses either, and host
// after them when a rule has one, then queryAfterFragment when a rule has
// it, and mergeQuery last when a rule has it. ReadRules reads it back (the id column is
// ignored), so a draft exported and imported with replace deploys to the
// same answers.
//
// The option and host columns are written only when needed so that a draft
// that uses neither gets the file it always got, byte for byte, and a
// script that reads it keeps working; the new columns come last, after
// those it knows.
func WriteDraftCSV(w io.Writer, rules []redirects.Rule) error {
	return writeRules(w, rules, true)
}

// writeRules writes WriteCSV's file, or with withID WriteDraftCSV's.
func writeRules(w io.Writer, rules []redirects.Rule, withID bool) error {
	options, hosts, qaf, merge, except := false, false, false, false, false
	for i := range rules {
		except = except || len(rules[i].ExceptHosts) > 0
		options = options || rules[i].PreservePath || rules[i].PreserveQuery
		hosts = hosts || rules[i].Host != ""
		qaf = qaf || rules[i].QueryAfterFragment
		merge = merge || rules[i].MergeQuery
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	header := importHeader
	if withID {
		header = draftHeader
	}
	bw.WriteString(header)
	if options {
		bw.WriteString(optionsHeader)
	}
	if hosts {
		bw.WriteString(hostHeader)
	}
	if qaf {
		bw.WriteString(qafHeader)
	}
	if merge {
		bw.WriteString(mergeHeader)
	}
	if except {
		bw.WriteString(exceptHeader)
	}
	bw.WriteString("\r\n")
	var b []byte
	for i := range rules {
		r := &rules[i]
		b = appendCSVFields(b[:0], r.Source, r.Destination, int32(r.StatusCode), r.MatchType)
		b = append(b, ',')
		b = strconv.AppendInt(b, int64(r.Priority), 10)
		if withID {
			b = append(b, ',')
			b = strconv.AppendInt(b, r.ID, 10)
		}
		if options {
			b = append(b, ',')
			b = strconv.AppendBool(b, r.PreservePath)
			b = append(b, ',')
			b = strconv.AppendBool(b, r.PreserveQuery)
		}
		if hosts {
			b = append(b, ',')
			b = appendCSVField(b, r.Host)
		}
		if qaf {
			b = append(b, ',')
			b = strconv.AppendBool(b, r.QueryAfterFragment)
		}
		if merge {
			b = append(b, ',')
			b = strconv.AppendBool(b, r.MergeQuery)
		}
		if except {
			b = append(b, ',')
			b = appendCSVField(b, strings.Join(r.ExceptHosts, " "))
		}
		b = append(b, '\r', '\n')
		if _, err := bw.Write(b); err != nil {
			return err
		}
	}
	return bw.Flush()
}
