package manage

import (
	"testing"

	"redirects"
	"redirects/api"
)

func TestUsagePerDayAndKey(t *testing.T) { runSuite(t, testUsagePerDayAndKey) }

func testUsagePerDayAndKey(t *testing.T, open newStoreFunc) {
	e := newEnv(t, open, false, nil) // today is 2026-03-14
	o := e.newOrg("Acme")
	other := e.newOrg("Other")
	viewer := o.tokens[redirects.RoleViewer]
	k2, _ := redirects.NewKey(o.project.ID, "second", false, e.clock.Now())
	idle, _ := redirects.NewKey(o.project.ID, "idle", false, e.clock.Now())
	test, _ := redirects.NewKey(o.project.ID, "test", true, e.clock.Now())
	for _, k := range []*redirects.Key{k2, idle, test} {
		if err := e.store.CreateKey(e.ctx, k); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.store.AddUsage(e.ctx, "2026-03", map[string]int64{o.org.ID: 16}); err != nil {
		t.Fatal(err)
	}
	if err := e.store.AddKeyUsage(e.ctx, []redirects.DailyUsage{
		{KeyID: o.key.ID, Day: "2026-03-01", Count: 5},
		{KeyID: k2.ID, Day: "2026-03-01", Count: 1},
		{KeyID: o.key.ID, Day: "2026-03-14", Count: 2},
		{KeyID: k2.ID, Day: "2026-03-13", Count: 8},
		{KeyID: o.key.ID, Day: "2026-02-28", Count: 4},
		{KeyID: other.key.ID, Day: "2026-03-02", Count: 100},
	}); err != nil {
		t.Fatal(err)
	}
	var u usageJSON
	viewer.do("GET", "/manage/v1/orgs/"+o.org.ID+"/usage", nil).want(t, 200).decode(t, &u)
	if u.Month != "2026-03" || u.Total != 16 || u.Quota != "1000000" || u.RateLimit != "1000" {
		t.Fatalf("usage = %+v", u)
	}
	// Days: the 1st to today, zeros included.
	if len(u.Days) != 14 || u.Days[0] != (dayJSON{Day: "2026-03-01", Count: 6}) || u.Days[1] != (dayJSON{Day: "2026-03-02", Count: 0}) ||
		u.Days[12] != (dayJSON{Day: "2026-03-13", Count: 8}) || u.Days[13] != (dayJSON{Day: "2026-03-14", Count: 2}) {
		t.Fatalf("days = %+v", u.Days)
	}
	// Keys: by count; the idle live key with zero; the test key not at all.
	if len(u.Keys) != 3 {
		t.Fatalf("keys = %+v", u.Keys)
	}
	k := u.Keys[0]
	if k.ID != k2.ID || k.Name != "second" || k.Last4 != k2.Last4 || k.ProjectID != o.project.ID || k.Count != 9 ||
		len(k.Days) != 2 || k.Days[0] != (dayJSON{Day: "2026-03-01", Count: 1}) || k.Days[1] != (dayJSON{Day: "2026-03-13", Count: 8}) {
		t.Fatalf("first key = %+v", k)
	}
	if k := u.Keys[1]; k.ID != o.key.ID || k.Count != 7 || len(k.Days) != 2 {
		t.Fatalf("second key = %+v", k)
	}
	if k := u.Keys[2]; k.ID != idle.ID || k.Count != 0 || k.Days == nil || len(k.Days) != 0 {
		t.Fatalf("idle key = %+v", k)
	}

	// A past month: every day of it.
	viewer.do("GET", "/manage/v1/orgs/"+o.org.ID+"/usage?month=2026-02", nil).want(t, 200).decode(t, &u)
	if u.Total != 0 || len(u.Days) != 28 || u.Days[27] != (dayJSON{Day: "2026-02-28", Count: 4}) || u.Keys[0].ID != o.key.ID || u.Keys[0].Count != 4 {
		t.Fatalf("February = %+v", u)
	}
	// A future month: no days yet.
	viewer.do("GET", "/manage/v1/orgs/"+o.org.ID+"/usage?month=2026-04", nil).want(t, 200).decode(t, &u)
	if len(u.Days) != 0 || u.Total != 0 {
		t.Fatalf("April = %+v", u)
	}
	viewer.do("GET", "/manage/v1/orgs/"+o.org.ID+"/usage?month=2026-13", nil).want(t, 400, codeInvalidQuery)
	viewer.do("GET", "/manage/v1/orgs/"+other.org.ID+"/usage", nil).want(t, 404)

	// The key list shows each key's last day of use.
	var keys struct{ Keys []api.ListedKey }
	viewer.do("GET", "/manage/v1/projects/"+o.project.ID+"/keys", nil).want(t, 200).decode(t, &keys)
	last := map[string]*string{}
	for _, k := range keys.Keys {
		last[k.ID] = k.LastUsedAt
	}
	if len(last) != 4 || last[o.key.ID] == nil || *last[o.key.ID] != "2026-03-14" || last[k2.ID] == nil || *last[k2.ID] != "2026-03-13" ||
		last[idle.ID] != nil || last[test.ID] != nil {
		t.Fatalf("keys = %+v", keys.Keys)
	}
}
