// Package migrations reads the numbered schema migrations that the SQLite
// and PostgreSQL stores embed, and decides what a store must do to bring a
// database up to date: which migrations to apply, and whether the database
// may be opened at all. Each store runs the SQL in its own way.
//
// A store records every migration it applies (version, name and the
// SHA-256 of its SQL) in its schema_migrations table. From that record,
// Check refuses a database whose schema is newer than the program (an
// older binary must not write to a schema it does not know) and one where
// an applied migration's SQL has since been edited (the database was built
// by a different text than the one the program holds; a change to the
// schema must be a new migration).
package migrations

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"sort"
	"strconv"
	"strings"
)

// Migration is one numbered schema change.
type Migration struct {
	Version int
	Name    string
	SQL     string
}

// Load returns the migrations in dir of fsys in version order. Their file
// names are NNNN_description.sql; the number is the version, and versions
// run 1, 2, 3, ... with no gap.
func Load(fsys fs.FS, dir string) ([]Migration, error) {
	names, err := fs.Glob(fsys, dir+"/*.sql")
	if err != nil {
		return nil, err
	}
	var out []Migration
	for _, name := range names {
		base := strings.TrimPrefix(name, dir+"/")
		num, _, ok := strings.Cut(base, "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil || v <= 0 {
			return nil, fmt.Errorf("migration file %s is not named NNNN_description.sql", base)
		}
		b, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, err
		}
		out = append(out, Migration{Version: v, Name: strings.TrimSuffix(base, ".sql"), SQL: string(b)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Version < out[j].Version })
	for i, m := range out {
		if m.Version != i+1 {
			return nil, fmt.Errorf("migration %s: expected version %d", m.Name, i+1)
		}
	}
	return out, nil
}

// Checksum returns the SHA-256 of a migration's SQL in hex, as the stores
// record it next to the version they applied.
func Checksum(sql string) string {
	sum := sha256.Sum256([]byte(sql))
	return hex.EncodeToString(sum[:])
}

// Applied is a migration as a database records it.
type Applied struct {
	Version int
	Name    string
	// Checksum is the Checksum of the SQL that was applied, or "" when the
	// migration was applied before the stores recorded checksums.
	Checksum string
}

// Plan is what a store does to bring a database up to date, in one
// transaction.
type Plan struct {
	// Apply holds the migrations the database lacks, in version order. The
	// store runs each and records it with its Checksum.
	Apply []Migration
	// Record holds applied migrations whose checksum the database lacks,
	// because a program that kept none applied them. The store records
	// the checksum of their SQL as it is now: the first program that keeps
	// checksums trusts that the text it holds is the text that was applied.
	Record []Migration
}

// NewerError is Check's error for a database whose schema version is higher
// than the last migration of the program.
type NewerError struct {
	// Database is the highest version the database records.
	Database int
	// Program is the version of the program's last migration.
	Program int
}

func (e *NewerError) Error() string {
	return fmt.Sprintf("the database's schema version %d is newer than this program's %d (its last migration): open it with a program at least as new as the one that migrated it", e.Database, e.Program)
}

// ChecksumError is Check's error for an applied migration whose SQL in the
// program is not the SQL the database recorded when it applied it.
type ChecksumError struct {
	// Name is the program's name of the migration; Recorded is the name
	// the database records for its version.
	Name, Recorded string
	// Want is the checksum the database records; Got is the checksum of
	// the program's SQL.
	Want, Got string
}

func (e *ChecksumError) Error() string {
	name := e.Name
	if e.Recorded != e.Name {
		name += " (recorded as " + e.Recorded + ")"
	}
	return fmt.Sprintf("migration %s was applied with a different text than this program holds (checksum %s recorded, %s now): an applied migration must not be edited; undo the edit and put the change in a new migration", name, e.Want, e.Got)
}

// Check compares what a database records, applied (in any order), with ms,
// the program's migrations from Load, and returns what the store must do.
// It returns a *NewerError when the database's schema is newer than the
// program, and a *ChecksumError when an applied migration's recorded
// checksum differs from the checksum of the program's SQL for its version.
// On an error the store must change nothing.
func Check(ms []Migration, applied []Applied) (Plan, error) {
	current := 0
	for _, a := range applied {
		current = max(current, a.Version)
	}
	if current > len(ms) {
		return Plan{}, &NewerError{Database: current, Program: len(ms)}
	}
	sorted := make([]Applied, len(applied))
	copy(sorted, applied)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Version < sorted[j].Version })
	var p Plan
	for _, a := range sorted {
		if a.Version < 1 {
			continue
		}
		m := ms[a.Version-1]
		sum := Checksum(m.SQL)
		switch a.Checksum {
		case "":
			p.Record = append(p.Record, m)
		case sum:
		default:
			return Plan{}, &ChecksumError{Name: m.Name, Recorded: a.Name, Want: a.Checksum, Got: sum}
		}
	}
	p.Apply = ms[current:]
	return p, nil
}
