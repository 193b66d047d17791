package main

import (
	"os"
	"path/filepath"
	"testing"
)

// TestCommandHint: quickstart's last line suggests a command that runs:
// "redirects" only when PATH holds a redirects binary, "go run
// ./cmd/redirects" under go run, else the path the program was started by.
func TestCommandHint(t *testing.T) {
	withBin, noBin, notExec := t.TempDir(), t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(withBin, "redirects"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(notExec, "redirects"), []byte("text"), 0o644); err != nil {
		t.Fatal(err)
	}
	path := func(dirs ...string) func(string) string {
		return func(k string) string {
			if k == "PATH" {
				return filepath.Join(dirs[0]) + string(filepath.ListSeparator) + filepath.Join(dirs[1:]...)
			}
			return ""
		}
	}
	goRun := filepath.Join(os.TempDir(), "go-build123", "b001", "exe", "redirects")
	for _, tc := range []struct {
		name           string
		getenv         func(string) string
		exe, arg0, out string
	}{
		{"on PATH", path(noBin, withBin), "/home/u/src/redirects/redirects", "./redirects", "redirects"},
		{"go run", path(noBin, notExec), goRun, goRun, "go run ./cmd/redirects"},
		{"started by a relative path", path(noBin, notExec), "/home/u/src/redirects/redirects", "./redirects", "./redirects"},
		{"started by a bare name", path(noBin, notExec), "/opt/r/redirects", "redirects", "/opt/r/redirects"},
		{"a path with a space", path(noBin, notExec), "/opt/my tools/redirects", "/opt/my tools/redirects", "'/opt/my tools/redirects'"},
		{"a build folder not go run's", path(noBin, notExec), "/tmp/go-build9/redirects", "/tmp/go-build9/redirects", "/tmp/go-build9/redirects"},
	} {
		if got := commandHint(tc.getenv, tc.exe, tc.arg0); got != tc.out {
			t.Errorf("%s: commandHint = %q, want %q", tc.name, got, tc.out)
		}
	}
}
