package main

import (
	"slices"
	"testing"
)

func TestSafeCells(t *testing.T) {
	got := safeCells("=SUM(A1)", "+1", "-2", "@x", "\tx", "{\"a\":1}", "", "plain", "org_1")
	want := []string{"'=SUM(A1)", "'+1", "'-2", "'@x", "'\tx", "{\"a\":1}", "", "plain", "org_1"}
	if !slices.Equal(got, want) {
		t.Errorf("safeCells = %q, want %q", got, want)
	}
}
