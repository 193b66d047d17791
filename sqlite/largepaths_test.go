package sqlite_test

import (
	"testing"

	"redirects"
	"redirects/sqlstore"
	"redirects/storetest"
)

// TestImportLargeBatchPaths runs the store suite's import tests with every
// batch taken for a large one (sqlstore.SetSparseStored(0)): the stored
// rules read whole in one scan, the undo record's digest taken again from
// the whole draft. Not parallel: the setting is the package's.
func TestImportLargeBatchPaths(t *testing.T) {
	defer sqlstore.SetSparseStored(0)()
	storetest.RunImports(t, func(t *testing.T, clock redirects.Clock) redirects.Store {
		return open(t, clock)
	})
}
