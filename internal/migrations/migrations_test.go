package migrations

import (
	"errors"
	"strings"
	"testing"
	"testing/fstest"
)

func TestLoad(t *testing.T) {
	fsys := fstest.MapFS{
		"m/0002_second.sql": {Data: []byte("CREATE TABLE b (x INTEGER);")},
		"m/0001_first.sql":  {Data: []byte("CREATE TABLE a (x INTEGER);")},
		"m/README":          {Data: []byte("not a migration")},
	}
	ms, err := Load(fsys, "m")
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	if len(ms) != 2 || ms[0].Version != 1 || ms[0].Name != "0001_first" || ms[1].Version != 2 || ms[1].Name != "0002_second" {
		t.Fatalf("Load = %+v, want 0001_first then 0002_second", ms)
	}
	if ms[1].SQL != "CREATE TABLE b (x INTEGER);" {
		t.Errorf("Load: SQL of 0002_second = %q", ms[1].SQL)
	}
}

func TestLoadRefuses(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files []string
		want  string
	}{
		{"gap", []string{"0001_a.sql", "0003_c.sql"}, "0003_c: expected version 2"},
		{"no number", []string{"first.sql"}, "first.sql is not named NNNN_description.sql"},
		{"zero", []string{"0000_a.sql"}, "0000_a.sql is not named"},
		{"not from one", []string{"0002_b.sql"}, "0002_b: expected version 1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fsys := fstest.MapFS{}
			for _, f := range tc.files {
				fsys["m/"+f] = &fstest.MapFile{Data: []byte("SELECT 1;")}
			}
			_, err := Load(fsys, "m")
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Load(%v) = %v, want an error with %q", tc.files, err, tc.want)
			}
		})
	}
}

func TestChecksum(t *testing.T) {
	// The SHA-256 of "abc" (FIPS 180-2, appendix B.1).
	if got, want := Checksum("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"; got != want {
		t.Errorf("Checksum(abc) = %s, want %s", got, want)
	}
	if Checksum("CREATE TABLE a (x INTEGER);") == Checksum("CREATE TABLE a (x INTEGER);\n") {
		t.Errorf("Checksum ignores a trailing newline; it must see every byte")
	}
}

// three is a program's migrations for the tests of Check.
var three = []Migration{
	{Version: 1, Name: "0001_a", SQL: "CREATE TABLE a (x INTEGER);"},
	{Version: 2, Name: "0002_b", SQL: "CREATE TABLE b (x INTEGER);"},
	{Version: 3, Name: "0003_c", SQL: "CREATE TABLE c (x INTEGER);"},
}

// applied returns the record of ms as a store writes it.
func applied(ms ...Migration) []Applied {
	var out []Applied
	for _, m := range ms {
		out = append(out, Applied{Version: m.Version, Name: m.Name, Checksum: Checksum(m.SQL)})
	}
	return out
}

func names(ms []Migration) string {
	var out []string
	for _, m := range ms {
		out = append(out, m.Name)
	}
	return strings.Join(out, ",")
}

func TestCheck(t *testing.T) {
	noSums := applied(three[0], three[1])
	for i := range noSums {
		noSums[i].Checksum = ""
	}
	for _, tc := range []struct {
		name        string
		applied     []Applied
		apply, recd string
	}{
		{"new database", nil, "0001_a,0002_b,0003_c", ""},
		{"part applied", applied(three[0]), "0002_b,0003_c", ""},
		{"up to date", applied(three...), "", ""},
		{"any order", applied(three[2], three[0], three[1]), "", ""},
		{"no checksums yet", noSums, "0003_c", "0001_a,0002_b"},
		{"some checksums", append(applied(three[0]), noSums[1]), "0003_c", "0002_b"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := Check(three, tc.applied)
			if err != nil {
				t.Fatalf("Check: %v", err)
			}
			if got := names(p.Apply); got != tc.apply {
				t.Errorf("Apply = %q, want %q", got, tc.apply)
			}
			if got := names(p.Record); got != tc.recd {
				t.Errorf("Record = %q, want %q", got, tc.recd)
			}
		})
	}
}

func TestCheckNewer(t *testing.T) {
	rec := append(applied(three...), Applied{Version: 4, Name: "0004_d", Checksum: Checksum("CREATE TABLE d (x INTEGER);")})
	p, err := Check(three, rec)
	var ne *NewerError
	if !errors.As(err, &ne) {
		t.Fatalf("Check = %+v, %v; want a *NewerError", p, err)
	}
	if ne.Database != 4 || ne.Program != 3 {
		t.Errorf("NewerError = %+v, want Database 4, Program 3", ne)
	}
	for _, s := range []string{"schema version 4", "this program's 3"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error %q does not say %q", err, s)
		}
	}
	if len(p.Apply) != 0 || len(p.Record) != 0 {
		t.Errorf("Check returned a plan with its error: %+v", p)
	}
}

func TestCheckEdited(t *testing.T) {
	edited := []Migration{three[0], {Version: 2, Name: "0002_b", SQL: three[1].SQL + "\nCREATE INDEX b_x ON b (x);"}, three[2]}
	p, err := Check(edited, applied(three[0], three[1]))
	var ce *ChecksumError
	if !errors.As(err, &ce) {
		t.Fatalf("Check = %+v, %v; want a *ChecksumError", p, err)
	}
	if ce.Name != "0002_b" || ce.Want != Checksum(three[1].SQL) || ce.Got != Checksum(edited[1].SQL) {
		t.Errorf("ChecksumError = %+v, want 0002_b with the recorded and the new checksum", ce)
	}
	for _, s := range []string{"migration 0002_b", ce.Want, ce.Got} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error %q does not say %q", err, s)
		}
	}
	if strings.Contains(err.Error(), "recorded as") {
		t.Errorf("error %q speaks of another name, but the names agree", err)
	}
	if len(p.Apply) != 0 || len(p.Record) != 0 {
		t.Errorf("Check returned a plan with its error: %+v", p)
	}

	// Another migration under the same version (two branches both added a
	// 0002): the error names both.
	other := applied(three[0], Migration{Version: 2, Name: "0002_other", SQL: "CREATE TABLE o (x INTEGER);"})
	_, err = Check(three, other)
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), "migration 0002_b (recorded as 0002_other)") {
		t.Errorf("Check(another 0002) = %v, want a *ChecksumError naming 0002_b and 0002_other", err)
	}
}
