package plan

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"redirects"
	"redirects/api"
	"redirects/export"
	"redirects/safety"
)

// MaxFileSize caps a project file (the rules it names in a CSV beside it
// are read as an import is, without this cap).
const MaxFileSize = 64 << 20

// MaxRulesFileSize and MaxRulesFileRows cap the rules CSV a project file
// names (rulesFile): as much as one import through the management API
// takes (manage.DefaultMaxImportBytes, manage.MaxImportRows). Inline rules
// are capped at MaxRulesFileRows too.
const (
	MaxRulesFileSize = 200 << 20
	MaxRulesFileRows = 1_000_000
)

// File is a project file as written: JSON, every field but project
// optional. A field left out is not managed: apply leaves it as it is.
type File struct {
	Project     string          `json:"project"`
	Settings    *SettingsFile   `json:"settings,omitempty"`
	Hosts       *[]string       `json:"hosts,omitempty"`
	ShrinkLimit *int            `json:"shrinkLimit,omitempty"`
	Rules       *[]api.RuleFile `json:"rules,omitempty"`
	RulesFile   string          `json:"rulesFile,omitempty"`
	Tests       *[]safety.Case  `json:"tests,omitempty"`
	TestsFile   string          `json:"testsFile,omitempty"`
	Deploy      *bool           `json:"deploy,omitempty"`
}

// SettingsFile is the settings object of a project file.
type SettingsFile struct {
	CaseSensitive *bool  `json:"caseSensitive,omitempty"`
	TrailingSlash string `json:"trailingSlash,omitempty"`
}

// Desired is what a project file asks for, read and checked.
type Desired struct {
	// Path is the file's path, for messages.
	Path      string
	ProjectID string
	// Settings, Hosts, ShrinkLimit and Tests are nil when the file does not
	// manage them.
	Settings    *redirects.Settings
	Hosts       []string
	HostsSet    bool
	ShrinkLimit *int
	Rules       []redirects.Rule
	// RulesFile names the CSV the rules are read from, "" for inline
	// rules; RuleLines holds each rule's line in it. A message names a
	// rule by its place: rules[3], or the CSV's line.
	RulesFile string
	RuleLines []int
	// Tests is the test file to store (the CSV that safety.ParseCases
	// reads), and Cases its cases; TestsSet says the file manages them.
	Tests    string
	Cases    []safety.Case
	TestsSet bool
	// Deploy says apply deploys the draft once it matches (true unless the
	// file says "deploy": false).
	Deploy bool
}

// maxProblems bounds the problems one error lists; past it the error says
// how many more there are.
const maxProblems = 100

// MaxStringLen bounds a string of a project file, in bytes as written: a
// source or destination is at most 2 KiB, a key or an ID far less.
const MaxStringLen = 64 << 10

// problems collects the problems of a project file.
type problems struct {
	list []string
	more int
}

// add adds a problem, clipped (clip), or counts it past maxProblems.
func (p *problems) add(format string, args ...any) {
	if len(p.list) == maxProblems {
		p.more++
		return
	}
	p.list = append(p.list, clip(fmt.Sprintf(format, args...)))
}

// err returns the problems as one EINVALID error, or nil for none.
func (p *problems) err() error {
	if len(p.list) == 0 {
		return nil
	}
	list := p.list
	if p.more > 0 {
		list = append(list, fmt.Sprintf("... and %d more problems", p.more))
	}
	return redirects.Errorf(redirects.EINVALID, "%s", strings.Join(list, "\n"))
}

// fileJSON is File as Read decodes it: the rules are not decoded into a
// slice of api.RuleFile but one by one from their place in the file
// (decodeRules), each kept only as a redirects.Rule, and not at all once
// the file has a problem; the tests likewise (decodeTests), each kept only
// as a line of the test file they make.
type fileJSON struct {
	File
	Rules *present `json:"rules,omitempty"`
	Tests *present `json:"tests,omitempty"`
}

// present records that a value is there, and skips it.
type present struct{}

func (*present) UnmarshalJSON([]byte) error { return nil }

// decodeRules decodes the rules array of data, at the offset checkKeys
// found, and returns its rules checked, or reports their problems to p.
func decodeRules(data []byte, at int, settings redirects.Settings, p *problems) []redirects.Rule {
	dec := json.NewDecoder(bytes.NewReader(data[at:]))
	tok, err := dec.Token()
	if tok != json.Delim('[') || err != nil {
		line, col := newPositions(data).at(at)
		p.add("line %d, column %d: rules: a JSON %s, want an array", line, col, jsonKind(tok))
		return nil
	}
	rules := []redirects.Rule{}
	seen := map[redirects.RuleKey]int{}
	for i := 0; dec.More(); i++ {
		if i == MaxRulesFileRows {
			p.add("rules: more than %d rules, the most one import takes", MaxRulesFileRows)
			return nil
		}
		var rf api.RuleFile
		start := keyStart(data, int64(at)+dec.InputOffset()) // a Decode error's offset counts from here
		if err := dec.Decode(&rf); err != nil {
			p.add("%s", jsonProblem(data, int64(start), "rules["+strconv.Itoa(i)+"]", err))
			var te *json.UnmarshalTypeError
			if errors.As(err, &te) {
				continue // the decoder is past the value
			}
			return nil
		}
		r, err := rf.Rule()
		if err == nil {
			err = r.Validate()
		}
		if err != nil {
			p.add("rules[%d] (source %s): %s", i, quoteShort(rf.Source), redirects.ErrorMessage(err))
			continue
		}
		k := settings.RuleKey(&r)
		if j, dup := seen[k]; dup {
			on := ""
			if r.Host != "" {
				on = " on host " + r.Host
			}
			p.add("rules[%d]: a %s rule for source %q%s is already rules[%d] (under the settings %s)", i, r.MatchType, r.Source, on, j, settings)
			continue
		}
		seen[k] = i
		if len(p.list) == 0 {
			// A file with a problem is refused: its rules are not kept.
			rules = append(rules, r)
		}
	}
	return rules
}

// decodeTests decodes the tests array of data, at the offset checkKeys
// found, into the test file they make (the CSV safety.ParseCases reads,
// with the store's header), or reports their
// problems to p. Tests whose file would be longer than a project's test
// file may be (redirects.MaxTestsLen) are refused at the first test past
// it, as a testsFile that long is.
func decodeTests(data []byte, at int, p *problems) string {
	dec := json.NewDecoder(bytes.NewReader(data[at:]))
	tok, err := dec.Token()
	if tok != json.Delim('[') || err != nil {
		line, col := newPositions(data).at(at)
		p.add("line %d, column %d: tests: a JSON %s, want an array", line, col, jsonKind(tok))
		return ""
	}
	// The test file is written as the tests are read, so that tests past
	// the largest test file are refused as soon as they are; the rows are
	// kept (a bounded number, then) to write it again with a host column
	// when a test names a host, so that a file without one reads as
	// before.
	var b strings.Builder
	w := csv.NewWriter(&b)
	w.Write(safety.CasesHeader)
	var rows [][]string
	var starts, index []int
	hosts := false
	tooLong := func(at, i int) string {
		line, col := newPositions(data).at(at)
		p.add("line %d, column %d: tests[%d]: the tests make a test file longer than the %d MiB a project's test file may be", line, col, i, redirects.MaxTestsLen>>20)
		return ""
	}
	for i := 0; dec.More(); i++ {
		var c safety.Case
		start := keyStart(data, int64(at)+dec.InputOffset())
		if err := dec.Decode(&c); err != nil {
			p.add("%s", jsonProblem(data, int64(start), "tests["+strconv.Itoa(i)+"]", err))
			var te *json.UnmarshalTypeError
			if errors.As(err, &te) {
				continue
			}
			return ""
		}
		for _, v := range []struct{ key, s string }{{"path", c.Path}, {"destination", c.Destination}, {"finalDestination", c.FinalDestination}, {"host", c.Host}} {
			if strings.ContainsRune(v.s, 0) {
				p.add("tests[%d].%s: holds a NUL byte", i, v.key)
			}
		}
		status := "none"
		if c.StatusCode != 0 && c.StatusCode != 204 {
			status = strconv.Itoa(c.StatusCode)
		}
		row := []string{c.Path, status, c.Destination, c.FinalDestination, c.Host}
		w.Write(row[:4])
		w.Flush()
		if b.Len() > redirects.MaxTestsLen {
			return tooLong(start, i)
		}
		rows = append(rows, row)
		starts, index = append(starts, start), append(index, i)
		hosts = hosts || c.Host != ""
	}
	if !hosts {
		return b.String()
	}
	b.Reset()
	w = csv.NewWriter(&b)
	w.Write(append(slices.Clip(safety.CasesHeader), safety.CasesHostColumn))
	for k, row := range rows {
		w.Write(row)
		w.Flush()
		if b.Len() > redirects.MaxTestsLen {
			return tooLong(starts[k], index[k])
		}
	}
	return b.String()
}

// jsonKind names the JSON type of a token for messages.
func jsonKind(tok json.Token) string {
	switch tok.(type) {
	case json.Delim:
		if tok == json.Delim('{') {
			return "object"
		}
		return "array"
	case string:
		return "string"
	case bool:
		return "boolean"
	case nil:
		return "null"
	}
	return "number"
}

// Read reads and checks the project file at path. A bad file gets one
// EINVALID error that names the file and every problem found (the first
// maxProblems), each where it is: a line and column of the file, a rule's
// index, a line of a file beside it. The files it names (rulesFile,
// testsFile) are read inside its folder only (beside).
func Read(path string) (*Desired, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, redirects.Errorf(redirects.EINVALID, "cannot read %s: %v", path, errors.Unwrap(err))
	}
	defer f.Close()
	tooLarge := func() (*Desired, error) {
		return nil, redirects.Errorf(redirects.EINVALID, "%s is larger than %d MiB; put the rules in a CSV beside it (rulesFile)", path, MaxFileSize>>20)
	}
	// A regular file's size is known before it is read: the buffer is
	// that size, and a file past the cap is not read at all.
	size := int64(64 << 10)
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
		if fi.Size() > MaxFileSize {
			return tooLarge()
		}
		size = fi.Size()
	}
	data, err := readAll(io.LimitReader(f, MaxFileSize+1), size)
	if err != nil {
		return nil, redirects.Errorf(redirects.EINVALID, "cannot read %s: %v", path, err)
	}
	if len(data) > MaxFileSize {
		return tooLarge()
	}
	if msg := textProblem(data); msg != "" {
		return nil, redirects.Errorf(redirects.EINVALID, "%s: %s", path, msg)
	}
	if at := longString(data, MaxStringLen); at >= 0 {
		line, col := newPositions(data).at(at)
		return nil, redirects.Errorf(redirects.EINVALID, "%s: line %d, column %d: a string longer than %d KiB; no value of a project file is that long", path, line, col, MaxStringLen>>10)
	}
	keys, at := checkKeys(data)
	if len(keys) > 0 {
		return nil, redirects.Errorf(redirects.EINVALID, "%s: %s", path, strings.Join(keys, "\n"))
	}
	// checkKeys let through only keys spelled as File's tags, each once,
	// and one value: Unmarshal, which decodes in place, can match them.
	var file fileJSON
	if err := json.Unmarshal(data, &file); err != nil {
		return nil, redirects.Errorf(redirects.EINVALID, "%s: %s", path, clip(jsonProblem(data, 0, "", err)))
	}
	d := &Desired{Path: path, ProjectID: strings.TrimSpace(file.Project), Deploy: file.Deploy == nil || *file.Deploy}
	p := &problems{}
	bad := p.add
	if d.ProjectID == "" {
		bad("project: the project's ID is required")
	}
	if s := file.Settings; s != nil {
		set := redirects.Settings{}
		if s.CaseSensitive != nil {
			set.CaseInsensitive = !*s.CaseSensitive
		}
		if s.TrailingSlash != "" {
			ignore, err := redirects.ParseTrailingSlash(s.TrailingSlash)
			if err != nil {
				bad("settings.trailingSlash: %s", redirects.ErrorMessage(err))
			}
			set.IgnoreTrailingSlash = ignore
		}
		d.Settings = &set
	}
	if file.Hosts != nil {
		hosts, err := redirects.NormalizeHosts(*file.Hosts)
		if err != nil {
			bad("hosts: %s", redirects.ErrorMessage(err))
		}
		d.Hosts, d.HostsSet = hosts, true
		if d.Hosts == nil {
			d.Hosts = []string{}
		}
	}
	if file.ShrinkLimit != nil {
		if err := redirects.ValidateShrinkLimit(*file.ShrinkLimit); err != nil {
			bad("shrinkLimit: %s", redirects.ErrorMessage(err))
		}
		d.ShrinkLimit = file.ShrinkLimit
	}
	b := &beside{dir: filepath.Dir(path)}
	defer b.close()
	settings := redirects.Settings{}
	if d.Settings != nil {
		settings = *d.Settings
	}
	switch {
	case file.Rules != nil && file.RulesFile != "":
		bad("rules and rulesFile: give the rules inline or in a CSV beside the file, not both")
	case file.Rules == nil && file.RulesFile == "":
		bad("rules: the file gives no rules (\"rules\": [...] inline, or \"rulesFile\": \"rules.csv\"; \"rules\": [] for none)")
	case file.Rules != nil:
		d.Rules = decodeRules(data, at.rules, settings, p)
	default:
		d.Rules, d.RuleLines = b.rules(file.RulesFile, export.ReadOptions{Settings: settings, Hosts: d.Hosts}, bad)
		d.RulesFile = file.RulesFile
	}
	switch {
	case file.Tests != nil && file.TestsFile != "":
		bad("tests and testsFile: give the tests inline or in a CSV beside the file, not both")
	case file.Tests != nil:
		d.Tests, d.TestsSet = decodeTests(data, at.tests, p), true
	case file.TestsFile != "":
		d.Tests, d.TestsSet = b.tests(file.TestsFile, bad), true
	}
	if d.TestsSet && strings.TrimSpace(d.Tests) != "" {
		cases, err := safety.ParseCases(strings.NewReader(d.Tests))
		if err != nil {
			field := "tests"
			if file.TestsFile != "" {
				field = "testsFile " + quoteShort(file.TestsFile)
			}
			for _, msg := range strings.Split(redirects.ErrorMessage(err), "\n") {
				bad("%s: %s", field, msg)
			}
		}
		d.Cases = cases
	}
	if err := p.err(); err != nil {
		return nil, redirects.Errorf(redirects.EINVALID, "%s: %s", path, redirects.ErrorMessage(err))
	}
	return d, nil
}

// readAll is io.ReadAll into a buffer of size bytes (and one more, to see
// the end), grown only when r holds more: a file is held once, not in a
// buffer twice its size.
func readAll(r io.Reader, size int64) ([]byte, error) {
	b := make([]byte, 0, size+1)
	for {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if errors.Is(err, io.EOF) {
			return b, nil
		}
		if err != nil {
			return b, err
		}
	}
}

// jsonProblem says what a decoding error of data[base:] is and where: its
// line and column in data. A value of the wrong type is named by its field
// (after prefix, "rules[3]") and its JSON type, never quoted (a number may
// be megabytes long).
func jsonProblem(data []byte, base int64, prefix string, err error) string {
	var off int64 = -1
	msg := strings.TrimPrefix(err.Error(), "json: ")
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		off = se.Offset
	case errors.As(err, &te):
		off = te.Offset
		what, _, _ := strings.Cut(te.Value, " ")
		// File's fields come through fileJSON, which embeds it: Go names
		// them File.deploy.
		field := strings.TrimPrefix(te.Field, "File.")
		switch {
		case prefix != "" && field != "":
			field = prefix + "." + field
		case prefix != "":
			field = prefix
		case field == "":
			field = "the file"
		}
		msg = fmt.Sprintf("%s: a JSON %s, want %s", field, what, jsonType(te.Type))
	}
	if off < 1 || base+off > int64(len(data)) {
		return msg
	}
	line, col := newPositions(data).at(int(base+off) - 1)
	return fmt.Sprintf("line %d, column %d: %s", line, col, msg)
}

// jsonType names the JSON a Go type is decoded from.
func jsonType(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Struct, reflect.Map:
		return "an object"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a whole number that fits in " + strconv.Itoa(t.Bits()) + " bits"
	}
	return t.String()
}
