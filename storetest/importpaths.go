package storetest

import (
	"context"
	"testing"
)

// RunImports runs the suite's import tests alone: a store runs them again
// with its large-batch paths forced on small batches (see
// sqlstore.SetSparseStored), which the whole suite need not repeat.
func RunImports(t *testing.T, open Opener) {
	tests := []struct {
		name string
		fn   func(t *testing.T, e *env)
	}{
		{"Import/Replace", testImportReplace},
		{"Import/Modes", testImportModes},
		{"Import/AppendAgain", testImportAppendAgain},
		{"Import/Undo", testImportUndo},
		{"Import/UndoAfterEdit", testImportUndoAfterEdit},
		{"Import/UndoReplace", testImportUndoReplace},
		{"Import/UndoRandom", testImportUndoRandom},
		{"Import/RewriteDraft", testRewriteDraft},
		{"Patterns/ImportUndo", testPatternsImportUndo},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			clock := NewClock(Start)
			s := open(t, clock)
			t.Cleanup(func() {
				if err := s.Close(); err != nil {
					t.Errorf("Close: %v", err)
				}
			})
			tc.fn(t, &env{t: t, s: s, clock: clock, ctx: context.Background()})
		})
	}
}
