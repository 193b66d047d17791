package postgres_test

import (
	"context"
	"testing"

	"redirects"
	"redirects/postgres"
	"redirects/sqlstore"
	"redirects/storetest"
)

// TestImportLargeBatchPaths runs the store suite's import tests with every
// batch taken for a large one (sqlstore.SetSparseStored(0)), as the SQLite
// package does. Not parallel: the setting is the package's.
func TestImportLargeBatchPaths(t *testing.T) {
	defer sqlstore.SetSparseStored(0)()
	dbURL := newDatabase(t)
	storetest.RunImports(t, func(t *testing.T, clock redirects.Clock) redirects.Store {
		db, err := postgres.Open(context.Background(), newSchema(t, dbURL))
		if err != nil {
			t.Fatalf("Open: %v", err)
		}
		db.Clock = clock
		return db
	})
}
