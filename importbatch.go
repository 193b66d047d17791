package redirects

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// ImportKey is a rule of an import batch by its place in a store's unique
// index of rules: match type, then source bytes, then host, then position
// in the batch. A store whose index orders the same way (sources and hosts
// in Go's string order) can walk its stored rules beside ImportBatch.Keys.
type ImportKey struct {
	Source string
	Host   string
	Pos    int32 // the rule's 0-based position in ImportBatch.Rules
	Match  MatchType
}

// CompareImportKeys orders keys by match type, source, host, then position.
func CompareImportKeys(a, b ImportKey) int {
	if c := cmp.Compare(a.Match, b.Match); c != 0 {
		return c
	}
	if c := strings.Compare(a.Source, b.Source); c != 0 {
		return c
	}
	if c := strings.Compare(a.Host, b.Host); c != 0 {
		return c
	}
	return cmp.Compare(a.Pos, b.Pos)
}

// SameRule reports whether k and o have the same match type, source and
// host, so that one store cannot hold both (docs/contract.md#keys).
func (k ImportKey) SameRule(o ImportKey) bool {
	return k.Match == o.Match && k.Source == o.Source && k.Host == o.Host
}

// ImportBatch is the store-independent part of Store.ImportRules: the batch
// sorted in index order, the repeats within it, its validation and the one
// error that reports every problem. A store adds what needs its database:
// the clashes with stored rules and the insert.
type ImportBatch struct {
	// Rules is the batch as the caller gave it, but for sources and hosts
	// put in the forms Validate stores before anything else.
	Rules []Rule
	// Keys holds one key per rule, in the order of CompareImportKeys.
	Keys []ImportKey

	firstOf   []int32  // per position: the earlier rule it repeats, or -1
	settings  Settings // what Rekey compared the sources under
	repeats   bool
	failed    atomic.Bool
	validated chan []string // receives invalid once validation is done
	invalid   []string      // per position: the rule's problem, or ""; nil until received
}

// NewImportBatch sorts rules in index order, finds the repeats within them
// and starts validating them in the background, on every CPU but one, so
// that a store can do its database work meanwhile; Err waits for the
// validation. A batch is abandoned without leaking anything. Errors:
// EINVALID (more rules than the int32 positions of Keys can hold).
func NewImportBatch(rules []Rule) (*ImportBatch, error) {
	if len(rules) > math.MaxInt32 {
		return nil, Errorf(EINVALID, "%d rules are more than one import can hold", len(rules))
	}
	canonicalize(rules)
	b := &ImportBatch{Rules: rules, Keys: sortImportKeys(rules)}
	b.firstOf, b.repeats = findRepeats(b.Keys)
	b.validated = make(chan []string, 1) // buffered: an abandoned batch leaks nothing
	go func() {
		invalid := validateRules(rules, max(1, runtime.GOMAXPROCS(0)-1))
		for _, msg := range invalid {
			if msg != "" {
				b.failed.Store(true)
				break
			}
		}
		b.validated <- invalid
	}()
	return b, nil
}

// Rekey makes the batch compare its sources as settings s do
// (docs/contract.md#rule-options): each key's Source becomes the source's
// key (Settings.SourceKey), the keys are sorted again and the repeats found
// again, so that two rules that clash under s are repeats, and a store that
// compares stored keys with them finds the clashes and the rules an upsert
// updates. Under the default settings it changes nothing. A store calls it
// once it knows the project, before it reads Keys.
func (b *ImportBatch) Rekey(s Settings) {
	if s.IsDefault() {
		return
	}
	b.settings = s
	for i := range b.Keys {
		r := &b.Rules[b.Keys[i].Pos]
		b.Keys[i].Source = s.SourceKey(r.MatchType, r.Source)
	}
	slices.SortFunc(b.Keys, CompareImportKeys)
	b.firstOf, b.repeats = findRepeats(b.Keys)
}

// HasRepeats reports whether two rules of the batch have the same match
// type, source and host, which dooms the import.
func (b *ImportBatch) HasRepeats() bool { return b.repeats }

// Failed reports whether validation has already found an invalid rule, so
// that a store can stop inserting a batch that Err will reject. It does not
// wait: false means no problem yet.
func (b *ImportBatch) Failed() bool { return b.failed.Load() }

// Err waits for the validation and returns the one error that reports every
// problem of the import, one line "rule N: ..." per rule in the order of the
// batch with N its 1-based position, or nil. A rule has at most one problem:
// invalid, else a repeat of an earlier rule of the batch, else a clash with
// the stored rule whose ID clashes maps its position to. The code is
// ECONFLICT when every problem is a clash, EINVALID otherwise.
func (b *ImportBatch) Err(projectID string, clashes map[int32]StoredMatch) error {
	if b.invalid == nil {
		b.invalid = <-b.validated
	}
	invalid := b.invalid
	var sb strings.Builder
	code := ECONFLICT
	line := func(i int, kind, format string, args ...any) {
		if sb.Len() > 0 {
			sb.WriteByte('\n')
		}
		fmt.Fprintf(&sb, "rule %d: ", i+1)
		fmt.Fprintf(&sb, format, args...)
		if kind != ECONFLICT {
			code = EINVALID
		}
	}
	for i := range b.Rules {
		r := &b.Rules[i]
		if msg := invalid[i]; msg != "" {
			line(i, EINVALID, "%s", msg)
		} else if f := b.firstOf[i]; f >= 0 {
			if other := b.Rules[f].Source; other != r.Source {
				line(i, EINVALID, "a%s %s rule for source %q%s clashes with rule %d of this import (source %q): under %s their sources compare equal",
					article(r.MatchType), r.MatchType, r.Source, onHost(r), f+1, other, b.settings)
			} else {
				line(i, EINVALID, "a%s %s rule for source %q%s is already rule %d of this import", article(r.MatchType), r.MatchType, r.Source, onHost(r), f+1)
			}
		} else if m, ok := clashes[int32(i)]; ok {
			c := *r
			c.ProjectID = projectID
			// "rule ID", not "rule": callers rewrite "rule N" as a
			// position in the batch, and this N is a stored rule's ID.
			if m.Rule.Source != "" && m.Rule.Source != r.Source {
				line(i, ECONFLICT, "a%s %s rule for source %q%s clashes with the stored rule ID %d (source %q) in project %s: under %s their sources compare equal",
					article(r.MatchType), r.MatchType, r.Source, onHost(r), m.ID, m.Rule.Source, projectID, b.settings)
			} else {
				line(i, ECONFLICT, "%s (rule ID %d) with another destination, status code, priority or options; %s",
					ConflictMessage(&c), m.ID, AppendClashHint)
			}
		}
	}
	if sb.Len() == 0 {
		return nil
	}
	return &Error{Code: code, Message: sb.String()}
}

// ImportMode says what an import does with the project's draft.
type ImportMode string

// The import modes.
const (
	// ImportAppend adds the file's rules. A rule the draft already has as
	// it is (same match type, source, destination, status code, priority
	// and options) is counted unchanged, so that a file imported again
	// imports nothing; a rule whose match type and source the draft holds
	// with anything else fails the whole import, since updating it is
	// what ImportUpsert is for.
	ImportAppend ImportMode = "append"
	// ImportUpsert adds the file's new rules and gives the draft's rules
	// with the same match type and source the file's destination, status
	// code and priority (one more revision when that changes them).
	ImportUpsert ImportMode = "upsert"
	// ImportReplace replaces every draft rule by the file's.
	ImportReplace ImportMode = "replace"
)

// AppendClashHint ends the problem of an appended rule whose source the
// draft holds with another rule: the mode that updates it.
const AppendClashHint = "import with mode upsert to update it"

// ParseImportMode parses "append", "upsert" or "replace"; "" is append.
// Errors: EINVALID.
func ParseImportMode(s string) (ImportMode, error) {
	switch m := ImportMode(strings.ToLower(strings.TrimSpace(s))); m {
	case "":
		return ImportAppend, nil
	case ImportAppend, ImportUpsert, ImportReplace:
		return m, nil
	}
	return "", Errorf(EINVALID, "import mode %s is not one of append, upsert, replace", quoteShort(s))
}

// ImportOptions says how Store.Import treats the draft.
type ImportOptions struct {
	Mode ImportMode // "" is ImportAppend
	// DryRun computes the report and writes nothing, not even an audit
	// entry.
	DryRun bool
	// Expect, when set, holds per rule (same position) the destination the
	// draft's rule with its match type, host and source must still have:
	// otherwise, or when the draft lacks such a rule, the import fails with
	// ECONFLICT and writes nothing: a caller that read the draft in an
	// earlier transaction changes only the draft it read. (Flattening
	// chains reads and writes in one, Store.RewriteDraft.)
	Expect []string
	// Action is the audit action the import records: "" is
	// AuditRuleImport.
	Action string
}

// DraftRewrite derives, from project p and its draft (every draft rule, as
// Store.FindRules returns them), the rules that Store.RewriteDraft
// imports; none leaves the draft as it is.
type DraftRewrite func(p *Project, draft []Rule) ([]Rule, error)

// ImportReport says what an import did, or with DryRun would do, to the
// draft, by match type and source: Added rules are new, Updated ones got
// another destination, status code or priority, Unchanged ones were
// already as the file says, and Removed ones are draft rules that a
// replace drops. A replace gives every rule a new ID, yet counts as
// updated or unchanged the rules the file keeps.
type ImportReport struct {
	Mode      ImportMode
	DryRun    bool
	Added     int
	Updated   int
	Unchanged int
	Removed   int
	// UndoID, for an applied import (not a dry run), names its undo
	// record: Store.UndoImport puts the draft back as it was before the
	// import, until the draft changes again.
	UndoID int64
}

// MaxImportUndos is how many applied imports of a project keep an undo
// record: the latest ones.
const MaxImportUndos = 5

// StoredMatch is a stored draft rule whose match type and source a rule
// of an import batch has, with the fields an upsert may change.
type StoredMatch struct {
	ID int64
	// Rule is the stored rule (its source, under settings that are not
	// the default, may be spelt otherwise than the batch's); in an
	// update, the rule whose answer (every field but the key: match
	// type, host and source) the stored one takes.
	Rule Rule
	// Pos is the 0-based position in ImportBatch.Rules of the first rule
	// of the batch with the stored rule's key.
	Pos int32
}

// ImportTx is a store's write transaction as ImportInTx uses it. It holds,
// until it ends, whatever lock keeps other writers from storing a rule of
// the project between the clash check and the insert.
type ImportTx interface {
	// FindProject returns the project to import into. Errors: ENOTFOUND.
	FindProject(ctx context.Context, id string) (*Project, error)
	// FindStored returns the project's stored rules whose key the batch has
	// (each paired with the first rule of the batch with that key), in any
	// order, and how many rules the project stores in all.
	FindStored(ctx context.Context, projectID string, keys []ImportKey) ([]StoredMatch, int, error)
	// DeleteRules deletes every draft rule of the project.
	DeleteRules(ctx context.Context, projectID string) error
	// InsertRules stores the rules of the batch that keys name as draft
	// rules of the project, in the order of keys (a subsequence of
	// batch.Keys), each created at now. It may stop early once
	// batch.Failed reports true.
	InsertRules(ctx context.Context, projectID string, batch *ImportBatch, keys []ImportKey, now time.Time) error
	// UpdateRules gives each stored rule of the project named by a match's
	// ID the match's destination, status code and priority, and one more
	// revision.
	UpdateRules(ctx context.Context, projectID string, updates []StoredMatch) error
	// RecordAudit appends an audit entry in the transaction.
	RecordAudit(ctx context.Context, e *AuditEntry) error
	// CountRegexRules returns how many regex rules the project stores.
	CountRegexRules(ctx context.Context, projectID string) (int, error)
}

// ImportUndoTx is an ImportTx that keeps the undo record of an applied
// import (see Store.UndoImport): ImportInTx calls SaveImportUndo once the
// import's writes are made, before its audit entry, which names the
// record.
type ImportUndoTx interface {
	// SaveImportUndo stores the undo record of the import just written
	// into p's draft in mode, and returns its ID.
	SaveImportUndo(ctx context.Context, p *Project, mode ImportMode) (int64, error)
}

// ImportInTx is Store.Import inside a store's open write transaction tx,
// which the caller commits unless opts.DryRun (a dry run writes nothing,
// so the caller may commit or roll back), for a batch that NewImportBatch
// made before the transaction began (so that validation overlaps with
// waiting for it). Rules are written only when no clash or repeat dooms
// the import already, and the one error of every problem (see
// ImportBatch.Err) wins over a write's own failure. The import's audit
// entry is recorded in tx, with the actor in ctx.
func ImportInTx(ctx context.Context, tx ImportTx, projectID string, batch *ImportBatch, opts ImportOptions, now time.Time) (*ImportReport, error) {
	mode := opts.Mode
	if mode == "" {
		mode = ImportAppend
	}
	if _, err := ParseImportMode(string(mode)); err != nil {
		return nil, err
	}
	p, err := tx.FindProject(ctx, projectID)
	if err != nil {
		return nil, err
	}
	batch.Rekey(p.Settings)
	matches, stored, err := tx.FindStored(ctx, projectID, batch.Keys)
	if err != nil {
		return nil, err
	}
	rep := &ImportReport{Mode: mode, DryRun: opts.DryRun, Added: len(batch.Rules) - len(matches)}
	if opts.Expect != nil {
		if err := checkExpected(batch, matches, opts.Expect); err != nil {
			return nil, err
		}
	}
	var clashes map[int32]StoredMatch
	var updates []StoredMatch
	for _, m := range matches {
		r := &batch.Rules[m.Pos]
		same := sameAnswer(*r, m.Rule)
		if same && mode == ImportAppend && m.Rule.Source != "" && m.Rule.Source != r.Source {
			// An append does not respell a stored source: the two
			// spellings clash, as they did before.
			same = false
		}
		if same {
			rep.Unchanged++
			continue
		}
		rep.Updated++
		switch mode {
		case ImportAppend:
			if clashes == nil {
				clashes = make(map[int32]StoredMatch)
			}
			clashes[m.Pos] = m
		case ImportUpsert:
			updates = append(updates, StoredMatch{ID: m.ID, Rule: *r, Pos: m.Pos})
		}
	}
	if mode == ImportReplace {
		rep.Removed = stored - len(matches)
	}
	limitErr, err := importRegexLimit(ctx, tx, projectID, batch, mode, matches)
	if err != nil {
		return nil, err
	}
	var writeErr error
	if len(clashes) == 0 && !batch.HasRepeats() && limitErr == nil && !opts.DryRun {
		writeErr = writeImport(ctx, tx, projectID, batch, mode, matches, updates, now)
	}
	if err := batch.Err(projectID, clashes); err != nil {
		return nil, err
	}
	if limitErr != nil {
		return nil, limitErr
	}
	if writeErr != nil {
		return nil, writeErr
	}
	if opts.DryRun {
		return rep, nil
	}
	if u, ok := tx.(ImportUndoTx); ok {
		if rep.UndoID, err = u.SaveImportUndo(ctx, p, rep.Mode); err != nil {
			return nil, err
		}
	}
	e := ImportAuditEntry(ctx, now, p, len(batch.Rules), rep)
	if opts.Action != "" {
		e.Action = opts.Action
	}
	if err := tx.RecordAudit(ctx, e); err != nil {
		return nil, err
	}
	return rep, nil
}

// checkExpected is ImportOptions.Expect's check: every rule of the batch
// matches a stored rule whose destination is the expected one.
func checkExpected(batch *ImportBatch, matches []StoredMatch, expect []string) error {
	if len(expect) != len(batch.Rules) {
		return Errorf(EINVALID, "%d expected destinations for %d rules", len(expect), len(batch.Rules))
	}
	if len(matches) != len(batch.Rules) {
		return Errorf(ECONFLICT, "the draft changed since it was read: %d of its rules are gone", len(batch.Rules)-len(matches))
	}
	for _, m := range matches {
		if m.Rule.Destination != expect[m.Pos] {
			r := &batch.Rules[m.Pos]
			return Errorf(ECONFLICT, "the draft changed since it was read: the rule with source %s now redirects to %s", quoteShort(r.Source), quoteShort(m.Rule.Destination))
		}
	}
	return nil
}

// importRegexLimit returns, as limitErr, the refusal of an import that would
// leave the project with more than MaxRegexRules regex rules: the batch's
// for a replace, else the stored ones and the batch's that the draft does
// not hold yet. err is a failure to count them.
func importRegexLimit(ctx context.Context, tx ImportTx, projectID string, batch *ImportBatch, mode ImportMode, matches []StoredMatch) (limitErr, err error) {
	n := CountRegex(batch.Rules)
	if n == 0 {
		return nil, nil
	}
	if mode != ImportReplace {
		stored, err := tx.CountRegexRules(ctx, projectID)
		if err != nil {
			return nil, err
		}
		for _, m := range matches {
			if batch.Rules[m.Pos].MatchType == Regex {
				n--
			}
		}
		n += stored
	}
	return CheckRegexLimit(n), nil
}

// writeImport makes the writes of an import that nothing dooms.
func writeImport(ctx context.Context, tx ImportTx, projectID string, batch *ImportBatch, mode ImportMode, matches, updates []StoredMatch, now time.Time) error {
	keys := batch.Keys
	switch mode {
	case ImportReplace:
		if err := tx.DeleteRules(ctx, projectID); err != nil {
			return err
		}
	case ImportAppend, ImportUpsert:
		if len(matches) > 0 {
			// Only the rules the draft lacks are inserted, still in
			// index order (an append that gets here has only
			// unchanged matches).
			matched := make([]bool, len(batch.Rules))
			for _, m := range matches {
				matched[m.Pos] = true
			}
			keys = make([]ImportKey, 0, len(batch.Keys)-len(matches))
			for _, k := range batch.Keys {
				if !matched[k.Pos] {
					keys = append(keys, k)
				}
			}
		}
		if len(updates) > 0 {
			if err := tx.UpdateRules(ctx, projectID, updates); err != nil {
				return err
			}
		}
	}
	return tx.InsertRules(ctx, projectID, batch, keys, now)
}

// ConflictMessage says that r's match type, source and host are taken by a
// stored rule of r's project.
func ConflictMessage(r *Rule) string {
	return fmt.Sprintf("a%s %s rule for source %q%s already exists in project %s",
		article(r.MatchType), r.MatchType, r.Source, onHost(r), r.ProjectID)
}

// KeyConflictMessage says that r clashes under settings s with the stored
// rule id whose source is other (docs/contract.md#rule-options).
func KeyConflictMessage(r *Rule, s Settings, id int64, other string) string {
	return fmt.Sprintf("a%s %s rule for source %q%s clashes with rule %d (source %q) in project %s: under %s their sources compare equal",
		article(r.MatchType), r.MatchType, r.Source, onHost(r), id, other, r.ProjectID, s)
}

// onHost names r's host for a message about r, or says nothing of a
// host-less rule, whose messages stay as they were before hosts.
func onHost(r *Rule) string {
	if r.Host == "" {
		return ""
	}
	return " on host " + r.Host
}

func article(m MatchType) string {
	if m == Exact {
		return "n"
	}
	return ""
}

// sortImportKeys returns the keys of rules in index order. The two halves
// sort in parallel and are then merged.
func sortImportKeys(rules []Rule) []ImportKey {
	keys := make([]ImportKey, len(rules))
	for i := range rules {
		keys[i] = ImportKey{Source: rules[i].Source, Host: rules[i].Host, Pos: int32(i), Match: rules[i].MatchType}
	}
	if len(keys) < 10_000 {
		slices.SortFunc(keys, CompareImportKeys)
		return keys
	}
	a, b := keys[:len(keys)/2], keys[len(keys)/2:]
	var wg sync.WaitGroup
	wg.Go(func() { slices.SortFunc(a, CompareImportKeys) })
	slices.SortFunc(b, CompareImportKeys)
	wg.Wait()
	out := make([]ImportKey, 0, len(keys))
	for len(a) > 0 && len(b) > 0 {
		if CompareImportKeys(a[0], b[0]) <= 0 {
			out, a = append(out, a[0]), a[1:]
		} else {
			out, b = append(out, b[0]), b[1:]
		}
	}
	return append(append(out, a...), b...)
}

// findRepeats returns, for each position of the batch, the position of the
// earlier rule with the same match type, source and host, or -1, and
// whether there is any.
func findRepeats(keys []ImportKey) (firstOf []int32, found bool) {
	firstOf = make([]int32, len(keys))
	for k, key := range keys {
		firstOf[key.Pos] = -1
		if k > 0 && keys[k-1].SameRule(key) {
			// Equal keys are adjacent, earliest first.
			first := keys[k-1].Pos
			if f := firstOf[first]; f >= 0 {
				first = f
			}
			firstOf[key.Pos] = first
			found = true
		}
	}
	return firstOf, found
}

// canonicalize puts each source and host of rules in the form Validate
// stores (Rule.canonicalize), so that repeats and clashes are found between
// the forms that are stored, and Validate, which runs concurrently with the
// store's inserts, finds nothing left to rewrite. A source or host that
// cannot be put in that form is left for Validate to report.
func canonicalize(rules []Rule) {
	for i := range rules {
		rules[i].canonicalize()
	}
}

// validateRules validates every rule with the given number of goroutines
// and returns each rule's problem, or "".
func validateRules(rules []Rule, workers int) []string {
	invalid := make([]string, len(rules))
	workers = min(workers, max(1, len(rules)/10_000))
	chunk := (len(rules) + workers - 1) / workers
	var wg sync.WaitGroup
	for lo := 0; lo < len(rules); lo += chunk {
		hi := min(lo+chunk, len(rules))
		wg.Go(func() {
			for i := lo; i < hi; i++ {
				if err := rules[i].Validate(); err != nil {
					invalid[i] = ErrorMessage(err)
				}
			}
		})
	}
	wg.Wait()
	return invalid
}

// sameAnswer reports whether a and b answer alike: every field equal but
// the key (match type, host and source) and the row's own (ID, project,
// revision, creation time), so that a field added to Rule is compared
// without a word here.
func sameAnswer(a, b Rule) bool {
	for _, r := range []*Rule{&a, &b} {
		r.ID, r.ProjectID, r.Revision, r.CreatedAt = 0, "", 0, time.Time{}
		r.MatchType, r.Host, r.Source = Exact, "", ""
	}
	return a.Equal(&b)
}
