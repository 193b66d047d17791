package manage

import (
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"testing"
	"time"

	"redirects"
	"redirects/api"
	"redirects/export"
	"redirects/internal/rulegen"
)

// TestImportAPI1M measures a 1,000,000-row upsert through POST .../imports
// over loopback HTTP, from the first byte sent to the report, on each
// store, and logs the times (BENCHMARKS.md records them):
//
//   - upsert-new: into an empty draft, every rule added;
//   - upsert-changed: into a draft that holds the same 1,000,000 rules,
//     10% of them with another destination in the file.
//
// It is long and loads the machine, so it runs only when asked:
//
//	REDIRECTS_TEST_IMPORT_1M=1 go test -run ImportAPI1M -v ./manage
func TestImportAPI1M(t *testing.T) {
	if os.Getenv("REDIRECTS_TEST_IMPORT_1M") == "" {
		t.Skip("REDIRECTS_TEST_IMPORT_1M is not set; run with REDIRECTS_TEST_IMPORT_1M=1 go test -run ImportAPI1M -v ./manage")
	}
	const n = 1_000_000
	rules := rulegen.Rules(n, 0.3, 1)
	var file bytes.Buffer
	if err := export.WriteCSV(&file, rules); err != nil {
		t.Fatal(err)
	}
	changed := make([]redirects.Rule, len(rules))
	copy(changed, rules)
	for i := 0; i < len(changed); i += 10 {
		changed[i].Destination = "/moved" + changed[i].Source
	}
	var changedFile bytes.Buffer
	if err := export.WriteCSV(&changedFile, changed); err != nil {
		t.Fatal(err)
	}
	t.Logf("file: %d rules, %.1f MB", n, float64(file.Len())/1e6)
	runSuite(t, func(t *testing.T, open newStoreFunc) {
		e := newEnv(t, open, false, nil)
		o := &redirects.Org{Name: "Bench", Tier: redirects.TierPro}
		if err := e.store.CreateOrg(e.ctx, o); err != nil {
			t.Fatal(err)
		}
		_, secret := e.token(o.ID, redirects.RoleEditor, "bench", 0)
		importOnce := func(name string, stored []redirects.Rule, body []byte, want importJSON) {
			p := &redirects.Project{OrgID: o.ID, Name: name}
			if err := e.store.CreateProject(e.ctx, p); err != nil {
				t.Fatal(err)
			}
			if stored != nil {
				start := time.Now()
				if _, err := e.store.ImportRules(e.ctx, p.ID, stored, false); err != nil {
					t.Fatal(err)
				}
				t.Logf("%s: the store's own import of the %d stored rules (no HTTP, no CSV) took %.1f s", name, len(stored), time.Since(start).Seconds())
			}
			req, _ := http.NewRequest("POST", e.srv.URL+"/manage/v1/projects/"+p.ID+"/imports?mode=upsert", bytes.NewReader(body))
			req.Header.Set("Content-Type", "text/csv")
			req.Header.Set("Authorization", "Bearer "+secret)
			start, cpu := time.Now(), cpuTime()
			res, err := e.srv.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			var rep importJSON
			err = json.NewDecoder(res.Body).Decode(&rep)
			res.Body.Close()
			took, cpuTook := time.Since(start), cpuTime()-cpu
			if err != nil || res.StatusCode != 200 || rep.Added != want.Added || rep.Updated != want.Updated || rep.Unchanged != want.Unchanged {
				t.Fatalf("%s: status %d, report %+v (%v), want %+v", name, res.StatusCode, rep, err, want)
			}
			t.Logf("%s: %d rows in %.1f s, %.1f s CPU of this process (added %d, updated %d, unchanged %d)",
				name, n, took.Seconds(), cpuTook.Seconds(), rep.Added, rep.Updated, rep.Unchanged)
		}
		importOnce("upsert-new", nil, file.Bytes(), importJSON{ImportCounts: api.ImportCounts{Added: n}})
		importOnce("upsert-changed", rules, changedFile.Bytes(), importJSON{ImportCounts: api.ImportCounts{Updated: n / 10, Unchanged: n - n/10}})
	})
}
