package postgres

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/jackc/pgx/v5"

	"redirects"
)

// ImportRules stores rules as draft rules of projectID, all or nothing, and
// returns how many it stored. With replace, they replace every draft rule of
// the project (an empty slice then clears the draft). The rules' ID,
// ProjectID and CreatedAt are ignored and rules itself is left unchanged:
// every stored rule gets the clock's time and a new ID from the rules
// sequence. The new IDs follow the order of (match type, source), not the
// order of rules; IDs never decide which rule a lookup picks, since two
// prefix sources of one path that have the same length are the same source.
//
// On failure, nothing changes and the error's message lists every problem,
// one per line, each line "rule N: ..." with N the rule's 1-based position
// in rules, so a caller can translate positions to line numbers. A rule is
// invalid, or repeats the match type and source of an earlier rule of the
// batch (naming it), or clashes with a stored rule (without replace). The
// code is ECONFLICT when every problem is a clash, EINVALID otherwise.
//
// Repeats within the batch are found in Go on the sorted batch; clashes by
// looking each of the project's stored rules up in it. The
// rows go in with COPY, in index order, so the UNIQUE index grows at its
// end. Validation runs in the background meanwhile, and a problem stops the
// COPY and rolls the transaction back.
func (db *DB) ImportRules(ctx context.Context, projectID string, rules []redirects.Rule, replace bool) (int, error) {
	const op = "import rules"
	if len(rules) > math.MaxInt32 {
		return 0, redirects.Errorf(redirects.EINVALID, "%d rules are more than one import can hold", len(rules))
	}
	keys := sortBatch(rules)
	firstOf := findRepeats(keys)

	// Validation runs beside the database work. A problem stops the COPY
	// early.
	var failed atomic.Bool
	validated := make(chan []string, 1) // buffered: an early return leaks nothing
	go func() {
		invalid := validateBatch(rules, max(1, runtime.GOMAXPROCS(0)-1))
		for _, msg := range invalid {
			if msg != "" {
				failed.Store(true)
				break
			}
		}
		validated <- invalid
	}()

	tx, err := db.beginWrite(ctx, op)
	if err != nil {
		return 0, err
	}
	defer tx.Rollback(ctx)

	// FOR KEY SHARE stands in for the foreign key that rules lacks (see
	// the schema): the project cannot be deleted until this commits.
	if _, err := findProject(ctx, tx, projectID, "FOR KEY SHARE"); err != nil {
		return 0, err
	}
	// The draft lock keeps another import or AddRule from storing a rule
	// between the clash check and the COPY.
	if err := lockDraft(ctx, tx, projectID); err != nil {
		return 0, wrap(op, err)
	}
	var clashes map[int32]int64
	if !replace {
		if clashes, err = findClashes(ctx, tx, projectID, keys); err != nil {
			return 0, wrap(op, err)
		}
	}
	var insertErr error
	if len(clashes) == 0 && !hasRepeats(firstOf) {
		if replace {
			if _, err := tx.Exec(ctx, `DELETE FROM rules WHERE project_id = $1`, projectID); err != nil {
				return 0, wrap(op, err)
			}
		}
		insertErr = copyRules(ctx, tx, projectID, rules, keys, db.now().UnixNano(), &failed)
	}
	invalid := <-validated
	if err := importError(rules, projectID, invalid, firstOf, clashes); err != nil {
		return 0, err
	}
	if insertErr != nil {
		return 0, wrap(op, insertErr)
	}
	if err := tx.Commit(ctx); err != nil {
		return 0, wrap(op, err)
	}
	return len(rules), nil
}

// batchKey is a rule of a batch by its place in the rules table's UNIQUE
// index: match type, then source bytes (the "C" collation is Go's string
// order, and 'exact' < 'starts_with' as Exact < StartsWith), then position
// in the batch.
type batchKey struct {
	source string
	pos    int32
	match  redirects.MatchType
}

func compareBatchKeys(a, b batchKey) int {
	if c := cmp.Compare(a.match, b.match); c != 0 {
		return c
	}
	if c := strings.Compare(a.source, b.source); c != 0 {
		return c
	}
	return cmp.Compare(a.pos, b.pos)
}

func sameRule(a, b batchKey) bool { return a.match == b.match && a.source == b.source }

// sortBatch returns the keys of rules in index order. The two halves sort
// in parallel and are then merged.
func sortBatch(rules []redirects.Rule) []batchKey {
	keys := make([]batchKey, len(rules))
	for i := range rules {
		keys[i] = batchKey{source: rules[i].Source, pos: int32(i), match: rules[i].MatchType}
	}
	if len(keys) < 10_000 {
		slices.SortFunc(keys, compareBatchKeys)
		return keys
	}
	a, b := keys[:len(keys)/2], keys[len(keys)/2:]
	var wg sync.WaitGroup
	wg.Go(func() { slices.SortFunc(a, compareBatchKeys) })
	slices.SortFunc(b, compareBatchKeys)
	wg.Wait()
	out := make([]batchKey, 0, len(keys))
	for len(a) > 0 && len(b) > 0 {
		if compareBatchKeys(a[0], b[0]) <= 0 {
			out, a = append(out, a[0]), a[1:]
		} else {
			out, b = append(out, b[0]), b[1:]
		}
	}
	return append(append(out, a...), b...)
}

// findRepeats returns, for each position of the batch, the position of the
// earlier rule with the same match type and source, or -1.
func findRepeats(keys []batchKey) []int32 {
	firstOf := make([]int32, len(keys))
	for k, key := range keys {
		firstOf[key.pos] = -1
		if k > 0 && sameRule(keys[k-1], key) {
			// Equal keys are adjacent, earliest first.
			first := keys[k-1].pos
			if f := firstOf[first]; f >= 0 {
				first = f
			}
			firstOf[key.pos] = first
		}
	}
	return firstOf
}

func hasRepeats(firstOf []int32) bool {
	for _, f := range firstOf {
		if f >= 0 {
			return true
		}
	}
	return false
}

// validateBatch validates every rule with the given number of goroutines
// and returns each rule's problem, or "".
func validateBatch(rules []redirects.Rule, workers int) []string {
	invalid := make([]string, len(rules))
	workers = min(workers, max(1, len(rules)/10_000))
	chunk := (len(rules) + workers - 1) / workers
	var wg sync.WaitGroup
	for lo := 0; lo < len(rules); lo += chunk {
		hi := min(lo+chunk, len(rules))
		wg.Go(func() {
			for i := lo; i < hi; i++ {
				if err := rules[i].Validate(); err != nil {
					invalid[i] = redirects.ErrorMessage(err)
				}
			}
		})
	}
	wg.Wait()
	return invalid
}

// findClashes returns, for the first rule of the batch with each key that a
// stored rule of the project has, that stored rule's ID. It looks each
// stored rule up in the sorted batch, so the stored rules may come in any
// order (see findRules for why they are not sorted by the database).
func findClashes(ctx context.Context, tx pgx.Tx, projectID string, keys []batchKey) (map[int32]int64, error) {
	if len(keys) == 0 {
		return nil, nil
	}
	rows, err := tx.Query(ctx, `SELECT id, match_type = 'starts_with', source FROM rules WHERE project_id = $1`, projectID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var (
		clashes map[int32]int64
		id      int64
		prefix  bool
		stored  = batchKey{pos: -1} // before every batch key with the same rule
	)
	for rows.Next() {
		if err := rows.Scan(&id, &prefix, &stored.source); err != nil {
			return nil, err
		}
		stored.match = redirects.Exact
		if prefix {
			stored.match = redirects.StartsWith
		}
		k, _ := slices.BinarySearchFunc(keys, stored, compareBatchKeys)
		if k < len(keys) && sameRule(keys[k], stored) {
			if clashes == nil {
				clashes = make(map[int32]int64)
			}
			clashes[keys[k].pos] = id
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return clashes, nil
}

// importError returns the one error that reports every problem of an
// import, one line per rule in the order of the batch, or nil. A rule has at
// most one problem: invalid, else a repeat, else a clash.
func importError(rules []redirects.Rule, projectID string, invalid []string, firstOf []int32, clashes map[int32]int64) error {
	var b strings.Builder
	code := redirects.ECONFLICT
	line := func(i int, kind, format string, args ...any) {
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "rule %d: ", i+1)
		fmt.Fprintf(&b, format, args...)
		if kind != redirects.ECONFLICT {
			code = redirects.EINVALID
		}
	}
	for i := range rules {
		r := &rules[i]
		if msg := invalid[i]; msg != "" {
			line(i, redirects.EINVALID, "%s", msg)
		} else if f := firstOf[i]; f >= 0 {
			line(i, redirects.EINVALID, "a%s %s rule for source %q is already rule %d of this import", article(r.MatchType), r.MatchType, r.Source, f+1)
		} else if id, ok := clashes[int32(i)]; ok {
			c := *r
			c.ProjectID = projectID
			// "rule ID", not "rule": callers rewrite "rule N" as a
			// position in the batch, and this N is a stored rule's ID.
			line(i, redirects.ECONFLICT, "%s (rule ID %d)", conflictMessage(&c), id)
		}
	}
	if b.Len() == 0 {
		return nil
	}
	return &redirects.Error{Code: code, Message: b.String()}
}

// errStopped ends a COPY that validation has already doomed.
var errStopped = errors.New("stopped: the batch has invalid rules")

// copyRules stores the rules with COPY, in index order (keys), so the rules
// table's UNIQUE index grows at one end instead of at random places; the
// ID sequence numbers them in the same order. It stops with errStopped
// once stop is set.
func copyRules(ctx context.Context, tx pgx.Tx, projectID string, rules []redirects.Rule, keys []batchKey, now int64, stop *atomic.Bool) error {
	if len(keys) == 0 {
		return nil
	}
	src := &ruleSource{projectID: projectID, rules: rules, keys: keys, now: now, stop: stop, k: -1}
	_, err := tx.CopyFrom(ctx, pgx.Identifier{"rules"},
		[]string{"project_id", "match_type", "source", "destination", "status_code", "priority", "created_at"}, src)
	return err
}

// ruleSource is the pgx.CopyFromSource of copyRules. Values reuses one
// slice: pgx encodes a row before it asks for the next.
type ruleSource struct {
	projectID string
	rules     []redirects.Rule
	keys      []batchKey
	now       int64
	stop      *atomic.Bool
	k         int
	row       [7]any
	err       error
}

func (s *ruleSource) Next() bool {
	s.k++
	if s.k%1024 == 0 && s.stop.Load() {
		s.err = errStopped
		return false
	}
	return s.k < len(s.keys)
}

func (s *ruleSource) Values() ([]any, error) {
	r := &s.rules[s.keys[s.k].pos]
	s.row = [7]any{s.projectID, r.MatchType.String(), r.Source, r.Destination, r.StatusCode, r.Priority, s.now}
	return s.row[:], nil
}

func (s *ruleSource) Err() error { return s.err }
