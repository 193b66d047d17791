package upgrade

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/rand"
	"encoding/hex"
	"io"
	neturl "net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"redirects/postgres"
	"redirects/sqlite"
)

// check fails unless s, and an edge serving it, answer as recorded in the
// fixture file at path.
func check(t *testing.T, s store, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f := readFixture(t, b)
	normalize(t, &f.Answers)
	want := encode(t, f.Answers)
	got := encode(t, collect(t, s, f))
	if !bytes.Equal(got, want) {
		if dir := os.Getenv("REDIRECTS_UPGRADE_GOT"); dir != "" {
			os.WriteFile(filepath.Join(dir, filepath.Base(path)+".got"), got, 0o644)
			os.WriteFile(filepath.Join(dir, filepath.Base(path)+".want"), want, 0o644)
		}
		gl, wl := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
		for i := range max(len(gl), len(wl)) {
			g, w := "", ""
			if i < len(gl) {
				g = gl[i]
			}
			if i < len(wl) {
				w = wl[i]
			}
			if g != w {
				t.Fatalf("the answers differ from %s at line %d:\ngot  %s\nwant %s", path, i+1, g, w)
			}
		}
	}
}

// TestSQLite opens a copy of a SQLite file written by an earlier release
// (kept gzipped: the file is mostly empty 16 KiB pages).
func TestSQLite(t *testing.T) {
	gz, err := os.Open(filepath.Join("testdata", "sqlite.db.gz"))
	if err != nil {
		t.Fatal(err)
	}
	defer gz.Close()
	zr, err := gzip.NewReader(gz)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		t.Fatalf("read sqlite.db.gz: %v", err)
	}
	path := filepath.Join(t.TempDir(), "redirects.db")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	db, err := sqlite.Open(context.Background(), path)
	if err != nil {
		t.Fatalf("Open the fixture: %v", err)
	}
	defer db.Close()
	check(t, db, filepath.Join("testdata", "sqlite.json"))
}

// TestPostgres restores a dump of a database written by an earlier release
// into a new database and opens it.
func TestPostgres(t *testing.T) {
	admin := os.Getenv("REDIRECTS_TEST_POSTGRES")
	if admin == "" {
		t.Skip("REDIRECTS_TEST_POSTGRES is not set")
	}
	dump, err := os.ReadFile(filepath.Join("testdata", "postgres.sql"))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	b := make([]byte, 8)
	rand.Read(b)
	name := "redirects_test_" + hex.EncodeToString(b)
	pgExec(t, admin, `CREATE DATABASE `+name)
	t.Cleanup(func() { pgExec(t, admin, `DROP DATABASE `+name+` WITH (FORCE)`) })
	url := withDatabase(t, admin, name)
	// No arguments: pgx sends the dump with the simple protocol, which
	// runs its many statements. The dump's psql commands (\restrict,
	// \unrestrict) are psql's, not the server's.
	var sql strings.Builder
	for line := range strings.Lines(string(dump)) {
		if !strings.HasPrefix(line, `\`) {
			sql.WriteString(line)
		}
	}
	pgExec(t, url, sql.String())
	db, err := postgres.Open(ctx, url)
	if err != nil {
		t.Fatalf("Open the restored fixture: %v", err)
	}
	defer db.Close()
	check(t, db, filepath.Join("testdata", "postgres.json"))
}

// pgExec runs query on its own connection to url.
func pgExec(t *testing.T, url, query string) {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, query); err != nil {
		t.Fatalf("%.60s: %v", query, err)
	}
}

// withDatabase returns the URL admin with the database name instead.
func withDatabase(t *testing.T, admin, name string) string {
	t.Helper()
	u, err := neturl.Parse(admin)
	if err != nil {
		t.Fatalf("REDIRECTS_TEST_POSTGRES is not a URL: %v", err)
	}
	u.Path = "/" + name
	return u.String()
}
