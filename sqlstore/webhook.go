package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"redirects"
)

// The webhooks' store: endpoints, the outbox of deliveries and their
// attempts (docs/delivery.md#webhooks). recordAudit enqueues a delivery for
// every endpoint that wants an entry, in the entry's transaction, so a
// change and its deliveries commit together or not at all.

const webhookColumns = `id, org_id, url, actions, projects, old_secret_until, paused, disabled_at, created_at, last_success_at`

func scanWebhook(s scanner) (*redirects.WebhookEndpoint, error) {
	var (
		e                  redirects.WebhookEndpoint
		actions, projects  string
		oldUntil, disabled sql.NullInt64
		paused             int
		created, success   int64
	)
	if err := s.Scan(&e.ID, &e.OrgID, &e.URL, &actions, &projects, &oldUntil, &paused, &disabled, &created, &success); err != nil {
		return nil, err
	}
	e.Actions, e.Projects = strings.Fields(actions), strings.Fields(projects)
	e.Paused, e.CreatedAt, e.LastSuccessAt = paused == 1, fromNanos(created), fromNanos(success)
	if oldUntil.Valid {
		t := fromNanos(oldUntil.Int64)
		e.OldSecretUntil = &t
	}
	if disabled.Valid {
		t := fromNanos(disabled.Int64)
		e.DisabledAt = &t
	}
	return &e, nil
}

func webhookAuditFields(e *redirects.WebhookEndpoint) map[string]any {
	return map[string]any{"url": e.URL, "actions": e.Actions, "projects": e.Projects, "status": e.Status()}
}

// CreateWebhook stores an endpoint made by redirects.NewWebhookEndpoint,
// secret included, and records it in the audit log.
func (db *DB) CreateWebhook(ctx context.Context, e *redirects.WebhookEndpoint) error {
	const op = "create webhook"
	if err := e.Validate(); err != nil {
		return err
	}
	if e.Secret == "" {
		return redirects.Errorf(redirects.EINVALID, "secret: empty")
	}
	tx, err := db.beginWrite(ctx, op)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := db.findOrg(ctx, tx, e.OrgID, false); err != nil {
		return err
	}
	for _, p := range e.Projects {
		// Another organization's project is answered as an unknown one, so
		// that no project's existence leaks to another organization.
		pr, err := db.findProject(ctx, tx, p, "")
		if err == nil && pr.OrgID != e.OrgID {
			err = redirects.Errorf(redirects.ENOTFOUND, "project %q not found", p)
		}
		if err != nil {
			return err
		}
	}
	now := db.now()
	if _, err := tx.ExecContext(ctx, `INSERT INTO webhook_endpoints (id, org_id, url, actions, projects, secret, created_at, last_success_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $7)`, e.ID, e.OrgID, e.URL, strings.Join(e.Actions, " "), strings.Join(e.Projects, " "),
		e.Secret, now.UnixNano()); err != nil {
		return db.wrap(op, err)
	}
	e.CreatedAt, e.LastSuccessAt, e.Paused, e.DisabledAt, e.OldSecretUntil = now, now, false, nil, nil
	if err := db.audit(ctx, tx, redirects.AuditWebhookCreate, e.OrgID, "", "webhook", e.ID, nil, webhookAuditFields(e)); err != nil {
		return db.wrap(op, err)
	}
	if err := tx.Commit(); err != nil {
		return db.wrap(op, err)
	}
	return nil
}

// FindWebhooks returns the endpoints of an organization, oldest first,
// without their secrets.
func (db *DB) FindWebhooks(ctx context.Context, orgID string) ([]*redirects.WebhookEndpoint, error) {
	rows, err := db.read.QueryContext(ctx, `SELECT `+webhookColumns+` FROM webhook_endpoints WHERE org_id = $1 ORDER BY created_at, id`, orgID)
	return collect(db, "find webhooks", rows, err, scanWebhook)
}

// FindWebhook returns an endpoint without its secret; ENOTFOUND when there
// is none.
func (db *DB) FindWebhook(ctx context.Context, id string) (*redirects.WebhookEndpoint, error) {
	return db.findWebhook(ctx, db.read, id, "")
}

func (db *DB) findWebhook(ctx context.Context, q querier, id, lock string) (*redirects.WebhookEndpoint, error) {
	e, err := scanWebhook(q.QueryRowContext(ctx, `SELECT `+webhookColumns+` FROM webhook_endpoints WHERE id = $1`+lock, id))
	if err == sql.ErrNoRows {
		return nil, redirects.Errorf(redirects.ENOTFOUND, "webhook %s not found", id)
	}
	if err != nil {
		return nil, db.wrap("find webhook", err)
	}
	return e, nil
}

// updateWebhook runs change on the endpoint's row in a write transaction
// and records what it changed.
func (db *DB) updateWebhook(ctx context.Context, op, id, action string, change func(tx *Tx, e *redirects.WebhookEndpoint) error) (*redirects.WebhookEndpoint, error) {
	tx, err := db.beginWrite(ctx, op)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	e, err := db.findWebhook(ctx, tx, id, db.d.Lock("FOR UPDATE"))
	if err != nil {
		return nil, err
	}
	before := webhookAuditFields(e)
	if err := change(tx, e); err != nil {
		return nil, db.wrap(op, err)
	}
	after := webhookAuditFields(e)
	if action == redirects.AuditWebhookDelete {
		after = nil
	} else if action != redirects.AuditWebhookRotate {
		before, after = redirects.AuditDiff(before, after)
	}
	if err := db.audit(ctx, tx, action, e.OrgID, "", "webhook", e.ID, before, after); err != nil {
		return nil, db.wrap(op, err)
	}
	if err := tx.Commit(); err != nil {
		return nil, db.wrap(op, err)
	}
	return e, nil
}

// SetWebhookPaused pauses or resumes an endpoint. A paused endpoint keeps
// its deliveries queued; resuming one the sender disabled enables it again
// and sends what it queued.
func (db *DB) SetWebhookPaused(ctx context.Context, id string, paused bool) (*redirects.WebhookEndpoint, error) {
	return db.updateWebhook(ctx, "pause webhook", id, redirects.AuditWebhookUpdate, func(tx *Tx, e *redirects.WebhookEndpoint) error {
		p := 0
		if paused {
			p = 1
		}
		now := db.now().UnixNano()
		if paused {
			_, err := tx.ExecContext(ctx, `UPDATE webhook_endpoints SET paused = 1 WHERE id = $1`, id)
			e.Paused = true
			return err
		}
		// Resuming restarts the 24 hours, and the deliveries given up
		// while the endpoint was disabled stay failed (redeliver sends one).
		if _, err := tx.ExecContext(ctx, `UPDATE webhook_endpoints SET paused = $2, disabled_at = NULL, last_success_at = $3 WHERE id = $1`, id, p, now); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `UPDATE webhook_deliveries SET created_at = $2, next_at = $2 WHERE endpoint_id = $1 AND state = 'pending'`, id, now)
		e.Paused, e.DisabledAt = false, nil
		return err
	})
}

// DeleteWebhook deletes an endpoint and its deliveries.
func (db *DB) DeleteWebhook(ctx context.Context, id string) error {
	_, err := db.updateWebhook(ctx, "delete webhook", id, redirects.AuditWebhookDelete, func(tx *Tx, e *redirects.WebhookEndpoint) error {
		_, err := tx.ExecContext(ctx, `DELETE FROM webhook_endpoints WHERE id = $1`, id)
		return err
	})
	return err
}

// RotateWebhookSecret gives an endpoint a new secret and returns the
// endpoint with it; the old secret keeps signing (a second v1=) for
// overlap.
func (db *DB) RotateWebhookSecret(ctx context.Context, id string, overlap time.Duration) (*redirects.WebhookEndpoint, error) {
	if overlap < 0 || overlap > 7*24*time.Hour {
		return nil, redirects.Errorf(redirects.EINVALID, "overlap: %s is not between 0 and 168h", overlap)
	}
	secret := redirects.NewWebhookSecret()
	return db.updateWebhook(ctx, "rotate webhook secret", id, redirects.AuditWebhookRotate, func(tx *Tx, e *redirects.WebhookEndpoint) error {
		until := db.now().Add(overlap)
		if _, err := tx.ExecContext(ctx, `UPDATE webhook_endpoints SET old_secret = secret, old_secret_until = $2, secret = $3 WHERE id = $1`,
			id, until.UnixNano(), secret); err != nil {
			return err
		}
		e.Secret, e.OldSecretUntil = secret, &until
		return nil
	})
}

// enqueueWebhooks writes, in the audit entry's transaction, a delivery of
// e to every endpoint of its organization that wants it and that the
// sender has not disabled (a paused one queues).
func (db *DB) enqueueWebhooks(ctx context.Context, tx querier, e *redirects.AuditEntry) error {
	if e.OrgID == "" {
		return nil
	}
	rows, err := tx.QueryContext(ctx, `SELECT `+webhookColumns+` FROM webhook_endpoints
		WHERE org_id = $1 AND disabled_at IS NULL`, e.OrgID)
	eps, err := collect(db, "find webhooks", rows, err, scanWebhook)
	if err != nil {
		return err
	}
	for _, ep := range eps {
		if ep.ID == e.ObjectID && e.Action == redirects.AuditWebhookDelete || !ep.Wants(e.Action, e.ProjectID) {
			continue
		}
		if _, err := db.insertDelivery(ctx, tx, ep.ID, e); err != nil {
			return err
		}
	}
	return nil
}

// insertDelivery enqueues a delivery of e to an endpoint and returns its
// ID.
func (db *DB) insertDelivery(ctx context.Context, tx querier, endpointID string, e *redirects.AuditEntry) (string, error) {
	id := redirects.NewWebhookDeliveryID()
	var auditID *int64
	if e.ID != 0 {
		auditID = &e.ID
	}
	now := db.now().UnixNano()
	_, err := tx.ExecContext(ctx, `INSERT INTO webhook_deliveries (id, endpoint_id, audit_id, action, body, created_at, next_at)
		VALUES ($1, $2, $3, $4, $5, $6, $6)`, id, endpointID, auditID, e.Action, string(redirects.NewWebhookPayload(id, endpointID, e)), now)
	if err != nil {
		return "", fmt.Errorf("enqueue webhook delivery: %w", err)
	}
	return id, nil
}

// SendWebhookTest enqueues a test event (action webhook.test) to one
// endpoint, whatever actions it wants, and returns its delivery ID.
func (db *DB) SendWebhookTest(ctx context.Context, id string) (string, error) {
	const op = "send webhook test"
	tx, err := db.beginWrite(ctx, op)
	if err != nil {
		return "", err
	}
	defer tx.Rollback()
	ep, err := db.findWebhook(ctx, tx, id, "")
	if err != nil {
		return "", err
	}
	e := redirects.NewAuditEntry(ctx, db.now(), redirects.WebhookTestAction, ep.OrgID, "", "webhook", ep.ID, nil,
		map[string]any{"message": "a test event from redirects"})
	did, err := db.insertDelivery(ctx, tx, ep.ID, e)
	if err != nil {
		return "", db.wrap(op, err)
	}
	if err := tx.Commit(); err != nil {
		return "", db.wrap(op, err)
	}
	return did, nil
}

// Redeliver sends a delivery again, whatever its state: it goes back to
// pending, due now, with 24 hours of retries from now. Its ID stays, so a
// receiver that took it once can tell.
func (db *DB) Redeliver(ctx context.Context, deliveryID string) (*redirects.WebhookDelivery, error) {
	const op = "redeliver webhook"
	now := db.now().UnixNano()
	r, err := db.write.ExecContext(ctx, `UPDATE webhook_deliveries SET state = 'pending', created_at = $2, next_at = $2, lease_owner = '', lease_until = 0
		WHERE id = $1`, deliveryID, now)
	if err != nil {
		return nil, db.wrap(op, err)
	}
	if affected(r) == 0 {
		return nil, redirects.Errorf(redirects.ENOTFOUND, "webhook delivery %s not found", deliveryID)
	}
	return db.FindWebhookDelivery(ctx, deliveryID)
}

const deliveryColumns = `d.id, d.endpoint_id, d.action, d.body, d.created_at, d.state, d.next_at`

func scanDelivery(s scanner) (*redirects.WebhookDelivery, error) {
	var (
		d             redirects.WebhookDelivery
		created, next int64
	)
	if err := s.Scan(&d.ID, &d.EndpointID, &d.Action, &d.Body, &created, &d.State, &next); err != nil {
		return nil, err
	}
	d.CreatedAt, d.NextAt = fromNanos(created), fromNanos(next)
	return &d, nil
}

// FindWebhookDelivery returns one delivery with its attempts.
func (db *DB) FindWebhookDelivery(ctx context.Context, id string) (*redirects.WebhookDelivery, error) {
	d, err := scanDelivery(db.read.QueryRowContext(ctx, `SELECT `+deliveryColumns+` FROM webhook_deliveries d WHERE d.id = $1`, id))
	if err == sql.ErrNoRows {
		return nil, redirects.Errorf(redirects.ENOTFOUND, "webhook delivery %s not found", id)
	}
	if err != nil {
		return nil, db.wrap("find webhook delivery", err)
	}
	return d, db.attachAttempts(ctx, []*redirects.WebhookDelivery{d})
}

// FindWebhookDeliveries returns an endpoint's last deliveries, newest
// first, with their attempts.
func (db *DB) FindWebhookDeliveries(ctx context.Context, endpointID string, limit int) ([]*redirects.WebhookDelivery, error) {
	if limit <= 0 || limit > 1000 {
		limit = 50
	}
	rows, err := db.read.QueryContext(ctx, `SELECT `+deliveryColumns+` FROM webhook_deliveries d WHERE d.endpoint_id = $1
		ORDER BY d.created_at DESC, d.audit_id DESC, d.id LIMIT $2`, endpointID, limit)
	ds, err := collect(db, "find webhook deliveries", rows, err, scanDelivery)
	if err != nil {
		return nil, err
	}
	return ds, db.attachAttempts(ctx, ds)
}

func (db *DB) attachAttempts(ctx context.Context, ds []*redirects.WebhookDelivery) error {
	for _, d := range ds {
		rows, err := db.read.QueryContext(ctx, `SELECT n, at, status, latency_ns, error, excerpt FROM webhook_attempts
			WHERE delivery_id = $1 ORDER BY n`, d.ID)
		as, err := collect(db, "find webhook attempts", rows, err, func(s scanner) (redirects.WebhookAttempt, error) {
			var (
				a       redirects.WebhookAttempt
				at, lat int64
			)
			err := s.Scan(&a.N, &at, &a.Status, &lat, &a.Error, &a.Excerpt)
			a.At, a.Latency = fromNanos(at), time.Duration(lat)
			return a, err
		})
		if err != nil {
			return err
		}
		d.Attempts = as
	}
	return nil
}

// unrecordedAttempt is the error shown for a try whose outcome was never
// recorded: the node that sent it stopped, or its store refused the
// record, before the lease ran out.
const unrecordedAttempt = "outcome not recorded: the sending node stopped or could not write it before its lease ran out"

// ClaimWebhookDeliveries leases up to limit due deliveries of active
// endpoints to owner until now + redirects.WebhookLease and returns them
// with their endpoints' URLs and signing secrets. A delivery another node
// holds is skipped (PostgreSQL: FOR UPDATE SKIP LOCKED, and the lease
// column for a node that died holding it), so each is sent by one node at
// a time.
//
// A delivery whose last lease ran out without a record of its attempt
// (the node died, or its record was refused) has that try counted first,
// as a failed attempt at the time it was claimed: it backs off, fails
// after redirects.WebhookRetryFor and disables its endpoint as a recorded
// failure would, and is claimed only if it is due after that. Without
// this a delivery whose records always fail was sent again each time the
// lease ran out, forever. A delivery with no attempt recorded yet (as one
// stuck so before this count was made) is never failed by it: its try
// backs off, and the next one is real. When such a count disables an
// endpoint, its other deliveries in the batch are left unleased.
func (db *DB) ClaimWebhookDeliveries(ctx context.Context, owner string, limit int) ([]*redirects.WebhookDelivery, error) {
	const op = "claim webhook deliveries"
	tx, err := db.beginWrite(ctx, op)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	now := db.now()
	until := now.Add(redirects.WebhookLease)
	type due struct {
		id, endpointID, leaseOwner string
		leaseUntil, created        int64
		attempts                   int
	}
	rows, err := tx.QueryContext(ctx, `SELECT d.id, d.endpoint_id, d.lease_owner, d.lease_until, d.created_at, d.attempts
		FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id
		WHERE d.state = 'pending' AND d.next_at <= $1 AND d.lease_until <= $1 AND e.paused = 0 AND e.disabled_at IS NULL
		ORDER BY d.next_at, d.id LIMIT $2`+db.d.Lock("FOR UPDATE OF d SKIP LOCKED"), now.UnixNano(), limit)
	dues, err := collect(db, op, rows, err, func(s scanner) (due, error) {
		var d due
		return d, s.Scan(&d.id, &d.endpointID, &d.leaseOwner, &d.leaseUntil, &d.created, &d.attempts)
	})
	if err != nil {
		return nil, err
	}
	var out []*redirects.WebhookDelivery
	for _, du := range dues {
		if du.leaseOwner != "" && du.leaseUntil > 0 {
			tried := fromNanos(du.leaseUntil).Add(-redirects.WebhookLease)
			a := redirects.WebhookAttempt{N: du.attempts + 1, At: tried, Error: unrecordedAttempt}
			// A delivery with no attempt recorded may be one stuck before
			// such tries were counted (its lease renewed every 15 s): its
			// first counted try only backs off, so that a real one comes
			// before it can fail.
			state, next, err := db.settleAttempt(ctx, tx, du.id, du.endpointID, fromNanos(du.created), a, tried, du.attempts > 0)
			if err != nil {
				return nil, db.wrap(op, err)
			}
			if state != "pending" || next.After(now) {
				continue
			}
			du.attempts = a.N
		}
		// Counting a try above may have disabled this endpoint: its
		// other deliveries are not sent.
		res, err := tx.ExecContext(ctx, `UPDATE webhook_deliveries SET lease_owner = $2, lease_until = $3
			WHERE id = $1 AND EXISTS (SELECT 1 FROM webhook_endpoints e WHERE e.id = $4 AND e.disabled_at IS NULL)`,
			du.id, owner, until.UnixNano(), du.endpointID)
		if err != nil {
			return nil, db.wrap(op, err)
		}
		n, err := res.RowsAffected()
		if err != nil {
			return nil, db.wrap(op, err)
		}
		if n == 0 {
			continue
		}
		var (
			d             redirects.WebhookDelivery
			created, next int64
			secret        string
			old           sql.NullString
			oldUntil      sql.NullInt64
		)
		if err := tx.QueryRowContext(ctx, `SELECT `+deliveryColumns+`, e.url, e.secret, e.old_secret, e.old_secret_until
			FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id WHERE d.id = $1`, du.id).Scan(
			&d.ID, &d.EndpointID, &d.Action, &d.Body, &created, &d.State, &next, &d.URL, &secret, &old, &oldUntil); err != nil {
			return nil, db.wrap(op, err)
		}
		d.CreatedAt, d.NextAt = fromNanos(created), fromNanos(next)
		d.Secrets = []string{secret}
		if old.Valid && oldUntil.Valid && oldUntil.Int64 > now.UnixNano() {
			d.Secrets = append(d.Secrets, old.String)
		}
		d.Attempts = make([]redirects.WebhookAttempt, du.attempts) // only the count matters to the sender
		d.Lease = redirects.WebhookLeaseToken{Owner: owner, Until: until}
		out = append(out, &d)
	}
	if err := tx.Commit(); err != nil {
		return nil, db.wrap(op, err)
	}
	return out, nil
}

// RecordWebhookAttempt records an attempt of a delivery the caller claimed
// and sets what comes next: delivered on a 2xx answer; otherwise the next
// try after redirects.WebhookBackoffAfter, or failed once
// redirects.WebhookRetryFor has gone since it was enqueued, which also
// disables the endpoint when it had no success for as long. The attempt's
// error and excerpt come from the receiver: NUL and invalid UTF-8 in them
// are replaced (redirects.CleanText). A claim whose lease another node
// took over (it ran out) records nothing and returns ECONFLICT.
func (db *DB) RecordWebhookAttempt(ctx context.Context, d *redirects.WebhookDelivery, a redirects.WebhookAttempt) error {
	const op = "record webhook attempt"
	tx, err := db.beginWrite(ctx, op)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var (
		attempts int
		created  int64
	)
	err = tx.QueryRowContext(ctx, `SELECT attempts, created_at FROM webhook_deliveries WHERE id = $1 AND lease_owner = $2 AND lease_until = $3`+db.d.Lock("FOR UPDATE"),
		d.ID, d.Lease.Owner, d.Lease.Until.UnixNano()).Scan(&attempts, &created)
	if err == sql.ErrNoRows {
		return redirects.Errorf(redirects.ECONFLICT, "webhook delivery %s: lease lost", d.ID)
	}
	if err != nil {
		return db.wrap(op, err)
	}
	now := db.now()
	a.N = attempts + 1
	if a.At.IsZero() {
		a.At = now
	}
	if len(a.Excerpt) > redirects.WebhookExcerpt {
		a.Excerpt = a.Excerpt[:redirects.WebhookExcerpt]
	}
	a.Error, a.Excerpt = redirects.CleanText(a.Error), redirects.CleanText(a.Excerpt)
	if _, _, err := db.settleAttempt(ctx, tx, d.ID, d.EndpointID, fromNanos(created), a, now, true); err != nil {
		return db.wrap(op, err)
	}
	if err := tx.Commit(); err != nil {
		return db.wrap(op, err)
	}
	return nil
}

// settleAttempt writes attempt a of a delivery and, as of now, what comes
// next (delivered, the next try, or failed with its endpoint disabled),
// releasing the lease; it returns the delivery's state and next time.
// Unless mayFail, a failed attempt only backs off, however old the
// delivery.
func (db *DB) settleAttempt(ctx context.Context, tx *Tx, id, endpointID string, created time.Time, a redirects.WebhookAttempt, now time.Time, mayFail bool) (string, time.Time, error) {
	if _, err := tx.ExecContext(ctx, `INSERT INTO webhook_attempts (delivery_id, n, at, status, latency_ns, error, excerpt)
		VALUES ($1, $2, $3, $4, $5, $6, $7)`, id, a.N, a.At.UnixNano(), a.Status, int64(a.Latency), a.Error, a.Excerpt); err != nil {
		return "", now, err
	}
	state, next := "pending", now.Add(redirects.WebhookBackoffAfter(a.N))
	switch {
	case a.OK():
		state, next = "delivered", now
		if _, err := tx.ExecContext(ctx, `UPDATE webhook_endpoints SET last_success_at = $2 WHERE id = $1`, endpointID, now.UnixNano()); err != nil {
			return "", now, err
		}
	case mayFail && !now.Before(created.Add(redirects.WebhookRetryFor)):
		state, next = "failed", now
		if _, err := tx.ExecContext(ctx, `UPDATE webhook_endpoints SET disabled_at = $2 WHERE id = $1 AND disabled_at IS NULL AND last_success_at <= $3`,
			endpointID, now.UnixNano(), now.Add(-redirects.WebhookRetryFor).UnixNano()); err != nil {
			return "", now, err
		}
	}
	if _, err := tx.ExecContext(ctx, `UPDATE webhook_deliveries SET attempts = $2, state = $3, next_at = $4, lease_owner = '', lease_until = 0 WHERE id = $1`,
		id, a.N, state, next.UnixNano()); err != nil {
		return "", now, err
	}
	return state, next, nil
}

var _ redirects.WebhookStore = (*DB)(nil)
