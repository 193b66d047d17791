package safety

import (
	"encoding/csv"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"redirects"
	"redirects/engine/pattern"
)

// Case is one expected outcome: what the lookup of Path must answer.
type Case = redirects.TestCase

// CaseResult is the outcome of one case.
type CaseResult = redirects.CaseResult

// CasesHeader is the header line of a test file; the fourth column is
// optional, and so is CasesHostColumn after the first three.
var CasesHeader = []string{"path", "status", "destination", "final_destination"}

// CasesHostColumn is the optional column of a test file that names the
// host a case's request is for (docs/contract.md#hosts); a case without
// one is a lookup without a host.
const CasesHostColumn = "host"

// ParseCases reads a test file: CSV (RFC 4180) with the header
// path,status,destination and optionally final_destination and host (in
// either order after the first three). path may carry
// a query string. status is 301, 302, 303, 307 or 308 with the destination
// the answer must carry, 410 (gone) with an empty destination, or "none"
// (or 204, the API's answer) for a path no rule may answer, whose
// destination is then empty. Every bad line is counted, and the first
// maxCaseProblems are reported with their line numbers, in one EINVALID
// error.
func ParseCases(in io.Reader) ([]Case, error) {
	r := csv.NewReader(in)
	r.FieldsPerRecord = -1
	r.ReuseRecord = true // parseCase keeps the fields, not the record
	header, err := r.Read()
	if errors.Is(err, io.EOF) {
		return nil, redirects.Errorf(redirects.EINVALID, "the test file is empty; its first line must be the header %s", strings.Join(CasesHeader[:3], ","))
	}
	if err != nil {
		return nil, redirects.Errorf(redirects.EINVALID, "the test file is not valid CSV: %v", err)
	}
	for i := range header {
		header[i] = strings.TrimSpace(strings.TrimPrefix(header[i], "\ufeff"))
	}
	// The message names the column, not what it holds: the file may not be
	// a test file at all, and its first line is not for an error to print.
	want := fmt.Sprintf("want %s[,%s][,%s] (the last two in either order)", strings.Join(CasesHeader[:3], ","), CasesHeader[3], CasesHostColumn)
	if len(header) != 3 && len(header) != 4 && len(header) != 5 {
		return nil, redirects.Errorf(redirects.EINVALID, "line 1: the header has %d columns; %s", len(header), want)
	}
	cols := caseColumns{final: -1, host: -1}
	for i := range header {
		switch {
		case i < 3 && strings.EqualFold(header[i], CasesHeader[i]):
		case i >= 3 && cols.final < 0 && strings.EqualFold(header[i], CasesHeader[3]):
			cols.final = i
		case i >= 3 && cols.host < 0 && strings.EqualFold(header[i], CasesHostColumn):
			cols.host = i
		case i < 3:
			return nil, redirects.Errorf(redirects.EINVALID, "line 1: column %d of the header is not %s; %s", i+1, CasesHeader[i], want)
		default:
			return nil, redirects.Errorf(redirects.EINVALID, "line 1: column %d of the header is neither %s nor %s (each at most once); %s",
				i+1, CasesHeader[3], CasesHostColumn, want)
		}
	}
	var cases []Case
	var problems []string
	bad := 0
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		line, _ := r.FieldPos(0)
		if err != nil {
			// A broken quote leaves the rest of the file unreadable.
			if bad++; bad <= maxCaseProblems {
				problems = append(problems, err.Error())
			}
			break
		}
		if len(rec) == 1 && strings.TrimSpace(rec[0]) == "" {
			continue
		}
		c, msg := parseCase(rec, len(header), cols)
		if msg != "" {
			if bad++; bad <= maxCaseProblems {
				problems = append(problems, fmt.Sprintf("line %d: %s", line, msg))
			}
			continue
		}
		if bad == 0 {
			// A file with a bad line is refused: its cases are not kept.
			c.Line = line
			cases = append(cases, c)
		}
	}
	if bad > 0 {
		noun := "lines"
		if bad == 1 {
			noun = "line"
		}
		if bad > len(problems) {
			problems = append(problems, fmt.Sprintf("... and %d more", bad-len(problems)))
		}
		return nil, redirects.Errorf(redirects.EINVALID, "the test file has %d bad %s:\n%s", bad, noun, strings.Join(problems, "\n"))
	}
	return cases, nil
}

// maxCaseProblems bounds the bad lines ParseCases lists; past it, it
// counts them.
const maxCaseProblems = 100

// CountTests checks a test file as a store keeps it and returns its number
// of cases, or -1 for "", no file. Errors: EINVALID (every bad line, or a
// file longer than redirects.MaxTestsLen).
func CountTests(csv string) (int, error) {
	if csv == "" {
		return -1, nil
	}
	if len(csv) > redirects.MaxTestsLen {
		return 0, redirects.Errorf(redirects.EINVALID, "the test file is %d bytes long, more than the %d allowed", len(csv), redirects.MaxTestsLen)
	}
	cases, err := ParseCases(strings.NewReader(csv))
	if err != nil {
		return 0, err
	}
	return len(cases), nil
}

// caseColumns says where a test file's optional columns are, -1 for
// absent.
type caseColumns struct{ final, host int }

func parseCase(rec []string, columns int, cols caseColumns) (Case, string) {
	if len(rec) != columns {
		return Case{}, fmt.Sprintf("%d fields, want %d as in the header", len(rec), columns)
	}
	c := Case{Path: rec[0], Destination: rec[2]}
	if !strings.HasPrefix(c.Path, "/") || len(c.Path) > redirects.MaxSourceLen {
		return Case{}, fmt.Sprintf("path %q must start with / and be at most %d bytes", c.Path, redirects.MaxSourceLen)
	}
	switch s := strings.TrimSpace(rec[1]); s {
	case "301", "302", "303", "307", "308":
		c.StatusCode, _ = strconv.Atoi(s)
		if c.Destination == "" {
			return Case{}, fmt.Sprintf("status %s needs a destination", s)
		}
	case "410":
		c.StatusCode = redirects.StatusGone
		if c.Destination != "" {
			return Case{}, fmt.Sprintf("status 410 (gone) takes no destination, got %q", c.Destination)
		}
	case "none", "204":
		if c.Destination != "" {
			return Case{}, fmt.Sprintf("status %s (no redirect) takes no destination, got %q", s, c.Destination)
		}
	default:
		return Case{}, fmt.Sprintf("status %q is not one of 301, 302, 303, 307, 308, 410, none", s)
	}
	if cols.final >= 0 {
		c.FinalDestination = rec[cols.final]
		if c.FinalDestination != "" && (c.StatusCode == 0 || c.StatusCode == redirects.StatusGone) {
			return Case{}, "a case expecting no redirect takes no final_destination"
		}
	}
	if cols.host >= 0 && rec[cols.host] != "" {
		c.Host = rec[cols.host]
		if !ValidLookupHost(c.Host) {
			return Case{}, fmt.Sprintf("host %q is not a host name", c.Host)
		}
	}
	return c, ""
}

// RunCases runs cases against rules under opts.Settings. opts.Hosts says
// which absolute destinations are followed for final destinations.
func RunCases(rules []redirects.Rule, cases []Case, opts LintOptions) []CaseResult {
	x := newIndex(rules, opts.Settings)
	hosts := newOwnHosts(opts.Hosts).withRules(x)
	out := make([]CaseResult, len(cases))
	for k, c := range cases {
		// A case's path is as a client asks for it: matched as the edge
		// matches it, decoded once, and answered with the computed
		// destination.
		res := CaseResult{Case: c}
		res.Got = x.answer(c.Host, c.Path)
		if isRedirect(res.Got.StatusCode) {
			res.GotFinal, res.Loop = x.final(hosts, c.Host, res.Got.Destination)
		}
		if !res.Got.Same(Answer{StatusCode: c.StatusCode, Destination: c.Destination}) {
			want := Answer{StatusCode: c.StatusCode, Destination: c.Destination}
			res.Problems = append(res.Problems, fmt.Sprintf("answered %s, want %s", res.Got, want))
		}
		if c.FinalDestination != "" {
			switch {
			case res.Loop:
				res.Problems = append(res.Problems, fmt.Sprintf("following the answer runs into a redirect loop, want it to end at %s", c.FinalDestination))
			case res.GotFinal != c.FinalDestination:
				res.Problems = append(res.Problems, fmt.Sprintf("following the answer ends at %s, want %s", res.GotFinal, c.FinalDestination))
			}
		}
		res.Pass = len(res.Problems) == 0
		out[k] = res
	}
	return out
}

// MaxFollow bounds the redirects a case's final destination is followed
// through: past it, as past a request made twice, following counts as a
// loop (browsers give up after about 20).
const MaxFollow = 64

// final follows dest through the rules, request by request with computed
// destinations, and returns where it ends (a destination that leaves the
// project, that no rule answers, or that a 410 answers), or loop when a
// request comes again or MaxFollow redirects pass.
func (x *index) final(hosts ownHosts, host, dest string) (end string, loop bool) {
	seen := map[string]bool{}
	for n := 0; ; n++ {
		var wire string
		var ok bool
		host, wire, ok = hosts.followReq(host, dest)
		if !ok {
			return dest, false
		}
		a := x.answer(host, wire)
		if !isRedirect(a.StatusCode) {
			return dest, false
		}
		p, _ := requested(wire)
		req := x.set.Key(p) + "?" + redirects.RequestQuery(wire)
		if x.ext != nil {
			req = host + " " + req
		}
		if seen[req] || n >= MaxFollow {
			return "", true
		}
		seen[req] = true
		dest = a.Destination
	}
}

// Failed returns the number of results that did not pass.
func Failed(results []CaseResult) int {
	n := 0
	for _, r := range results {
		if !r.Pass {
			n++
		}
	}
	return n
}

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Errors   int         `xml:"errors,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	ClassName string        `xml:"classname,attr"`
	Failure   *junitFailure `xml:"failure,omitempty"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

// WriteJUnit writes results as JUnit XML, the report format CI systems
// read: one test suite named suite, one test case per case, named by its
// line and path, with a failure element saying what differs.
func WriteJUnit(w io.Writer, suite string, results []CaseResult) error {
	s := junitSuite{Name: suite, Tests: len(results), Failures: Failed(results), Cases: make([]junitCase, 0, len(results))}
	for _, r := range results {
		name := fmt.Sprintf("line %d: %s", r.Case.Line, r.Case.Path)
		if r.Case.Host != "" {
			name += " on " + r.Case.Host
		}
		c := junitCase{Name: name, ClassName: suite}
		if !r.Pass {
			msg := strings.Join(r.Problems, "; ")
			c.Failure = &junitFailure{Message: msg, Type: "mismatch", Text: r.Case.Path + ": " + msg}
		}
		s.Cases = append(s.Cases, c)
	}
	doc := junitSuites{Tests: s.Tests, Failures: s.Failures, Suites: []junitSuite{s}}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// ValidLookupHost reports whether h is a host a lookup may be for
// (docs/contract.md#hosts): a host name, in either IDN form, with or
// without a port and a trailing dot; not a wildcard.
func ValidLookupHost(h string) bool {
	k, ok := pattern.HostKey(h)
	return ok && !strings.Contains(k, "*")
}
