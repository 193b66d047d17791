package sqlstore

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"redirects"
	"redirects/internal/coding"
)

// An applied import keeps, in its transaction, the draft as it was before
// (every rule with its ID, options, priority, revision and creation time)
// and the digest of the draft right after it; UndoImport puts the draft
// back while its digest is still that one (docs/migrate.md#importing).

// draftRow is a stored draft rule as an undo record keeps it: every column
// that makes the rule what it is, raw.
type draftRow struct {
	id            int64
	matchType     redirects.MatchType
	host          []byte
	source        []byte
	destination   []byte
	status        int64
	priority      int64
	created       int64
	revision      int64
	preservePath  bool
	preserveQuery bool
	// queryAfterFragment is the rule's queryAfterFragment.
	queryAfterFragment bool
	// mergeQuery is the rule's mergeQuery.
	mergeQuery bool
	// exceptHosts is the rule's exceptHosts as its column stores it
	// (JoinHosts), empty for none.
	exceptHosts []byte
}

// draftEncoding is the first byte of an encoded draft: the version of the
// encoding below. Version 2 is written when a rule has a flag of
// draftExtended, which version 1 does not know, so that a node that reads
// only version 1 refuses the record instead of misreading it; a draft
// without such rules is encoded exactly as before. Version 3 is written when
// a rule has queryAfterFragment (draftQueryAfterFragment), which versions 1
// and 2 do not know. Version 4 is written when a rule has mergeQuery
// (draftMergeQuery), which versions 1 to 3 do not know. Version 5 is
// written when a rule has exceptHosts: such a rule (it has no host) is
// written with the draftHost flag and, in the host's place, a space and
// its exceptHosts as their column stores them (JoinHosts); a host key
// never starts with a space, and no flag bit is spent on it.
const (
	draftEncoding                   = 1
	draftEncodingExtended           = 2
	draftEncodingQueryAfterFragment = 3
	draftEncodingMergeQuery         = 4
	draftEncodingExceptHosts        = 5
	draftEncodingNewest             = draftEncodingExceptHosts
)

// The flags byte of a rule in the draft encoding.
const (
	draftStartsWith    = 1
	draftPreservePath  = 2
	draftPreserveQuery = 4
	draftPattern       = 8
	draftRegex         = 16
	draftHost          = 32 // the host follows the destination
	draftExtended      = draftPattern | draftRegex | draftHost
	draftFlags         = draftStartsWith | draftPreservePath | draftPreserveQuery | draftExtended
	// draftQueryAfterFragment is the rule's queryAfterFragment, known to
	// version 3 only.
	draftQueryAfterFragment = 64
	// draftMergeQuery is the rule's mergeQuery, known to version 4 only.
	draftMergeQuery = 128
)

// rowFlags returns the flags byte of r.
func rowFlags(r *draftRow) byte {
	return flagsOf(r.matchType, r.preservePath, r.preserveQuery, len(r.host) > 0 || len(r.exceptHosts) > 0, r.queryAfterFragment, r.mergeQuery)
}

// flagsOf returns the flags byte of a rule of match type mt, with its
// options and with or without a host (or exceptHosts, which take the
// host's place).
func flagsOf(mt redirects.MatchType, preservePath, preserveQuery, host, queryAfterFragment, mergeQuery bool) byte {
	var flags byte
	switch mt {
	case redirects.StartsWith:
		flags |= draftStartsWith
	case redirects.Pattern:
		flags |= draftPattern
	case redirects.Regex:
		flags |= draftRegex
	}
	if preservePath {
		flags |= draftPreservePath
	}
	if preserveQuery {
		flags |= draftPreserveQuery
	}
	if host {
		flags |= draftHost
	}
	if queryAfterFragment {
		flags |= draftQueryAfterFragment
	}
	if mergeQuery {
		flags |= draftMergeQuery
	}
	return flags
}

// appendRow appends r in the draft encoding: the ID, a flags byte, the
// source and destination with their lengths (and the host likewise, when
// the flags say so), status, priority, creation time and revision, as
// varints.
func appendRow(b []byte, r *draftRow) []byte {
	return appendFieldsOf(b, r.id, rowFlags(r), r.source, r.destination, r.host, r.exceptHosts, r.status, r.priority, r.created, r.revision)
}

// appendRule is appendRow of a rule as a scan (RuleRow) reads it, with
// its creation time in unix nanoseconds: the rule's strings are encoded
// as they are, not copied into a draftRow first.
func appendRule(b []byte, r *redirects.Rule, created int64) []byte {
	flags := flagsOf(r.MatchType, r.PreservePath, r.PreserveQuery, r.Host != "" || len(r.ExceptHosts) > 0, r.QueryAfterFragment, r.MergeQuery)
	return appendFieldsOf(b, r.ID, flags, r.Source, r.Destination, r.Host, JoinHosts(r.ExceptHosts), int64(r.StatusCode), int64(r.Priority), created, r.Revision)
}

// appendFieldsOf is the draft encoding of one rule's fields (see
// appendRow), its text as strings or bytes.
func appendFieldsOf[T string | []byte, E string | []byte](b []byte, id int64, flags byte, source, destination, host T, except E, status, priority, created, revision int64) []byte {
	b = binary.AppendUvarint(b, uint64(id))
	b = append(b, flags)
	b = binary.AppendUvarint(b, uint64(len(source)))
	b = append(b, source...)
	b = binary.AppendUvarint(b, uint64(len(destination)))
	b = append(b, destination...)
	switch {
	case len(except) > 0:
		b = binary.AppendUvarint(b, uint64(1+len(except)))
		b = append(b, ' ')
		b = append(b, except...)
	case flags&draftHost != 0:
		b = binary.AppendUvarint(b, uint64(len(host)))
		b = append(b, host...)
	}
	b = binary.AppendUvarint(b, uint64(status))
	b = binary.AppendVarint(b, priority)
	b = binary.AppendVarint(b, created)
	return binary.AppendUvarint(b, uint64(revision))
}

// decodeRows reads an encoded draft back.
func decodeRows(b []byte) ([]draftRow, error) {
	if len(b) == 0 || b[0] < draftEncoding || b[0] > draftEncodingNewest {
		return nil, errors.New("undo record: unknown draft encoding (written by a newer redirects?)")
	}
	known := byte(draftFlags &^ draftExtended)
	switch b[0] {
	case draftEncodingExtended:
		known = draftFlags
	case draftEncodingQueryAfterFragment:
		known = draftFlags | draftQueryAfterFragment
	case draftEncodingMergeQuery, draftEncodingExceptHosts:
		known = draftFlags | draftQueryAfterFragment | draftMergeQuery
	}
	exceptHosts := b[0] >= draftEncodingExceptHosts
	b = b[1:]
	bad := errors.New("undo record: the draft encoding is cut short")
	uv := func() uint64 {
		v, n := binary.Uvarint(b)
		if n <= 0 {
			b = nil
			return 0
		}
		b = b[n:]
		return v
	}
	sv := func() int64 {
		v, n := binary.Varint(b)
		if n <= 0 {
			b = nil
			return 0
		}
		b = b[n:]
		return v
	}
	bytesOf := func() []byte {
		n := uv()
		if b == nil || uint64(len(b)) < n {
			b = nil
			return nil
		}
		s := b[:n:n]
		b = b[n:]
		return s
	}
	var out []draftRow
	for len(b) > 0 {
		var r draftRow
		r.id = int64(uv())
		if len(b) == 0 {
			return nil, bad
		}
		flags := b[0]
		b = b[1:]
		if flags&^known != 0 {
			return nil, errors.New("undo record: a rule's flags are unknown to this draft encoding")
		}
		switch {
		case flags&draftStartsWith != 0:
			r.matchType = redirects.StartsWith
		case flags&draftPattern != 0:
			r.matchType = redirects.Pattern
		case flags&draftRegex != 0:
			r.matchType = redirects.Regex
		}
		r.preservePath, r.preserveQuery = flags&draftPreservePath != 0, flags&draftPreserveQuery != 0
		r.queryAfterFragment = flags&draftQueryAfterFragment != 0
		r.mergeQuery = flags&draftMergeQuery != 0
		r.source = bytesOf()
		r.destination = bytesOf()
		if flags&draftHost != 0 {
			r.host = bytesOf()
			if len(r.host) > 0 && r.host[0] == ' ' {
				if !exceptHosts {
					return nil, errors.New("undo record: a rule's exceptHosts are unknown to this draft encoding")
				}
				r.host, r.exceptHosts = nil, r.host[1:]
			}
		}
		r.status = int64(uv())
		r.priority = sv()
		r.created = sv()
		r.revision = int64(uv())
		if b == nil {
			return nil, bad
		}
		out = append(out, r)
	}
	return out, nil
}

// draftDigest is an order-independent digest of a draft: the sum, modulo
// 2^128, of the SHA-256 (first 16 bytes) of each rule's encoding, with the
// number of rules and the project's settings. Any change to a rule (its
// revision grows), a rule deleted or added (even one with the same source
// again, which gets a new ID), or a change of settings changes it.
type draftDigest struct {
	hi, lo uint64
	n      uint64
	buf    []byte
}

func (d *draftDigest) add(r *draftRow) {
	d.buf = appendRow(d.buf[:0], r)
	d.addSum(rowSum(d.buf))
}

// remove takes back the rule r that add added: the digest is then that of
// the other rules (the sum is modulo 2^128).
func (d *draftDigest) remove(r *draftRow) {
	d.buf = appendRow(d.buf[:0], r)
	d.removeSum(rowSum(d.buf))
}

// rowSum is a rule's share of the digest: the first 16 bytes of the
// SHA-256 of its encoding enc (appendRow).
func rowSum(enc []byte) (hi, lo uint64) {
	h := sha256.Sum256(enc)
	return binary.BigEndian.Uint64(h[:8]), binary.BigEndian.Uint64(h[8:16])
}

// addSum adds a rule whose share is hi, lo.
func (d *draftDigest) addSum(hi, lo uint64) {
	var carry uint64
	d.lo, carry = d.lo+lo, 0
	if d.lo < lo {
		carry = 1
	}
	d.hi += hi + carry
	d.n++
}

// removeSum takes back a rule whose share is hi, lo.
func (d *draftDigest) removeSum(hi, lo uint64) {
	var borrow uint64
	if d.lo < lo {
		borrow = 1
	}
	d.lo -= lo
	d.hi -= hi + borrow
	d.n--
}

// sum returns the digest of the rules added, under settings s.
func (d *draftDigest) sum(s redirects.Settings) []byte {
	b := make([]byte, 0, 26)
	b = binary.BigEndian.AppendUint64(b, d.hi)
	b = binary.BigEndian.AppendUint64(b, d.lo)
	b = binary.BigEndian.AppendUint64(b, d.n)
	var f byte
	if s.CaseInsensitive {
		f |= 1
	}
	if s.IgnoreTrailingSlash {
		f |= 2
	}
	return append(b, draftEncoding, f)
}

// scanDraft calls fn with every draft rule of a project, in no order; the
// row and its byte slices are reused between calls (the text columns are
// read as sql.RawBytes, not copied: a million-rule scan allocates nothing
// per row).
func (db *DB) scanDraft(ctx context.Context, q querier, projectID string, fn func(*draftRow)) error {
	return db.scanDraftWhere(ctx, q, projectID, "", nil, fn)
}

// scanDraftWhere is scanDraft of the rules that the condition where (SQL
// after AND, its parameters numbered from $2) also selects.
func (db *DB) scanDraftWhere(ctx context.Context, q querier, projectID, where string, args []any, fn func(*draftRow)) error {
	return db.scanDraftKeys(ctx, q, projectID, where, args, false, func(r *draftRow, _ string) { fn(r) })
}

// scanDraftKeys is scanDraftWhere that, with withKey, also reads each
// rule's key as an import compares it (COALESCE(match_key, source), see
// importTx.FindStored) and passes it to fn ("" without withKey).
func (db *DB) scanDraftKeys(ctx context.Context, q querier, projectID, where string, args []any, withKey bool, fn func(r *draftRow, key string)) error {
	query := `SELECT id, revision, ` + RuleSelect("")
	if withKey {
		query += `, COALESCE(match_key, source)`
	}
	query += ` FROM rules WHERE project_id = $1`
	if where != "" {
		query += " AND " + where
	}
	rows, err := q.QueryContext(ctx, query, append([]any{projectID}, args...)...)
	if err != nil {
		return err
	}
	defer rows.Close()
	var (
		r              draftRow
		mt             int64
		host, src, dst sql.RawBytes // valid until Next: fn uses them at once
		except         sql.RawBytes
		key            string
	)
	dests := []any{&r.id, &r.revision, &mt, &host, &src, &dst, &r.status, &r.priority,
		&r.preservePath, &r.preserveQuery, &r.queryAfterFragment, &r.mergeQuery, &except, &r.created}
	if withKey {
		dests = append(dests, &key)
	}
	for rows.Next() {
		if err := rows.Scan(dests...); err != nil {
			return err
		}
		r.matchType, r.host, r.source, r.destination = ScanMatchType(mt), host, src, dst
		r.exceptHosts = except
		fn(&r, key)
	}
	return rows.Err()
}

// snapshotDraft returns the project's draft in the draft encoding,
// compressed, with how many rules it holds and its digest, from one scan.
// With keys (an import batch's, sorted and rekeyed), the same scan also
// finds the stored rules that FindStored would match with them, and keeps
// each one's share of the digest.
func (db *DB) snapshotDraft(ctx context.Context, q querier, projectID string, keys []redirects.ImportKey) (*draftSnapshot, error) {
	var enc draftEncoder
	var row []byte
	s := &draftSnapshot{keys: keys}
	if keys != nil {
		s.found = map[int64]storedShare{}
	}
	err := db.scanDraftKeys(ctx, q, projectID, "", nil, keys != nil, func(r *draftRow, key string) {
		row = appendRow(row[:0], r)
		enc.add(row, rowFlags(r), len(r.exceptHosts) > 0)
		hi, lo := rowSum(row)
		s.after.addSum(hi, lo)
		s.rules++
		if keys == nil {
			return
		}
		stored := redirects.ImportKey{Match: r.matchType, Source: key, Host: string(r.host), Pos: -1}
		k, _ := slices.BinarySearchFunc(keys, stored, redirects.CompareImportKeys)
		if k < len(keys) && keys[k].SameRule(stored) && s.found != nil {
			s.found[r.id] = storedShare{pos: keys[k].Pos, hi: hi, lo: lo, matchType: r.matchType,
				host: string(r.host), source: string(r.source), created: r.created, rev: r.revision}
			if len(s.found) > sparseStored {
				// FindStored then reads every stored rule whole (see
				// sparseStored), so the matches are not kept.
				s.found = nil
			}
		}
	})
	if err != nil {
		return nil, err
	}
	s.data = enc.compressed()
	return s, nil
}

// draftEncoder builds a draft's encoding rule by rule, compressed as it
// goes: the rules are gathered in a buffer of 1 MiB, which is compressed
// into the record each time it fills, so the encoding of a million-rule
// draft (about 100 MB) is never held whole. Its first byte, the version,
// is known only at the end (an extended rule makes it 2): it is a zstd
// frame of its own, put before the frame of the rules (a zstd stream may
// hold frames one after the other, and decodes to their contents joined).
type draftEncoder struct {
	extended bool
	// qaf: some rule has queryAfterFragment (version 3).
	qaf bool
	// mq: some rule has mergeQuery (version 4).
	mq bool
	// except: some rule has exceptHosts (version 5).
	except bool
	buf    []byte
	out    bytes.Buffer
	z      io.WriteCloser
}

// draftChunk is the size of the buffer a draftEncoder compresses at once.
const draftChunk = 1 << 20

// add appends the encoding of one rule, row, whose flags byte is flags
// and which has exceptHosts or not.
func (e *draftEncoder) add(row []byte, flags byte, exceptHosts bool) {
	if exceptHosts {
		e.except = true
	}
	if flags&draftExtended != 0 {
		e.extended = true
	}
	if flags&draftQueryAfterFragment != 0 {
		e.qaf = true
	}
	if flags&draftMergeQuery != 0 {
		e.mq = true
	}
	if len(e.buf)+len(row) > draftChunk {
		e.flush()
	}
	if e.buf == nil {
		e.buf = make([]byte, 0, draftChunk)
	}
	e.buf = append(e.buf, row...)
}

// flush compresses the buffered rules.
func (e *draftEncoder) flush() {
	if len(e.buf) == 0 {
		return
	}
	if e.z == nil {
		e.z = coding.NewZstdWriter(&e.out)
	}
	e.z.Write(e.buf) // a bytes.Buffer does not fail
	e.buf = e.buf[:0]
}

// compressed returns the encoding of the rules added, compressed as an
// undo record keeps it.
func (e *draftEncoder) compressed() []byte {
	encoding := byte(draftEncoding)
	if e.extended {
		encoding = draftEncodingExtended
	}
	if e.qaf {
		encoding = draftEncodingQueryAfterFragment
	}
	if e.mq {
		encoding = draftEncodingMergeQuery
	}
	if e.except {
		encoding = draftEncodingExceptHosts
	}
	b := coding.ZstdBytes([]byte{encoding})
	e.flush()
	if e.z != nil {
		e.z.Close()
		b = append(b, e.out.Bytes()...)
	}
	e.buf, e.out, e.z = nil, bytes.Buffer{}, nil
	return b
}

// digestDraft returns the digest of the project's draft under settings s.
func (db *DB) digestDraft(ctx context.Context, q querier, projectID string, s redirects.Settings) ([]byte, error) {
	var d draftDigest
	if err := db.scanDraft(ctx, q, projectID, d.add); err != nil {
		return nil, err
	}
	return d.sum(s), nil
}

// saveImportUndo stores the undo record of an import in its transaction
// and drops the project's records past the latest
// redirects.MaxImportUndos. after is the digest of the draft as the import
// left it, or nil to compute it from the whole draft.
func (db *DB) saveImportUndo(ctx context.Context, tx *Tx, p *redirects.Project, mode redirects.ImportMode, before []byte, n int, after []byte) (int64, error) {
	if after == nil {
		var err error
		if after, err = db.digestDraft(ctx, tx, p.ID, p.Settings); err != nil {
			return 0, err
		}
	}
	var id int64
	if err := tx.QueryRowContext(ctx, `INSERT INTO import_undos (project_id, created_at, mode, rules, before_draft, after_digest)
		VALUES ($1, $2, $3, $4, $5, $6) RETURNING id`, p.ID, db.now().UnixNano(), string(mode), n, before, after).Scan(&id); err != nil {
		return 0, err
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM import_undos WHERE project_id = $1 AND id NOT IN
		(SELECT id FROM import_undos WHERE project_id = $1 ORDER BY id DESC LIMIT `+strconv.Itoa(redirects.MaxImportUndos)+`)`, p.ID); err != nil {
		return 0, err
	}
	return id, nil
}

// UndoImport puts the draft of projectID back as it was before the import
// whose report gave undoID, exactly (the same rules with the same IDs,
// revisions and creation times), in one transaction, while the draft is
// still as that import left it; it records a rule.import_undo audit entry
// and drops the undo record. It returns how many rules the draft holds
// again.
func (db *DB) UndoImport(ctx context.Context, projectID string, undoID int64) (int, error) {
	const op = "undo import"
	tx, err := db.beginWrite(ctx, op)
	if err != nil {
		return 0, err
	}
	defer tx.Rollback()
	p, err := db.findProject(ctx, tx, projectID, "FOR KEY SHARE")
	if err != nil {
		return 0, err
	}
	if err := db.d.LockDraft(ctx, tx, projectID); err != nil {
		return 0, db.wrap(op, err)
	}
	u, err := db.findImportUndo(ctx, tx, p, undoID)
	if err != nil {
		return 0, err
	}
	raw, err := coding.Decode(coding.Zstd, u.before)
	if err != nil {
		return 0, db.wrap(op, err)
	}
	rows, err := decodeRows(raw)
	if err != nil {
		return 0, db.wrap(op, err)
	}
	res, err := tx.ExecContext(ctx, `DELETE FROM rules WHERE project_id = $1`, projectID)
	if err != nil {
		return 0, db.wrap(op, err)
	}
	removed, _ := res.RowsAffected()
	if err := db.insertDraftRows(ctx, tx, p, rows); err != nil {
		return 0, db.wrap(op, err)
	}
	if err := db.setRuleCount(ctx, tx, projectID, int64(len(rows))); err != nil {
		return 0, db.wrap(op, err)
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM import_undos WHERE id = $1`, undoID); err != nil {
		return 0, db.wrap(op, err)
	}
	if err := db.audit(ctx, tx, redirects.AuditRuleImportUndo, p.OrgID, p.ID, "project", p.ID, nil,
		map[string]any{"import": undoID, "mode": u.mode, "removed": removed, "restored": len(rows)}); err != nil {
		return 0, db.wrap(op, err)
	}
	if err := tx.Commit(); err != nil {
		return 0, db.wrap(op, err)
	}
	return len(rows), nil
}

// CheckImportUndo reports whether UndoImport(projectID, undoID) would
// put the draft back now: nil, or the error it would return. It changes
// nothing (the dashboard shows the Undo button only while it is nil).
func (db *DB) CheckImportUndo(ctx context.Context, projectID string, undoID int64) error {
	const op = "check import undo"
	tx, err := db.beginRead(ctx, op)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	p, err := db.findProject(ctx, tx, projectID, "")
	if err != nil {
		return err
	}
	_, err = db.findImportUndo(ctx, tx, p, undoID)
	return err
}

// findImportUndo returns the before-draft of the undo record undoID of
// project p, compressed, once it has checked that the draft is still as
// the import left it. Errors: as UndoImport's.
func (db *DB) findImportUndo(ctx context.Context, tx *Tx, p *redirects.Project, undoID int64) (*importUndo, error) {
	u := &importUndo{}
	var after []byte
	err := tx.QueryRowContext(ctx, `SELECT before_draft, after_digest, mode FROM import_undos WHERE id = $1 AND project_id = $2`,
		undoID, p.ID).Scan(&u.before, &after, &u.mode)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, redirects.Errorf(redirects.ENOTFOUND, "import %d of project %s cannot be undone: it is not one of the project's last %d applied imports, or it was undone already",
			undoID, p.ID, redirects.MaxImportUndos)
	} else if err != nil {
		return nil, db.wrap("undo import", err)
	}
	now, err := db.digestDraft(ctx, tx, p.ID, p.Settings)
	if err != nil {
		return nil, db.wrap("undo import", err)
	}
	if string(now) != string(after) {
		return nil, redirects.Errorf(redirects.ECONFLICT, "the draft changed since import %d; undo is no longer possible", undoID)
	}
	return u, nil
}

// importUndo is an undo record as UndoImport reads it.
type importUndo struct {
	before []byte
	mode   string
}

// undoInsertBatch is how many rules one INSERT of an undo writes; the
// statement is prepared once (SQLite parses a statement of thousands of
// parameters slowly, and binds them by name).
const undoInsertBatch = 64

// insertDraftRows inserts rows with their own IDs, revisions and creation
// times, and the match keys of p's settings (the digest held the settings
// too, so they are the ones the rows were stored under).
func (db *DB) insertDraftRows(ctx context.Context, tx *Tx, p *redirects.Project, rows []draftRow) error {
	cols := 4 + len(RuleColumns)
	// To SQLite, $N parameters are named ones; its ? parameters bind by
	// position: the undo of a million-rule replace took 16 s with them,
	// 28 s with $N.
	positional := db.d.Name() == "sqlite"
	prepare := func(n int) (*sql.Stmt, error) {
		var q strings.Builder
		q.WriteString(`INSERT INTO rules (id, project_id, revision, match_key, ` + RuleColumns.List("") + `) VALUES `)
		for i := range n {
			if i > 0 {
				q.WriteByte(',')
			}
			q.WriteByte('(')
			for c := range cols {
				if c > 0 {
					q.WriteByte(',')
				}
				if positional {
					q.WriteByte('?')
				} else {
					fmt.Fprintf(&q, "$%d", i*cols+c+1)
				}
			}
			q.WriteByte(')')
		}
		return tx.PrepareContext(ctx, q.String())
	}
	var full *sql.Stmt
	args := make([]any, 0, undoInsertBatch*cols)
	for start := 0; start < len(rows); start += undoInsertBatch {
		batch := rows[start:min(start+undoInsertBatch, len(rows))]
		args = args[:0]
		for i := range batch {
			r := &batch[i]
			rule := redirects.Rule{MatchType: r.matchType, Source: string(r.source)}
			args = append(args, r.id, p.ID, r.revision, matchKey(p.Settings, &rule),
				r.matchType.String(), string(r.host), rule.Source, string(r.destination), r.status, r.priority, r.preservePath, r.preserveQuery, r.queryAfterFragment, r.mergeQuery, string(r.exceptHosts), r.created)
		}
		stmt := full
		if len(batch) < undoInsertBatch || full == nil {
			s, err := prepare(len(batch))
			if err != nil {
				return err
			}
			defer s.Close()
			if len(batch) == undoInsertBatch {
				full = s
			}
			stmt = s
		}
		if _, err := stmt.ExecContext(ctx, args...); err != nil {
			return err
		}
	}
	return nil
}
