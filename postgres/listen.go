package postgres

import (
	"context"

	"redirects"
	"redirects/sqlstore"
)

var _ redirects.Notifier = (*DB)(nil)

// Listen holds one pooled connection in LISTEN on NotifyChannel and calls
// notify for every notice, until ctx ends or the connection fails. The
// connection is dedicated while it listens (released, then destroyed, on
// return), so notices never queue behind other queries.
func (db *DB) Listen(ctx context.Context, notify func()) error {
	conn, err := db.pool.Acquire(ctx)
	if err != nil {
		return sqlstore.Wrap(dialect{}, "listening for changes", err)
	}
	defer func() {
		// A connection left in LISTEN must not serve other queries.
		conn.Conn().Close(context.Background())
		conn.Release()
	}()
	if _, err := conn.Exec(ctx, "LISTEN "+NotifyChannel); err != nil {
		return sqlstore.Wrap(dialect{}, "listening for changes", err)
	}
	for {
		if _, err := conn.Conn().WaitForNotification(ctx); err != nil {
			return sqlstore.Wrap(dialect{}, "waiting for changes", err)
		}
		notify()
	}
}
