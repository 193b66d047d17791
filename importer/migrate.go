// Package migrate reads the redirect files that teams bring from other
// platforms (and the project's own draft CSV and exports) into draft rules,
// and says of every input line whether it imports as is, changed, or is
// skipped, and why (docs/contract.md#migrations).
//
// A format is a Reader that tells a Sink, line by line, the rules each line
// becomes, what about them differs from the source platform, what it skips,
// and which lines are broken. Read runs a reader and then does what every
// format shares: it checks each rule as the store would, skips the rules
// that could never answer on the source platform (an earlier line answers
// every path they match), sets priorities so that first-match formats keep
// their order, and compares the platform's matching defaults with the
// project's settings.
package importer

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"

	"redirects"
	"redirects/engine/pattern"
	"redirects/export"
)

// Class is what became of an input line.
type Class string

const (
	// AsIs: the line's rules answer every request as the source platform
	// would.
	AsIs Class = "as-is"
	// Changed: imported, but some request is answered otherwise; the notes
	// say which and how.
	Changed Class = "changed"
	// Skipped: valid in its format, but not imported; the notes say why.
	Skipped Class = "skipped"
)

// Outcome is a changed or skipped line of the input.
type Outcome struct {
	Line  int      `json:"line"`
	Class Class    `json:"class"`
	Notes []string `json:"notes"`
	// Rules is how many rules the line became (0 when skipped).
	Rules int `json:"rules"`
	// Winner, for a line skipped because an earlier line answers every path
	// it matches, is that earlier line.
	Winner int `json:"winner,omitempty"`
	// Text is the line as the file holds it, cut to MaxTextLen bytes (with
	// an ellipsis), its control characters escaped.
	Text string `json:"text,omitempty"`
}

// MaxTextLen caps Outcome.Text.
const MaxTextLen = 200

// Suggestion names project settings under which the project would match as
// the source platform does.
type Suggestion struct {
	Settings      redirects.Settings `json:"-"`
	CaseSensitive bool               `json:"caseSensitive"`
	TrailingSlash string             `json:"trailingSlash"`
	// Why says what the platform does, and which setting would match.
	Why string `json:"why"`
}

// Options are what a reader needs of the project and the user.
type Options struct {
	// Settings are the project's matching settings: shadowing is decided
	// under them, and the suggestion compares them with the platform's.
	Settings redirects.Settings
	// Hosts are the project's hosts: an absolute source URL on one of them
	// is read as its path.
	Hosts []string
	// Placeholders are the values to expand each named placeholder over
	// (--placeholder lang=en,fr,de); a placeholder without values skips its
	// line.
	Placeholders map[string][]string
	// FileName, when known, helps detection ("vercel.json", ".htaccess").
	FileName string
	// MaxRules, when not 0, is the most rules one file may make: the read
	// stops at the line that makes one more, with an EINVALID error naming
	// the limit and that line.
	MaxRules int
}

// Format is one file format the importer reads.
type Format struct {
	// Name is what --from takes: "netlify", "vercel", ...
	Name string
	// Title names the format for people: "Netlify and Cloudflare Pages _redirects".
	Title string
	// FirstMatch says the source platform answers with the first line that
	// matches: the pipeline keeps the order through priorities and skips
	// the lines an earlier one shadows. Otherwise the platform picks by
	// specificity, and a repeated source is skipped as a repeat.
	FirstMatch bool
	// Defaults are the platform's own matching settings, nil when they are
	// the project's to choose (ours).
	Defaults *redirects.Settings
	// DefaultsWhy says what the platform does, for the suggestion:
	// "Netlify ignores a trailing slash".
	DefaultsWhy string
	// Detect reports whether head (the file's first bytes) and the file
	// name look like this format, and why, for --from auto.
	Detect func(head []byte, fileName string) (bool, string)
	// Read reads in and tells sink what each line becomes. It returns only
	// a failure to read; broken lines go to Sink.Bad.
	Read func(in io.Reader, o *Options, sink *Sink) error
	// Strict formats (the project's own CSV) refuse a file with any rule
	// the store would refuse, instead of skipping that line; their reader
	// validates every rule itself (Rule.Validate), so Read does not again.
	Strict bool
	// MayBeJSON says the file may be JSON: one that starts with '{' or
	// '[' is exempt from MaxLineLen (JSON is often written on one line).
	MayBeJSON bool
	// Example is a small file in the format, using its common shapes: the
	// dashboard offers it, and the browser suite imports it.
	Example string
}

// Writer writes a draft in another platform's format, for teams that leave
// or mirror (redirects rule export --to NAME). These are not edge export
// formats: docs/contract.md's seven stay as they are.
type Writer struct {
	// Name is what --to takes: "netlify", "vercel", "cloudflare".
	Name string
	// FileName is the file the platform reads: "_redirects".
	FileName string
	// ContentType is the file's media type, for downloads.
	ContentType string
	// Write writes rules (a draft, under the project's settings s, on the
	// project's hosts, which formats whose sources are URLs need) to w and
	// returns what it could not express, one entry per rule left out or
	// answered otherwise there.
	Write func(w io.Writer, rules []redirects.Rule, s redirects.Settings, hosts []string) ([]Unexpressed, error)
	// Extended says Write writes extended rules (redirects.Rule.Extended)
	// itself, in the platform's syntax where it has one; otherwise they
	// are left out of its file and listed.
	Extended bool
}

// Unexpressed is a rule that a Writer could not write as it answers here.
type Unexpressed struct {
	RuleID int64  `json:"ruleId"`
	Source string `json:"source"`
	// Dropped says the rule is not in the file at all (otherwise it is
	// there, answering otherwise as Reason says).
	Dropped bool   `json:"dropped"`
	Reason  string `json:"reason"`
}

var writers []*Writer

// RegisterWriter adds a writer; each writer's file calls it from init.
// A writer that does not say it writes extended rules (Writer.Extended)
// translates literal rules: a pattern or regex rule, a rule with a host
// and one with query conditions is left out of its file and listed, so
// that no platform reads a pattern or a regex as a literal path.
func RegisterWriter(w *Writer) {
	for _, x := range writers {
		if x.Name == w.Name {
			panic("migrate: writer " + w.Name + " registered twice")
		}
	}
	write := w.Write
	if w.Extended {
		writers = append(writers, w)
		return
	}
	w.Write = func(out io.Writer, rules []redirects.Rule, s redirects.Settings, hosts []string) ([]Unexpressed, error) {
		literal, left := withoutExtended(rules, w.Name)
		un, err := write(out, literal, s, hosts)
		return append(left, un...), err
	}
	writers = append(writers, w)
}

// withoutExtended returns the literal rules that have no host and no
// query conditions, and the others as left out of a file for platform.
func withoutExtended(rules []redirects.Rule, platform string) ([]redirects.Rule, []Unexpressed) {
	var left []Unexpressed
	for i := range rules {
		r := &rules[i]
		if !r.Extended() {
			continue
		}
		var what string
		switch {
		case r.MatchType == redirects.Pattern || r.MatchType == redirects.Regex:
			what = "a " + r.MatchType.String() + " rule"
		case r.Host != "":
			what = "a rule with a host (" + r.Host + ")"
		default:
			what = "a rule with query conditions"
		}
		left = append(left, Unexpressed{RuleID: r.ID, Source: r.Source, Dropped: true,
			Reason: what + ": left out, the " + platform + " file is written with literal rules for every host only"})
	}
	if left == nil {
		return rules, nil
	}
	kept := make([]redirects.Rule, 0, len(rules)-len(left))
	for i := range rules {
		if !rules[i].Extended() {
			kept = append(kept, rules[i])
		}
	}
	return kept, left
}

// Writers returns the registered writers.
func Writers() []*Writer { return writers }

// LookupWriter returns the writer named name, or nil.
func LookupWriter(name string) *Writer {
	for _, w := range writers {
		if w.Name == name {
			return w
		}
	}
	return nil
}

var formats []*Format

// Register adds a format; each reader's file calls it from init.
func Register(f *Format) {
	for _, g := range formats {
		if g.Name == f.Name {
			panic("migrate: format " + f.Name + " registered twice")
		}
	}
	formats = append(formats, f)
}

// Formats returns the registered formats, in the order detection tries
// them.
func Formats() []*Format { return formats }

// Lookup returns the format named name, or nil.
func Lookup(name string) *Format {
	for _, f := range formats {
		if f.Name == name {
			return f
		}
	}
	return nil
}

// FormatNames returns the names --from takes, "auto" first.
func FormatNames() []string {
	names := []string{"auto"}
	for _, f := range formats {
		names = append(names, f.Name)
	}
	return names
}

// Result is what Read made of a file.
type Result struct {
	Format string `json:"format"`
	// Detected says, for --from auto, why this format was chosen.
	Detected string `json:"detected,omitempty"`
	// Rules are the rules to import, in file order, each from RuleLines'
	// line.
	Rules     []redirects.Rule `json:"-"`
	RuleLines []int            `json:"-"`
	// Counts of lines by class.
	AsIs    int `json:"asIs"`
	Changed int `json:"changed"`
	Skipped int `json:"skipped"`
	// AsIsLines are the as-is lines as ranges of line numbers (first,
	// last), so that a million-line file is reported in a few bytes.
	AsIsLines [][2]int `json:"asIsLines"`
	// Lines are the changed and skipped lines, by line number.
	Lines []Outcome `json:"lines"`
	// Suggest, when the platform's matching defaults differ from the
	// project's settings, names the settings that would match.
	Suggest *Suggestion `json:"suggestion,omitempty"`
	// SuggestHosts, when the file's rules are scoped to hosts the project
	// does not declare, names them and the hosts to declare.
	SuggestHosts *HostSuggestion `json:"hostSuggestion,omitempty"`
}

// HostSuggestion names the hosts the file's rules are scoped to that the
// project does not declare (wildcards aside: a project declares host
// names only).
type HostSuggestion struct {
	// Hosts are those hosts, in the order the file first uses them, at
	// most redirects.MaxProjectHosts of them.
	Hosts []string `json:"hosts"`
	// Declare is the list "project update --host" takes to declare them:
	// the project's hosts, then Hosts; empty when that would be more than
	// a project declares.
	Declare []string `json:"declare"`
	// Why says what the file uses and the command that declares them.
	Why string `json:"why"`
}

// Sink takes what a reader makes of each line. Lines are 1-based. Rules
// are taken in the order the source platform tries them, which is, but for
// Apache's mod_alias lines, the file's (a line may give several rules, as
// a placeholder's expansions are).
type Sink struct {
	// held are the rules taken, compact (finish makes redirects.Rules of
	// them, only for a file within the limit), each with its line.
	held heldRules
	// outs are the lines' outcomes and the texts kept of them, by line.
	outs outcomes
	// ruled holds the lines that became at least one rule, in order.
	ruled []int32
	// ruledText holds, for lines that became rules and had no outcome
	// when the reader gave their text, that text cut to MaxTextLen bytes
	// (in one arena, so that a million lines cost no map): finish may give
	// them an outcome later (a shadowed line), and its report lists them
	// with their text.
	ruledText ruledTexts
	bad       []export.LineError
	// maxBad stops collecting bad lines past this many.
	maxBad int
	// maxRules, when not 0, stops taking rules past this many, and stop
	// then ends the read (inputGuard asks it before every read).
	maxRules int
	stop     error
	// defaults, when set, replace the format's Defaults for this file.
	defaults    *redirects.Settings
	defaultsWhy string
	// notes are the first notes of lines, shared by text (addNote).
	notes map[string][]string
	// siteHosts are hosts the file's site answers on that its rules name
	// neither as a host nor as exceptHosts (nginx's default server block's
	// own names, its rules answering every host): the hosts suggestion
	// names them too.
	siteHosts []string
	// passes are lines of a first-match file that answer on their platform
	// without a redirect (a rewrite, a proxy, a custom 404 page): a later
	// line that matches their paths answers them here (handOffs).
	passes []passLine
}

// passLine is a line that answers its paths on its platform without a
// redirect: its host ("" for every host) and sample paths it matches.
type passLine struct {
	line int
	host string
	// src is the line's source as a pattern ("" when it cannot be one).
	src   string
	paths []string
}

// maxPasses caps the lines handOffs checks.
const maxPasses = 64

// Pass records that line answers paths (samples of its source) on host
// without redirecting, so that a later line matching them is noted.
func (s *Sink) Pass(line int, host, src string, paths ...string) {
	if len(s.passes) < maxPasses {
		s.passes = append(s.passes, passLine{line: line, host: host, src: src, paths: paths})
	}
}

// SetDefaults replaces the format's Defaults and DefaultsWhy for this
// file, for a platform whose matching depends on settings the file itself
// holds (vercel.json's trailingSlash).
func (s *Sink) SetDefaults(d redirects.Settings, why string) {
	s.defaults, s.defaultsWhy = &d, why
}

// MaxBadLines caps how many broken lines one report lists.
const MaxBadLines = 1000

func newSink() *Sink {
	return &Sink{outs: outcomes{pages: map[int]*outcomePage{}}, maxBad: MaxBadLines}
}

func (s *Sink) out(line int) *lineOutcome { return s.outs.make(line) }

// hasOut reports whether line has an outcome.
func (s *Sink) hasOut(line int) bool { return s.outs.get(line) != nil }

// outcomes are the Sink's outcomes of lines, in pages of outcomePage lines
// (a map of every line of a file whose half a million lines each have one
// cost more than the reading), their outcomes allocated in slabs.
type outcomes struct {
	pages map[int]*outcomePage
	slab  []lineOutcome
	n     int
	// texts holds the texts kept of lines, end to end.
	texts textArena
}

// lineOutcome is what the Sink holds of a line's outcome while the file is
// read: an Outcome but for what its page tells (the line) and what
// classify works out (the class, the rules kept), 40 bytes to an
// Outcome's 80, so that a report of half a million lines is not held as
// two slices of Outcomes while classify copies it.
type lineOutcome struct {
	notes []string
	// textChunk, textAt and textLen place the text kept of the line (see
	// outcomePage.kept) in outcomes.texts.
	textChunk, textAt uint32
	textLen           uint16
	// skipped says Skip was called for the line.
	skipped bool
	// winner is Outcome.Winner.
	winner int32
}

// textArena holds the texts of listed lines end to end, in chunks of
// textChunk bytes: a line's text costs its bytes (not a string's header
// and its allocation's rounding, some 30 bytes more of a short line), and
// the report's Texts are cut from the chunks without a copy.
type textArena struct {
	done []string
	cur  strings.Builder
}

// textChunk is the most one chunk of a textArena holds.
const textChunk = 1 << 20

// add appends t (at most 65,535 bytes) and returns where it is.
func (a *textArena) add(t string) (chunk, at uint32) {
	if a.cur.Len()+len(t) > textChunk {
		a.done = append(a.done, a.cur.String())
		a.cur = strings.Builder{}
		a.cur.Grow(textChunk)
	}
	at = uint32(a.cur.Len())
	a.cur.WriteString(t)
	return uint32(len(a.done)), at
}

// get returns the text of n bytes added at chunk and at.
func (a *textArena) get(chunk, at uint32, n uint16) string {
	if int(chunk) < len(a.done) {
		return a.done[chunk][at : at+uint32(n)]
	}
	// The builder's String does not copy; the bytes it covers are never
	// written again.
	return a.cur.String()[at : at+uint32(n)]
}

// outcomePageLines is how many lines one page of outcomes covers.
const outcomePageLines = 1024

type outcomePage struct {
	outs [outcomePageLines]*lineOutcome
	// kept marks the lines whose text is kept (an empty text is kept).
	kept [outcomePageLines / 64]uint64
	// had marks the lines whose outcome classify has taken (and let go
	// of).
	had [outcomePageLines / 64]uint64
}

// had reports whether classify took an outcome of line.
func (o *outcomes) had(line int) bool {
	if p := o.pages[line/outcomePageLines]; p != nil {
		i := line % outcomePageLines
		return p.had[i/64]&(1<<(i%64)) != 0
	}
	return false
}

// get returns line's outcome, nil when it has none.
func (o *outcomes) get(line int) *lineOutcome {
	if p := o.pages[line/outcomePageLines]; p != nil {
		return p.outs[line%outcomePageLines]
	}
	return nil
}

// make returns line's outcome, made if it has none.
func (o *outcomes) make(line int) *lineOutcome {
	p := o.pages[line/outcomePageLines]
	if p == nil {
		p = &outcomePage{}
		o.pages[line/outcomePageLines] = p
	}
	i := line % outcomePageLines
	if p.outs[i] == nil {
		if len(o.slab) == 0 {
			o.slab = make([]lineOutcome, min(1024, 16+o.n))
		}
		p.outs[i], o.slab = &o.slab[0], o.slab[1:]
		o.n++
	}
	return p.outs[i]
}

// setTextOf keeps text (plainText's, at most some 800 bytes) as the text
// of out.
func (o *outcomes) setTextOf(out *lineOutcome, text string) {
	if len(text) > 0xFFFF {
		text = text[:0xFFFF]
	}
	out.textChunk, out.textAt = o.texts.add(text)
	out.textLen = uint16(len(text))
}

// setText keeps text as the text of line, which has an outcome.
func (o *outcomes) setText(line int, text string) {
	p := o.pages[line/outcomePageLines]
	i := line % outcomePageLines
	o.setTextOf(p.outs[i], text)
	p.kept[i/64] |= 1 << (i % 64)
}

// pageKeys returns the keys of the pages, in order.
func (o *outcomes) pageKeys() []int {
	keys := make([]int, 0, len(o.pages))
	for k := range o.pages {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// Rule records a rule that line became. The source may be percent-encoded
// or decoded; Read puts it in canonical form. A status of 0 is
// redirects.DefaultStatus. The priority is the reader's to set for formats
// that are not FirstMatch (redirects.DefaultPriority unless the format
// says otherwise: 0 is a priority); Read sets it for FirstMatch formats.
func (s *Sink) Rule(line int, r redirects.Rule) {
	if s.maxRules > 0 && s.held.len() >= s.maxRules {
		if s.stop == nil {
			s.stop = redirects.Errorf(redirects.EINVALID, "the file makes more than the %d rules one import takes (line %d makes rule %d); split it", s.maxRules, line, s.maxRules+1)
			if ruleLimitHook != nil {
				ruleLimitHook()
			}
		}
		return
	}
	if r.QueryAfterFragment && redirects.EmptyQueryBeforeFragment(r.Destination) {
		// The option refuses an empty query before the fragment: the rule
		// puts the request's query before the fragment instead.
		r.QueryAfterFragment = false
		s.Note(line, "its platform appends the request's query after the URL's fragment and keeps the empty query before it (%s); here the request's query goes before the fragment", r.Destination)
	}
	s.held.add(line, r)
	if n := len(s.ruled); n == 0 || int(s.ruled[n-1]) != line {
		s.ruled = append(s.ruled, int32(line))
	}
}

// takeHeld calls Rule with each rule h holds, in order. A sink that holds
// no rule yet takes h itself when h is within the limit: its strings are
// the held ones already, not cloned again.
func (s *Sink) takeHeld(h *heldRules) {
	if s.held.len() > 0 || h.noBodies || s.maxRules > 0 && h.len() > s.maxRules {
		for i := range h.len() {
			s.Rule(h.line(i), h.rule(i))
		}
		return
	}
	s.held, *h = *h, heldRules{}
	for _, l := range s.held.lines {
		if n := len(s.ruled); n == 0 || s.ruled[n-1] != l {
			s.ruled = append(s.ruled, l)
		}
	}
}

// heldRule is a rule as the Sink holds it while a file is read: a third
// of a redirects.Rule's size, so that a million rules fit in little.
type heldRule struct {
	source, destination string
	priority            int32
	status              int16
	flags               uint8
}

const (
	heldStartsWith = 1 << iota
	heldPreservePath
	heldPreserveQuery
	heldOdd // the rule is in Sink.odd
)

// heldRules are rules as a reader or the Sink holds them while a file is
// read, each with its line: a heldRule each (with the rare rule whose
// fields do not fit one aside, whole), its strings cloned so that they do
// not keep the line they were cut from. When bodies is false (see
// dropBodies) only the lines are held.
type heldRules struct {
	// rules are in chunks of heldChunk: a million rules never make one
	// slice that append copies again and again, each copy a stretch the
	// garbage collector cannot interrupt.
	rules [][]heldRule
	lines []int32
	// odd holds, by index, the rules whose fields do not fit a heldRule.
	odd map[int]redirects.Rule
	// noBodies is set once dropBodies is called.
	noBodies bool
}

func (h *heldRules) len() int { return len(h.lines) }

// line returns the line of rule i.
func (h *heldRules) line(i int) int { return int(h.lines[i]) }

// add appends r, of line.
func (h *heldRules) add(line int, r redirects.Rule) {
	h.lines = append(h.lines, int32(line))
	if h.noBodies {
		return
	}
	i := len(h.lines) - 1
	if c := i / heldChunk; c == len(h.rules) {
		// The first chunk grows as append grows it, so that a small
		// file's rules cost no more than they did.
		var next []heldRule
		if c > 0 {
			next = make([]heldRule, 0, heldChunk)
		}
		h.rules = append(h.rules, next)
	}
	h.rules[i/heldChunk] = append(h.rules[i/heldChunk], heldRule{})
	h.set(i, r)
}

// heldChunk is how many rules one chunk of heldRules.rules holds.
const heldChunk = 16384

// at returns the place of rule i.
func (h *heldRules) at(i int) *heldRule { return &h.rules[i/heldChunk][i%heldChunk] }

// dropBodies lets go of the rules, keeping their lines: rule then returns
// an empty rule.
func (h *heldRules) dropBodies() {
	h.rules, h.odd, h.noBodies = nil, nil, true
}

// rule returns rule i.
func (h *heldRules) rule(i int) redirects.Rule {
	if h.noBodies {
		return redirects.Rule{}
	}
	c := h.at(i)
	if c.flags&heldOdd != 0 {
		return h.odd[i]
	}
	return c.rule()
}

// rule returns the rule c holds (c is not odd).
func (c *heldRule) rule() redirects.Rule {
	r := redirects.Rule{Source: c.source, Destination: c.destination, Priority: int(c.priority), StatusCode: int(c.status),
		PreservePath: c.flags&heldPreservePath != 0, PreserveQuery: c.flags&heldPreserveQuery != 0}
	if c.flags&heldStartsWith != 0 {
		r.MatchType = redirects.StartsWith
	}
	return r
}

// set replaces rule i with r.
func (h *heldRules) set(i int, r redirects.Rule) {
	if h.noBodies {
		return
	}
	c := heldRule{source: strings.Clone(r.Source), destination: strings.Clone(r.Destination), priority: int32(r.Priority), status: int16(r.StatusCode)}
	switch r.MatchType {
	case redirects.Exact:
	case redirects.StartsWith:
		c.flags |= heldStartsWith
	default:
		c.flags |= heldOdd
	}
	if r.PreservePath {
		c.flags |= heldPreservePath
	}
	if r.PreserveQuery {
		c.flags |= heldPreserveQuery
	}
	if got := c.rule(); c.flags&heldOdd == 0 && !got.Equal(&r) {
		// A field c does not hold (a host, any field added to Rule
		// since), or a value that does not fit.
		c.flags |= heldOdd
	}
	if c.flags&heldOdd != 0 {
		if h.odd == nil {
			h.odd = map[int]redirects.Rule{}
		}
		h.odd[i] = r
		c = heldRule{flags: heldOdd}
	} else {
		delete(h.odd, i)
	}
	*h.at(i) = c
}

// numRules returns how many rules the sink holds.
func (s *Sink) numRules() int { return s.held.len() }

// line returns the line of rule i.
func (s *Sink) line(i int) int { return s.held.line(i) }

// rule returns rule i.
func (s *Sink) rule(i int) redirects.Rule { return s.held.rule(i) }

// setRule replaces rule i with r.
func (s *Sink) setRule(i int, r redirects.Rule) { s.held.set(i, r) }

// ruleLimitHook, when set (by tests), is called once a read reaches
// MaxRules, while the sink still holds every rule.
var ruleLimitHook func()

// Note records how line's rules answer otherwise than the source platform.
// Arguments that are strings of the file are quoted as excerpts (see
// noteText).
func (s *Sink) Note(line int, format string, args ...any) {
	s.addNote(s.out(line), noteText(format, args))
}

// Skip records that line, valid in its format, is not imported, and why.
func (s *Sink) Skip(line int, format string, args ...any) {
	o := s.out(line)
	o.skipped = true
	s.addNote(o, noteText(format, args))
}

// addNote appends note to o's notes. A line's first note is a slice that
// every line with the same note shares (most lines a file skips are
// skipped for one reason, in the same words): a report line then costs no
// note of its own. The shared slices are full (their capacity is their
// length), so that a second note is appended to a copy.
func (s *Sink) addNote(o *lineOutcome, note string) {
	if o.notes != nil {
		o.notes = append(o.notes, note)
		return
	}
	if n, ok := s.notes[note]; ok {
		o.notes = n
		return
	}
	if len(s.notes) >= maxSharedNotes || s.notes == nil {
		// A file whose notes all differ (each names a line) would make
		// the map cost more than it saves: it starts over when full, and
		// the notes that repeat come back into it.
		s.notes = make(map[string][]string, 64)
	}
	n := []string{note}
	s.notes[note] = n
	o.notes = n
}

// maxSharedNotes caps the notes Sink.addNote shares.
const maxSharedNotes = 4096

// Text keeps the text of a line for the report, once the reader has
// called Note or Skip for it (the text of lines that import as is is not
// kept, so that memory does not grow with them).
func (s *Sink) Text(line int, text string) {
	if !s.hasOut(line) {
		if n := len(s.ruled); n > 0 && int(s.ruled[n-1]) == line {
			s.ruledText.add(n-1, text)
		}
		return
	}
	s.outs.setText(line, plainText(text, MaxTextLen))
}

// KeepsText says whether Text would keep the text of line: a reader that
// has to build a line's text (a CSV record joined again) asks first, so
// that lines nothing reports cost no text.
func (s *Sink) KeepsText(line int) bool {
	if s.hasOut(line) {
		return true
	}
	n := len(s.ruled)
	return n > 0 && int(s.ruled[n-1]) == line && !s.ruledText.full()
}

// full says whether the arena takes no more text (add would drop any).
func (r *ruledTexts) full() bool { return r.size+1 > maxRuledText }

type ruledTexts struct {
	chunks [][]byte
	starts []uint32
	// size is the arena's size so far (whole chunks before the last).
	size  int
	index map[int32]int // built on the first get, when ruled is not sorted
}

const (
	noText         = ^uint32(0)
	ruledTextChunk = 1 << 20
	// maxRuledText caps the arena (some 300,000 lines of a usual file;
	// the importer's memory per rule stays within its bound): past it, a
	// line listed later comes without its text.
	maxRuledText = 16 << 20
	// maxRuledTextLen is how much of a line is kept: plainText cuts to
	// MaxTextLen, and the few bytes more let it tell a cut line (it adds
	// the ellipsis) from one that fits.
	maxRuledTextLen = MaxTextLen + 4
)

// add keeps text as the text of ruled line i.
func (r *ruledTexts) add(i int, text string) {
	if len(text) > maxRuledTextLen {
		text = text[:maxRuledTextLen]
	}
	if i < len(r.starts) || r.size+len(text)+1 > maxRuledText {
		return
	}
	for len(r.starts) < i {
		r.starts = append(r.starts, noText)
	}
	n := len(r.chunks)
	if n == 0 || len(r.chunks[n-1])+len(text)+1 > ruledTextChunk {
		if n > 0 {
			r.size += ruledTextChunk - len(r.chunks[n-1])
		}
		// The first chunk starts small and grows as append grows it (a
		// file of few listed lines costs no megabyte); the offsets count
		// every chunk as ruledTextChunk bytes either way.
		c := ruledTextChunk
		if n == 0 {
			c = 4 << 10
		}
		r.chunks = append(r.chunks, make([]byte, 0, c))
		n++
	}
	r.starts = append(r.starts, uint32(r.size))
	c := append(append(r.chunks[n-1], byte(len(text))), text...)
	r.size += len(c) - len(r.chunks[n-1])
	r.chunks[n-1] = c
}

// get returns the text kept of line, "" when none was.
func (r *ruledTexts) get(ruled []int32, line int) string {
	var i int
	if slices.IsSorted(ruled) {
		var ok bool
		if i, ok = slices.BinarySearch(ruled, int32(line)); !ok {
			return ""
		}
	} else {
		if r.index == nil {
			r.index = make(map[int32]int, len(ruled))
			for k, l := range ruled {
				r.index[l] = k
			}
		}
		var ok bool
		if i, ok = r.index[int32(line)]; !ok {
			return ""
		}
	}
	if i >= len(r.starts) || r.starts[i] == noText {
		return ""
	}
	at := int(r.starts[i])
	c := r.chunks[at/ruledTextChunk]
	at %= ruledTextChunk
	return plainText(string(c[at+1:at+1+int(c[at])]), MaxTextLen)
}

// Bad records a line that is not valid in its own format: the file is
// refused, listing every such line.
func (s *Sink) Bad(line int, format string, args ...any) {
	if len(s.bad) < s.maxBad {
		s.bad = append(s.bad, export.LineError{Line: line, Message: noteText(format, args)})
		if len(s.bad) == s.maxBad && s.stop == nil {
			// The report lists no more: the rest of the file is only
			// checked for binary bytes.
			s.stop = errEnoughBad
		}
	}
}

// stopped returns the error that ends the read (the rule limit passed,
// or enough bad lines), for a reader to return as soon as it sees it
// rather than at the guard's next read of the file.
func (s *Sink) stopped() error { return s.stop }

// errEnoughBad stops a read once MaxBadLines broken lines are listed.
var errEnoughBad = errors.New("enough bad lines")

// HasBad reports whether a broken line was recorded.
func (s *Sink) HasBad() bool { return len(s.bad) > 0 }

// BadLinesError is the error of a file with broken lines: every one, with
// its line number.
type BadLinesError struct {
	Format string
	Lines  []export.LineError
}

func (e *BadLinesError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "the file is not valid %s: ", e.Format)
	if len(e.Lines) == 1 {
		b.WriteString("1 bad line")
	} else {
		fmt.Fprintf(&b, "%d bad lines", len(e.Lines))
	}
	if len(e.Lines) >= MaxBadLines {
		fmt.Fprintf(&b, " (the first %d)", MaxBadLines)
	}
	for _, l := range e.Lines {
		fmt.Fprintf(&b, "\nline %d: %s", l.Line, l.Message)
	}
	return b.String()
}

// RedirectsError returns the redirects error (EINVALID) that the CLI and
// the APIs report for e.
func (e *BadLinesError) RedirectsError() error {
	return &redirects.Error{Code: redirects.EINVALID, Message: e.Error()}
}

// HeadSize is how much of a file detection looks at.
const HeadSize = 64 << 10

// Read reads in as the format named from ("auto" detects it), and returns
// the rules to import with the report of every line. A file with broken
// lines is refused whole: the error is a *BadLinesError. A binary file, a
// file that is not UTF-8 text (the whole of it is checked), one with a
// line longer than MaxLineLen, one that makes more than o.MaxRules rules,
// or one no format recognises gets one EINVALID error that says so. When
// ctx ends, the read stops at the reader's next read of the file and Read
// returns ctx's error.
func Read(ctx context.Context, in io.Reader, from string, o Options) (*Result, error) {
	sink := newSink()
	sink.maxRules = o.MaxRules
	guard := newInputGuard(ctx, in, func() error { return sink.stop })
	br := bufio.NewReaderSize(guard, HeadSize)
	head, err := br.Peek(HeadSize)
	if err != nil && err != io.EOF && err != bufio.ErrBufferFull {
		return nil, readErr(ctx, guard, err)
	}
	res := &Result{}
	var f *Format
	if from == "" || from == "auto" {
		var why string
		f, why = Detect(head, o.FileName)
		if f == nil {
			// A bad byte past the head refuses the file as one in it does.
			if _, err := io.Copy(io.Discard, br); err != nil {
				return nil, readErr(ctx, guard, err)
			}
			return nil, redirects.Errorf(redirects.EINVALID, "%s", why)
		}
		res.Detected = plainText(why, MaxNoteLen)
	} else if f = Lookup(from); f == nil {
		return nil, redirects.Errorf(redirects.EINVALID, "unknown format %q: --from takes %s", excerpt(from), strings.Join(FormatNames(), ", "))
	}
	if !f.MayBeJSON || !startsJSON(head) {
		guard.maxLine = MaxLineLen
	}
	res.Format = f.Name
	rerr := f.Read(br, &o, sink)
	if errors.Is(guard.err, errEnoughBad) || errors.Is(rerr, errEnoughBad) {
		// The report is full; the rest is only checked, below.
		guard.err, guard.stop, rerr = nil, nil, nil
	}
	// What the reader left unread is checked too: one NUL or invalid
	// byte anywhere refuses the file (docs/contract.md#migrations). The
	// bytes br holds have passed the guard already.
	if guard.err == nil && rerr == nil {
		_, rerr = io.Copy(io.Discard, guard)
	}
	if guard.err != nil {
		return nil, readErr(ctx, guard, guard.err)
	}
	if rerr != nil {
		if redirects.ErrorCode(rerr) == "" || redirects.ErrorCode(rerr) == redirects.EINTERNAL {
			return nil, redirects.Errorf(redirects.EINVALID, "reading: %s", plainText(rerr.Error(), MaxNoteLen))
		}
		return nil, rerr
	}
	if len(sink.bad) > 0 {
		return nil, &BadLinesError{Format: f.Title, Lines: sink.bad}
	}
	if sink.defaults != nil {
		g := *f
		g.Defaults, g.DefaultsWhy = sink.defaults, sink.defaultsWhy
		f = &g
	}
	if err := finish(ctx, f, &o, sink, res); err != nil {
		return nil, err
	}
	return res, nil
}

// readErr is the error of a read the guard ended (or err, another failure
// to read): ctx's error when it ended, a refusal of the whole file, or the
// sink's limit.
func readErr(ctx context.Context, guard *inputGuard, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	var ie *inputError
	switch {
	case errors.As(err, &ie):
		return inputErr(ie)
	case redirects.ErrorCode(err) == redirects.EINVALID:
		return err
	}
	return redirects.Errorf(redirects.EINVALID, "reading: %s", plainText(err.Error(), MaxNoteLen))
}

// startsJSON reports whether head's first byte, past a byte order mark
// and spaces, opens a JSON object or array.
func startsJSON(head []byte) bool {
	t := bytes.TrimLeft(bytes.TrimPrefix(head, []byte("\uFEFF")), " \t\r\n")
	return len(t) > 0 && (t[0] == '{' || t[0] == '[')
}

// Detect picks the format of a file from its head and name, and says why
// ("its header names the columns ..."); nil and the reason when none fits.
func Detect(head []byte, fileName string) (*Format, string) {
	trimmed := bytes.TrimSpace(bytes.TrimPrefix(head, []byte("\uFEFF")))
	if len(trimmed) == 0 {
		return nil, "the file is empty"
	}
	for _, f := range formats {
		if f.Detect == nil {
			continue
		}
		if ok, why := f.Detect(head, fileName); ok {
			return f, why
		}
	}
	return nil, "no known redirect format recognised this file; name one with --from (" + strings.Join(FormatNames()[1:], ", ") + ")"
}

// finish does the work every format shares; see the package comment.
func finish(ctx context.Context, f *Format, o *Options, sink *Sink, res *Result) error {
	set := o.Settings
	var (
		exact    = make(map[hostKey]int, sink.numRules()) // host and key -> line of the first exact rule
		prefixes = map[string]int{}                       // folded source -> line of the first starts_with rule
		covers   = newPrefixSet()                         // prefixes' keys, for coveringPrefix
		// host and folded source -> line of the first host-scoped
		// starts_with rule; kind, host and source -> line of the first
		// pattern or regex rule; a first-match file's regex rules so far.
		hostPrefixes = map[string]int{}
		others       = map[string]int{}
		earlierRe    = newRegexIndex()
		regexes      int                         // regex rules kept
		rank         int                         // the next first-match priority
		perLine      = newLineCounts(sink.ruled) // line -> rules kept
		// The rules kept, in file order.
		rules     []redirects.Rule
		ruleLines []int
		// excepts holds the exceptHosts of a line's rule without a host
		// that has them (nginx's default server block): it shadows no
		// rule of a host it leaves out.
		excepts = map[int][]string{}
	)
	if n := sink.numRules(); n > 0 {
		rules, ruleLines = make([]redirects.Rule, 0, n), make([]int, 0, n)
	}
	for i := range sink.numRules() {
		if i&255 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		rule := sink.rule(i)
		r := &rule
		line := sink.line(i)
		if r.StatusCode == 0 {
			r.StatusCode = redirects.DefaultStatus
		}
		if f.FirstMatch {
			r.Priority = redirects.DefaultPriority // starts_with rules get their rank below
		}
		if !f.Strict {
			if err := r.Validate(); err != nil {
				// The message quotes the rule's values (at most 80 bytes each,
				// Go-quoted): cut it so that escapes cannot lengthen it.
				sink.Skip(line, "%s", "our rules refuse it: "+plainText(platformNeutral(f, redirects.ErrorMessage(err)), 3*MaxExcerpt))
				continue
			}
		}
		// Shadowing: does an earlier rule answer every path this one matches?
		// A host-scoped rule is shadowed by an earlier one of its host or
		// without a host; a rule without a host only by one without
		// (docs/contract.md#hosts). Host-scoped prefixes and pattern or
		// regex rules shadow no later literal rule but the ones below.
		// A strict reader has refused two rules of one key: its pattern,
		// regex, host-scoped and conditioned rules are kept as they are.
		winner := 0
		// leaves reports whether the rule of line l, without a host, leaves
		// r's host to other rules (its exceptHosts): it shadows nothing of r.
		leaves := func(l int) bool { return r.Host != "" && pattern.ExceptsHost(excepts[l], r.Host) }
		switch {
		case f.Strict && r.Extended():
		case !r.MatchType.Literal():
			key := r.MatchType.String() + "\x00" + r.Host + "\x00" + r.Source
			if l, ok := others[key]; ok {
				winner = l
			} else {
				others[key] = line
				if r.MatchType == redirects.Regex {
					if regexes++; regexes > maxRegexRules {
						sink.Skip(line, "more than %d regex rules, a project's limit: split the file or write the rest as literal rules", maxRegexRules)
						continue
					}
				}
				if f.FirstMatch && r.MatchType == redirects.Regex {
					if re, err := regexp.Compile(regexAnchored(r.Source, set)); err == nil {
						earlierRe.add(earlierRegex{re: re, host: r.Host, line: line})
					}
				}
			}
		case r.MatchType == redirects.Exact:
			key := set.Key(r.Source)
			// A rule with query conditions is also shadowed by an
			// earlier exact rule of its path without conditions.
			path, _, conds := strings.Cut(r.Source, "?")
			pkey := key
			if conds {
				pkey = set.Key(path)
			}
			// A lookup is made only where it may answer: without a host or
			// conditions it would repeat the first.
			if l, ok := exact[hostKey{"", key}]; ok && !leaves(l) {
				winner = l
			} else if l, ok := lookupIf(exact, r.Host != "", r.Host, key); ok {
				winner = l
			} else if l, ok := lookupIf(exact, conds && f.FirstMatch, "", pkey); ok && !leaves(l) {
				winner = l
			} else if l, ok := lookupIf(exact, conds && f.FirstMatch && r.Host != "", r.Host, pkey); ok {
				winner = l
			} else if f.FirstMatch {
				if winner = coveringPrefix(set, prefixes, covers, path, true); leaves(winner) {
					winner = 0
				}
				if winner == 0 {
					if winner = earlierRe.covering(r.Host, path); leaves(winner) {
						winner = 0
					}
				}
			}
			if winner == 0 {
				exact[hostKey{r.Host, key}] = line
			}
		case r.Host != "":
			src := r.Host + "\x00" + set.FoldCase(r.Source)
			if l, ok := hostPrefixes[src]; ok {
				winner = l
			} else if f.FirstMatch {
				if winner = coveringPrefix(set, prefixes, covers, r.Source, false); leaves(winner) {
					winner = 0
				}
			}
			if winner == 0 {
				hostPrefixes[src] = line
			}
		default:
			src := set.FoldCase(r.Source)
			if l, ok := prefixes[src]; ok {
				winner = l
			} else if f.FirstMatch {
				winner = coveringPrefix(set, prefixes, covers, r.Source, false)
			}
			if winner == 0 {
				prefixes[src] = line
				covers.add(src, line)
			}
		}
		if winner != 0 {
			what := "an earlier line answers every path it matches"
			if !f.FirstMatch || winner == line {
				what = "it repeats the source of an earlier line"
			}
			if winner == line {
				sink.Note(line, "one of its rules repeats another of the same line and was dropped")
				continue
			}
			o := sink.out(line)
			sink.addNote(o, fmt.Sprintf("%s: line %d wins on the source platform", what, winner))
			if o.winner == 0 {
				o.winner = int32(winner)
			}
			// A line whose every rule is shadowed is skipped; one with
			// some rules kept is changed (see classify).
			continue
		}
		if f.FirstMatch && r.MatchType != redirects.Exact {
			if rank > redirects.MaxPriority {
				sink.Skip(line, "more than %d prefix rules: priorities cannot keep the file's order past that", redirects.MaxPriority+1)
				continue
			}
			r.Priority = rank
			rank++
		}
		if len(r.ExceptHosts) > 0 {
			if _, ok := excepts[line]; !ok {
				excepts[line] = r.ExceptHosts
			}
		}
		rules = append(rules, rule)
		ruleLines = append(ruleLines, line)
		perLine.add(line, 1)
	}
	sink.held = heldRules{}
	if f.FirstMatch {
		rules, ruleLines = dropExactUnderPatterns(set, sink, perLine, rules, ruleLines)
		handOffs(set, sink, rules, ruleLines)
	}
	n := len(rules)
	res.Rules, res.RuleLines = rules[:n:n], ruleLines[:n:n]
	classify(sink, perLine, res)
	if f.Defaults != nil && *f.Defaults != o.Settings {
		d := *f.Defaults
		res.Suggest = &Suggestion{Settings: d, CaseSensitive: d.CaseSensitive(), TrailingSlash: d.TrailingSlash(),
			Why: suggestWhy(f, o.Settings)}
	}
	res.SuggestHosts = suggestHosts(res.Rules, sink.siteHosts, o.Hosts)
	return nil
}

// lookupIf returns exact's line of host and key when ask is true.
func lookupIf(exact map[hostKey]int, ask bool, host, key string) (int, bool) {
	if !ask {
		return 0, false
	}
	l, ok := exact[hostKey{host, key}]
	return l, ok
}

// hostKey is a host ("" for every host) and a source's key under the
// project's settings: the key of finish's map of exact rules, two strings
// rather than one made of them for each of a million rules.
type hostKey struct{ host, key string }

func hostsWord(n int) string {
	if n == 1 {
		return "1 host"
	}
	return fmt.Sprintf("%d hosts", n)
}

// suggestHosts names the hosts rules are scoped to, those a host-less
// rule's exceptHosts name (hosts the file's site answers on with other
// rules: nginx's other server blocks) and the site's own hosts site, that
// declared lacks, or returns nil when there are none.
func suggestHosts(rules []redirects.Rule, site, declared []string) *HostSuggestion {
	seen := map[string]bool{}
	for _, h := range declared {
		seen[strings.ToLower(h)] = true
	}
	var hosts []string
	more, excepted := false, false
	for i := range len(rules) + 1 {
		var names []string
		if i < len(rules) {
			names = append([]string{rules[i].Host}, rules[i].ExceptHosts...)
		} else {
			// The site's own hosts last, after every rule's.
			names = append([]string{""}, site...)
		}
		for k, h := range names {
			if h == "" || seen[h] || strings.HasPrefix(h, "*.") {
				continue
			}
			if len(hosts) == redirects.MaxProjectHosts {
				more = true
				break
			}
			if _, err := redirects.NormalizeHosts([]string{h}); err != nil {
				continue
			}
			seen[h] = true
			hosts = append(hosts, h)
			excepted = excepted || k > 0 && i < len(rules)
		}
		if more {
			break
		}
	}
	if len(hosts) == 0 {
		return nil
	}
	s := &HostSuggestion{Hosts: hosts, Declare: []string{}}
	verb := "answer on"
	if excepted {
		verb = "answer on or leave to other rules"
	}
	what := fmt.Sprintf("the file's rules %s %s the project does not declare (%s)", verb, hostsWord(len(hosts)), strings.Join(hosts, ", "))
	if more {
		what = fmt.Sprintf("the file's rules answer on more than %d hosts the project does not declare (the first: %s)", redirects.MaxProjectHosts, strings.Join(hosts, ", "))
	}
	if more || len(declared)+len(hosts) > redirects.MaxProjectHosts {
		s.Why = fmt.Sprintf("%s; a project declares at most %d hosts: declare the ones its site answers on", what, redirects.MaxProjectHosts)
		return s
	}
	s.Declare = append(append(s.Declare, declared...), hosts...)
	s.Why = fmt.Sprintf("%s: \"redirects project update --host %s\" would declare them", what, strings.Join(s.Declare, " --host "))
	return s
}

// platformNeutral drops, from a refusal the report gives for a line of
// another platform's file, the reason that names nginx (the refusal
// stands: our rules take no such source), so that the notes of a file
// speak of its own platform.
func platformNeutral(f *Format, msg string) string {
	if f.Name == "nginx" {
		return msg
	}
	for _, why := range []string{", which nginx merges in request paths, so it would never match there",
		", which nginx resolves in request paths, so it would never match there"} {
		msg = strings.Replace(msg, why, "", 1)
	}
	return msg
}

// dropExactUnderPatterns drops, in a first-match file, the exact rules that
// an earlier line's pattern, regex or host-scoped prefix rule answers on
// the platform: here an exact rule answers before any of them
// (docs/contract.md#precedence). It names the earlier line as the winner,
// as the shadowing of finish does. A host-less exact rule that an earlier
// host-scoped rule answers on its host only is kept, and its line changed:
// the note names the host and the line.
func dropExactUnderPatterns(set redirects.Settings, sink *Sink, perLine *lineCounts, rules []redirects.Rule, lines []int) ([]redirects.Rule, []int) {
	var pats, loose []pattern.Rule
	var patLines, looseLines []int
	var hosts []string
	seen := map[string]bool{}
	extended := false
	for i := range rules {
		r := &rules[i]
		if r.MatchType == redirects.Exact {
			continue
		}
		extended = extended || r.Extended()
		pats = append(pats, r.PatternRule())
		patLines = append(patLines, lines[i])
		if src, ok := withoutConditions(r); ok {
			lr := r.PatternRule()
			lr.Source = src
			loose = append(loose, lr)
			looseLines = append(looseLines, lines[i])
		}
		if h := r.Host; h != "" && !seen[h] && !strings.HasPrefix(h, "*.") && len(hosts) < maxShadowHosts {
			seen[h] = true
			hosts = append(hosts, h)
		}
	}
	if !extended {
		// Literal prefixes only: finish's coveringPrefix has found them.
		return rules, lines
	}
	ps, err := pattern.Compile(pats, set.PatternSettings())
	if err != nil {
		// Each rule passed Validate; a set over the engine's limits is
		// refused whole when it is saved, with its own message.
		return rules, lines
	}
	// loose holds the rules with query conditions, without them: an exact
	// rule on a path one of them matches answers, here, the queries that
	// rule answers on the platform.
	var ls *pattern.Set
	if len(loose) > 0 {
		ls, _ = pattern.Compile(loose, set.PatternSettings())
	}
	var m pattern.Match
	keep := 0
	// prevPri is the highest rank of the rules before rule i that are not
	// exact, maxPri that of them all; converted marks (by their index in
	// the rules kept) the exact rules made literal patterns.
	prevPri, maxPri := -1, 0
	for i := range rules {
		if rules[i].MatchType != redirects.Exact {
			maxPri = max(maxPri, rules[i].Priority)
		}
	}
	var converted map[int]bool
	for i := range rules {
		r := &rules[i]
		if r.MatchType == redirects.Exact {
			path, _, _ := strings.Cut(r.Source, "?")
			wire := pattern.EscapePath(path)
			if ps.Lookup(r.Host, wire, &m) {
				if w := patLines[m.Rule()]; w < lines[i] {
					o := sink.out(lines[i])
					sink.addNote(o, fmt.Sprintf("an earlier line answers every path it matches: line %d wins on the source platform", w))
					if o.winner == 0 {
						o.winner = int32(w)
					}
					perLine.add(lines[i], -1)
					continue
				}
			}
			if ls != nil && ls.Lookup(r.Host, wire, &m) {
				if w := looseLines[m.Rule()]; w < lines[i] {
					sink.Note(lines[i], "with the query parameters line %d asks for, line %d answers it on the source platform; here this line does", w, w)
					sink.Note(w, "line %d, later, answers %s here with this line's query parameters: on the source platform this line does", lines[i], path)
				}
			}
			if r.Host == "" {
				type under struct {
					host string
					line int
				}
				var wins []under
				for _, h := range hosts {
					if ps.Lookup(h, wire, &m) {
						if w := patLines[m.Rule()]; w < lines[i] {
							wins = append(wins, under{h, w})
						}
					}
				}
				// The rule becomes a literal pattern ranked after the
				// earlier lines' rules: the earlier line answers on its
				// host, as on the source platform, and this one elsewhere.
				if len(wins) > 0 {
					if lit, ok := literalPattern(*r, prevPri, maxPri); ok {
						if converted == nil {
							converted = map[int]bool{}
						}
						rules[i] = lit
						converted[keep] = true
					} else {
						for _, u := range wins {
							sink.Note(lines[i], "on host %s, line %d answers it on the source platform; here this line does", u.host, u.line)
							sink.Note(u.line, "line %d, later, answers %s here on host %s: on the source platform this line does", lines[i], path, u.host)
						}
					}
				}
			}
		} else {
			prevPri = max(prevPri, r.Priority)
		}
		rules[keep], lines[keep] = rules[i], lines[i]
		keep++
	}
	// Room for the literal patterns: the other rules' ranks double, and
	// each literal pattern takes the odd rank after the last earlier one's.
	for i := range keep {
		if converted[i] {
			rules[i].Priority = 2*rules[i].Priority + 1
		} else if converted != nil && rules[i].MatchType != redirects.Exact {
			rules[i].Priority *= 2
		}
	}
	return rules[:keep], lines[:keep]
}

// literalPattern returns an exact rule as a pattern rule that matches its
// path alone (under the same settings, the same paths), with the priority
// prev (doubled and made odd by the caller), or false when its source
// holds what a pattern reads otherwise, carries query conditions, the
// ranks would pass redirects.MaxPriority, or the rule is refused.
func literalPattern(r redirects.Rule, prev, maxPri int) (redirects.Rule, bool) {
	if strings.ContainsAny(r.Source, ":*()?+[]{}\\") || 2*maxPri+1 > redirects.MaxPriority || prev < 0 {
		return r, false
	}
	r.MatchType = redirects.Pattern
	r.Priority = prev
	if r.Validate() != nil {
		return r, false
	}
	return r, true
}

// handOffs notes, in a first-match file, the later lines that answer here
// the paths of a line that answers them on the platform without a
// redirect (sink.passes): on the platform that line comes first and no
// redirect is made; here the later line redirects them, so it is changed,
// and the line that does not redirect names it. Both ways are probed: the
// sample paths of the line that does not redirect, asked of the later
// rules, and sample paths of each later rule, asked of that line.
func handOffs(set redirects.Settings, sink *Sink, rules []redirects.Rule, lines []int) {
	if len(sink.passes) == 0 {
		return
	}
	// pats are the rules that are not exact, loose those with query
	// conditions, without them (kept apart: a lookup gives one rule).
	var pats, loose []pattern.Rule
	var patLines, looseLines []int
	exact := map[string]int{}
	var hosts []string
	seen := map[string]bool{}
	for i := range rules {
		r := &rules[i]
		if h := r.Host; h != "" && !seen[h] && !strings.HasPrefix(h, "*.") && len(hosts) < maxShadowHosts {
			seen[h] = true
			hosts = append(hosts, h)
		}
		// A rule with query conditions is probed without them: it
		// answers the requests that carry them.
		if r.MatchType == redirects.Exact {
			path, _, _ := strings.Cut(r.Source, "?")
			k := r.Host + "\x00" + set.Key(path)
			if _, ok := exact[k]; !ok {
				exact[k] = lines[i]
			}
			continue
		}
		pr := r.PatternRule()
		if src, conds := withoutConditions(r); conds {
			pr.Source = src
			loose = append(loose, pr)
			looseLines = append(looseLines, lines[i])
			continue
		}
		pats = append(pats, pr)
		patLines = append(patLines, lines[i])
	}
	noted := map[[2]int]bool{}
	note := func(pass, w int, path, h string) {
		if noted[[2]int{pass, w}] {
			return
		}
		noted[[2]int{pass, w}] = true
		if h != "" {
			sink.Note(w, "line %d, earlier, answers %s on host %s on the source platform without a redirect; here this line redirects it", pass, path, h)
			sink.Note(pass, "line %d, later, redirects %s on host %s here", w, path, h)
		} else {
			sink.Note(w, "line %d, earlier, answers %s on the source platform without a redirect; here this line redirects it", pass, path)
			sink.Note(pass, "line %d, later, redirects %s here", w, path)
		}
	}
	var m pattern.Match
	ps, err := pattern.Compile(pats, set.PatternSettings())
	if err != nil {
		ps = nil
	}
	ls, err := pattern.Compile(loose, set.PatternSettings())
	if err != nil {
		ls = nil
	}
	var passPats []pattern.Rule
	var passIdx []int
	for k, p := range sink.passes {
		on := []string{p.host}
		if p.host == "" {
			on = append(on, hosts...)
		}
		for _, h := range on {
			for _, path := range p.paths {
				path, err := redirects.DecodePath(path)
				if err != nil {
					continue
				}
				w := 0
				if l, ok := exact[h+"\x00"+set.Key(path)]; ok {
					w = l
				} else if l, ok := exact["\x00"+set.Key(path)]; ok {
					w = l
				} else if ps != nil && ps.Lookup(h, pattern.EscapePath(path), &m) {
					w = patLines[m.Rule()]
				}
				if w > p.line {
					note(p.line, w, path, h)
				}
				if ls != nil && ls.Lookup(h, pattern.EscapePath(path), &m) {
					if w := looseLines[m.Rule()]; w > p.line {
						note(p.line, w, path, h)
					}
				}
			}
		}
		if p.src != "" {
			// Earlier lines first: the line is the priority.
			passPats = append(passPats, pattern.Rule{Kind: pattern.Kind(redirects.Pattern), Host: p.host, Source: p.src, Destination: "/", Priority: p.line})
			passIdx = append(passIdx, k)
		}
	}
	if len(passPats) == 0 {
		return
	}
	pp, err := pattern.Compile(passPats, set.PatternSettings())
	if err != nil {
		return
	}
	passHosts := []string{""}
	for _, p := range sink.passes {
		if p.host != "" && !slices.Contains(passHosts, p.host) {
			passHosts = append(passHosts, p.host)
		}
	}
	first := sink.passes[0].line
	for i := range rules {
		if lines[i] <= first {
			continue
		}
		on := passHosts
		if rules[i].Host != "" {
			on = []string{rules[i].Host}
		}
		for _, path := range ruleSamples(&rules[i]) {
			for _, h := range on {
				if pp.Lookup(h, pattern.EscapePath(path), &m) {
					if p := sink.passes[passIdx[m.Rule()]]; p.line < lines[i] {
						note(p.line, lines[i], path, h)
					}
				}
			}
		}
	}
}

var samplePlaceholder = regexp.MustCompile(`:[A-Za-z_][A-Za-z0-9_]*(\([^)]*\))?[*+?]?`)

// ruleSamples returns paths a rule matches (its placeholders filled with
// "x"; with the query its conditions ask for), none for a regex rule.
func ruleSamples(r *redirects.Rule) []string {
	src, _ := withoutConditions(r)
	switch r.MatchType {
	case redirects.Exact:
		return []string{src}
	case redirects.StartsWith:
		return []string{src, strings.TrimSuffix(src, "/") + "/x"}
	case redirects.Pattern:
		p := samplePlaceholder.ReplaceAllString(src, "x")
		if strings.HasSuffix(p, "/*") {
			p = p[:len(p)-1] + "x"
		}
		if d, err := redirects.DecodePath(p); err == nil && !strings.Contains(d, "*") {
			return []string{d}
		}
	}
	return nil
}

// withoutConditions returns r's source without its query conditions, and
// false when it has none.
func withoutConditions(r *redirects.Rule) (string, bool) {
	src := r.Source
	switch r.MatchType {
	case redirects.Exact, redirects.StartsWith:
		p, _, ok := strings.Cut(src, "?")
		return p, ok
	case redirects.Regex:
		for i := 0; i+1 < len(src); i++ {
			switch src[i] {
			case '\\':
				i++
			case '$':
				if src[i+1] == '?' {
					return src[:i+1], true
				}
			}
		}
		return src, false
	}
	// A pattern: the conditions start at the first '?' that is not a
	// placeholder's modifier (right after its name or constraint, followed
	// by '/', '?' or the end).
	for i := 0; i < len(src); i++ {
		if src[i] != '?' {
			continue
		}
		if i+1 == len(src) || src[i+1] == '/' || src[i+1] == '?' {
			if afterPlaceholder(src[:i]) {
				continue
			}
		}
		return src[:i], true
	}
	return src, false
}

// afterPlaceholder reports whether s ends with a placeholder's name or
// constraint.
func afterPlaceholder(s string) bool {
	if strings.HasSuffix(s, ")") {
		return strings.Contains(s, ":")
	}
	j := len(s)
	for j > 0 && (isPlaceholderByte(s[j-1])) {
		j--
	}
	return j < len(s) && j > 0 && s[j-1] == ':'
}

// maxShadowHosts caps the hosts dropExactUnderPatterns asks each exact rule
// on.
const maxShadowHosts = 64

// coveringPrefix returns the line of a recorded starts_with rule that
// matches every path that a rule with source src matches (an exact rule
// when exact, else a starts_with one), or 0.
func coveringPrefix(set redirects.Settings, prefixes map[string]int, covers *prefixSet, src string, exact bool) int {
	fs := set.FoldCase(src)
	// Of several, the earliest line answers on the platform.
	winner := 0
	take := func(l int) {
		if winner == 0 || l < winner {
			winner = l
		}
	}
	covers.each(fs, func(l int) bool { take(l); return true })
	// Under trailingSlash=ignore, a prefix "/a/" also matches the path
	// "/a", which is all an exact "/a" matches (a prefix "/a" matches
	// "/ab" too, which "/a/" does not).
	if exact && set.IgnoreTrailingSlash && !strings.HasSuffix(fs, "/") {
		if l, ok := prefixes[fs+"/"]; ok {
			take(l)
		}
	}
	return winner
}

// classify sorts every line that became a rule or has an outcome into the
// three classes.
func classify(sink *Sink, perLine *lineCounts, res *Result) {
	if sink.outs.n > 0 {
		res.Lines = make([]Outcome, 0, sink.outs.n)
	}
	// The outcomes are copied into res.Lines, each let go of once copied
	// (its page marks that the line had one), so that a slab of them is
	// freed once every line it holds is copied (lines are mostly given
	// outcomes in order) and the report is not held twice over at its
	// peak.
	sink.outs.slab = nil
	for _, k := range sink.outs.pageKeys() {
		p := sink.outs.pages[k]
		for i, o := range p.outs {
			if o == nil {
				continue
			}
			p.outs[i] = nil
			p.had[i/64] |= 1 << (i % 64)
			l := k*outcomePageLines + i
			kept := perLine.get(l)
			out := Outcome{Line: l, Notes: o.notes, Rules: kept, Winner: int(o.winner)}
			switch {
			case kept == 0:
				out.Class = Skipped
			case o.skipped:
				// Some rules of the line were skipped, others kept.
				out.Class = Changed
			case len(o.notes) > 0:
				out.Class = Changed
			default:
				continue
			}
			if p.kept[i/64]&(1<<(i%64)) != 0 {
				out.Text = sink.outs.texts.get(o.textChunk, o.textAt, o.textLen)
			} else {
				// A line given its outcome after its text (a shadowed
				// line): the text is in the arena of ruled lines.
				out.Text = sink.ruledText.get(sink.ruled, l)
			}
			if out.Class == Skipped {
				res.Skipped++
			} else {
				res.Changed++
			}
			res.Lines = append(res.Lines, out)
		}
	}
	// As is: every line that kept rules and has no outcome. A reader may
	// hand rules over out of line order (Apache's mod_alias rules come
	// after its mod_rewrite ones), so the lines are sorted first.
	if !slices.IsSorted(sink.ruled) {
		slices.Sort(sink.ruled)
		sink.ruled = slices.Compact(sink.ruled)
	}
	for _, l32 := range sink.ruled {
		l := int(l32)
		if sink.outs.had(l) || perLine.get(l) == 0 {
			continue
		}
		res.AsIs++
		if n := len(res.AsIsLines); n > 0 && res.AsIsLines[n-1][1] >= l-1 {
			res.AsIsLines[n-1][1] = l
		} else {
			res.AsIsLines = append(res.AsIsLines, [2]int{l, l})
		}
	}
	if res.AsIsLines == nil {
		res.AsIsLines = [][2]int{}
	}
	if res.Lines == nil {
		res.Lines = []Outcome{}
	}
}

// lineCounts counts the rules kept of each line, by line number: a slice
// when most lines up to the last keep rules (a large file's, where a map
// of a million lines costs more than the reading), else a map, so that a
// file of few rules among many other lines costs no more than it did.
type lineCounts struct {
	n []int32
	m map[int]int
}

// newLineCounts returns counts for the lines of ruled.
func newLineCounts(ruled []int32) *lineCounts {
	last := int32(0)
	for _, l := range ruled {
		last = max(last, l)
	}
	if int(last) < 4*len(ruled)+1024 {
		return &lineCounts{n: make([]int32, last+1)}
	}
	return &lineCounts{m: map[int]int{}}
}

// add adds d to line's count.
func (c *lineCounts) add(line, d int) {
	if c.m != nil || line < 0 || line >= len(c.n) {
		if c.m == nil {
			c.m = map[int]int{}
		}
		c.m[line] += d
		return
	}
	c.n[line] += int32(d)
}

// get returns line's count.
func (c *lineCounts) get(line int) int {
	if line >= 0 && line < len(c.n) {
		return int(c.n[line]) + c.m[line]
	}
	return c.m[line]
}

func suggestWhy(f *Format, project redirects.Settings) string {
	d := *f.Defaults
	var sets []string
	if d.CaseInsensitive != project.CaseInsensitive {
		sets = append(sets, fmt.Sprintf("--case-sensitive=%t", !d.CaseInsensitive))
	}
	if d.IgnoreTrailingSlash != project.IgnoreTrailingSlash {
		sets = append(sets, "--trailing-slash "+d.TrailingSlash())
	}
	return fmt.Sprintf("%s; the project's settings (%s) differ: \"redirects project update %s\" would match", f.DefaultsWhy, project, strings.Join(sets, " "))
}

// ParsePlaceholder parses one --placeholder value, "name=v1,v2,...", into
// m. A name may be given with or without its ':'.
func ParsePlaceholder(m map[string][]string, v string) error {
	name, vals, ok := strings.Cut(v, "=")
	name = strings.TrimPrefix(strings.TrimSpace(name), ":")
	if !ok || name == "" {
		return redirects.Errorf(redirects.EINVALID, "placeholder %q is not NAME=VALUE,VALUE,...", v)
	}
	for _, x := range strings.Split(vals, ",") {
		x = strings.TrimSpace(x)
		if x == "" {
			return redirects.Errorf(redirects.EINVALID, "placeholder %q has an empty value", v)
		}
		if strings.ContainsAny(x, "/?#") {
			return redirects.Errorf(redirects.EINVALID, "placeholder %s value %q holds '/', '?' or '#'", name, x)
		}
		m[name] = append(m[name], x)
	}
	return nil
}
