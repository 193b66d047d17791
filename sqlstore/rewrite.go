package sqlstore

import (
	"context"
	"slices"

	"redirects"
	"redirects/engine"
)

// RewriteDraft imports the rules that rewrite derives from the draft, in
// one transaction (see redirects.Store.RewriteDraft). The draft is read
// once, under the locks an import takes: that one scan gives rewrite its
// rules and gives the undo record its snapshot and digest, and the stored
// rules the batch matches are found among the rules read, so the import
// reads no rule again (Import scans the draft for its undo record on top
// of the caller's own read, and reads its matches back by ID).
func (db *DB) RewriteDraft(ctx context.Context, projectID string, rewrite redirects.DraftRewrite, opts redirects.ImportOptions) (*redirects.ImportReport, error) {
	const op = "import rules"
	if opts.Expect != nil {
		return nil, redirects.Errorf(redirects.EINVALID, "a rewrite of the draft takes no expected destinations: it reads the draft in the transaction that writes it")
	}
	if opts.Mode == "" {
		opts.Mode = redirects.ImportAppend
	}
	if _, err := redirects.ParseImportMode(string(opts.Mode)); err != nil {
		return nil, err
	}
	tx, err := db.beginWrite(ctx, op)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	itx := importTx{db: db, tx: tx}
	p, err := itx.FindProject(ctx, projectID)
	if err != nil {
		return nil, err
	}
	d, err := db.readDraft(ctx, tx, projectID)
	if err != nil {
		return nil, db.wrap(op, err)
	}
	// rewrite sees the rules as FindRules returns them, without their
	// revisions, which the undo record's digest needs back afterwards.
	revisions := make([]int64, len(d.rules))
	for i := range d.rules {
		revisions[i], d.rules[i].Revision = d.rules[i].Revision, 0
	}
	rules, err := rewrite(p, d.rules)
	for i := range d.rules {
		d.rules[i].Revision = revisions[i]
	}
	if err != nil {
		return nil, err
	}
	if len(rules) == 0 {
		return &redirects.ImportReport{Mode: opts.Mode, DryRun: opts.DryRun}, nil
	}
	batch, err := redirects.NewImportBatch(rules)
	if err != nil {
		return nil, err
	}
	batch.Rekey(p.Settings)
	itx.before = d.snapshot(p.Settings, batch)
	rep, err := redirects.ImportInTx(ctx, itx, projectID, batch, opts, db.now())
	if err != nil {
		return nil, err
	}
	if opts.DryRun {
		return rep, nil
	}
	if err := tx.Commit(); err != nil {
		return nil, db.wrap(op, err)
	}
	return rep, nil
}

// readDraft is a project's draft read once for RewriteDraft: its rules,
// sorted as FindRules sorts them, with their revisions, and the undo
// record's encoding and digest of them.
type readDraft struct {
	rules  []redirects.Rule
	data   []byte
	digest draftDigest
}

// readDraft reads every draft rule of the project in one scan, encoding
// each for the undo record (draftEncoder) and adding it to the digest as
// it comes.
func (db *DB) readDraft(ctx context.Context, q querier, projectID string) (*readDraft, error) {
	n := db.ruleCountHint(ctx, q, projectID)
	d := &readDraft{rules: make([]redirects.Rule, 0, n)}
	rows, err := q.QueryContext(ctx, `SELECT id, revision, `+RuleSelect("")+` FROM rules WHERE project_id = $1`, projectID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var (
		enc draftEncoder
		row []byte
		w   = &RuleRow{Rule: redirects.Rule{ProjectID: projectID}}
	)
	dests := w.Dests(&w.Rule.ID, &w.Rule.Revision)
	for rows.Next() {
		if err := rows.Scan(dests...); err != nil {
			return nil, err
		}
		w.Done()
		row = appendRule(row[:0], &w.Rule, w.created)
		enc.add(row, flagsOf(w.Rule.MatchType, w.Rule.PreservePath, w.Rule.PreserveQuery, w.Rule.Host != "" || len(w.Rule.ExceptHosts) > 0, w.Rule.QueryAfterFragment, w.Rule.MergeQuery), len(w.Rule.ExceptHosts) > 0)
		d.digest.addSum(rowSum(row))
		d.rules = append(d.rules, w.Rule)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	rows.Close()
	d.data = enc.compressed()
	engine.SortRules(d.rules)
	return d, nil
}

// snapshot returns the draft as the undo record of an import of batch
// (its keys sorted and rekeyed to settings s) keeps it, with the stored
// rules the batch's keys match, found among the rules read as FindStored
// finds them in the database: the key it compares is the match_key that
// settings s store (matchKey), or the source.
func (d *readDraft) snapshot(s redirects.Settings, batch *redirects.ImportBatch) *draftSnapshot {
	if snap := d.snapshotByID(s, batch); snap != nil {
		return snap
	}
	snap := d.newSnapshot(batch.Keys)
	for i := range d.rules {
		stored := d.key(s, i)
		k, _ := slices.BinarySearchFunc(batch.Keys, stored, redirects.CompareImportKeys)
		if k < len(batch.Keys) && batch.Keys[k].SameRule(stored) {
			snap.match(&d.rules[i], batch.Keys[k].Pos)
		}
	}
	return snap
}

// snapshotByID is snapshot for a batch whose every rule names, by its ID,
// a stored rule with its key, as a rewrite of draft rules does: a stored
// key is held by one rule only, so those are the rules the batch matches,
// found by ID without a search of the batch per stored rule. It returns
// nil for any other batch.
func (d *readDraft) snapshotByID(s redirects.Settings, batch *redirects.ImportBatch) *draftSnapshot {
	keyAt := make(map[int64]int32, len(batch.Keys)) // a rule's ID: its index in batch.Keys
	for k, key := range batch.Keys {
		id := batch.Rules[key.Pos].ID
		if _, dup := keyAt[id]; id <= 0 || dup {
			return nil
		}
		keyAt[id] = int32(k)
	}
	snap := d.newSnapshot(batch.Keys)
	for i := range d.rules {
		k, ok := keyAt[d.rules[i].ID]
		if !ok {
			continue
		}
		if !batch.Keys[k].SameRule(d.key(s, i)) {
			return nil
		}
		snap.match(&d.rules[i], batch.Keys[k].Pos)
	}
	if len(snap.matches) != len(batch.Keys) {
		return nil // a rule the batch names is gone: another may hold its key
	}
	return snap
}

// newSnapshot returns the snapshot of the draft read, for an import of a
// batch whose keys are keys, before its matches are found.
func (d *readDraft) newSnapshot(keys []redirects.ImportKey) *draftSnapshot {
	return &draftSnapshot{data: d.data, rules: len(d.rules), after: d.digest, keys: keys,
		found: map[int64]storedShare{}, matched: true}
}

// key returns the key an import compares the i-th rule read with under
// settings s (see snapshot), at position -1: before every batch key of
// the same rule.
func (d *readDraft) key(s redirects.Settings, i int) redirects.ImportKey {
	r := &d.rules[i]
	key := r.Source
	if !s.IsDefault() {
		key = s.SourceKey(r.MatchType, r.Source)
	}
	return redirects.ImportKey{Match: r.MatchType, Source: key, Host: r.Host, Pos: -1}
}

// match records that the stored rule r matches the batch's rule at pos:
// FindStored's match, and, unless too many are kept already, its share of
// the digest and what an update keeps of it (storedShare).
func (snap *draftSnapshot) match(r *redirects.Rule, pos int32) {
	m := redirects.StoredMatch{ID: r.ID, Rule: *r, Pos: pos}
	m.Rule.Revision = 0
	snap.matches = append(snap.matches, m)
	if snap.found == nil {
		return
	}
	created := r.CreatedAt.UnixNano()
	hi, lo := rowSum(appendRule(nil, r, created))
	snap.found[r.ID] = storedShare{pos: pos, hi: hi, lo: lo, matchType: r.MatchType,
		host: r.Host, source: r.Source, created: created, rev: r.Revision}
	if len(snap.found) > sparseStored {
		// UpdateRules then digests the whole draft again (see
		// sparseStored).
		snap.found = nil
	}
}
