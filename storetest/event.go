package storetest

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"redirects"
)

func testEventRecorded(t *testing.T, e *env) {
	if id, err := e.s.LastEventID(e.ctx); err != nil || id != 0 {
		t.Fatalf("LastEventID on an empty store = %d, %v; want 0", id, err)
	}
	type want struct {
		kind, org, project string
		version            int
		at                 time.Time
	}
	var wants []want
	step := func() time.Time { return e.clock.Add(time.Second) }

	at := step()
	o := e.org("Acme")
	wants = append(wants, want{redirects.EventOrg, o.ID, "", 0, at})
	at = step()
	name := "Acme Inc"
	if _, err := e.s.UpdateOrg(e.ctx, o.ID, redirects.OrgUpdate{Name: &name}); err != nil {
		t.Fatalf("UpdateOrg: %v", err)
	}
	wants = append(wants, want{redirects.EventOrg, o.ID, "", 0, at})
	at = step()
	p := e.project(o.ID, "site")
	wants = append(wants, want{redirects.EventProject, o.ID, p.ID, 0, at})
	at = step()
	k, _ := e.key(p.ID, false)
	wants = append(wants, want{redirects.EventKey, o.ID, p.ID, 0, at})

	// Draft edits are invisible to edge nodes: no event.
	step()
	r := e.rule(p.ID, "/a", "/x", redirects.Exact, 100)
	if _, err := e.s.ImportRules(e.ctx, p.ID, batch("/b"), false); err != nil {
		t.Fatalf("ImportRules: %v", err)
	}
	if err := e.s.DeleteRule(e.ctx, p.ID, r.ID); err != nil {
		t.Fatalf("DeleteRule: %v", err)
	}

	at = step()
	e.deploy(p.ID, redirects.DeployOptions{})
	wants = append(wants, want{redirects.EventDeploy, o.ID, p.ID, 1, at})
	at = step()
	if _, err := e.s.RevokeKey(e.ctx, p.ID, k.ID); err != nil {
		t.Fatalf("RevokeKey: %v", err)
	}
	wants = append(wants, want{redirects.EventKey, o.ID, p.ID, 0, at})
	at = step()
	e.deploy(p.ID, redirects.DeployOptions{FromVersion: 1})
	wants = append(wants, want{redirects.EventDeploy, o.ID, p.ID, 2, at})

	evs := e.events()
	if len(evs) != len(wants) {
		t.Fatalf("FindEvents = %d events %+v, want %d", len(evs), evs, len(wants))
	}
	for i, w := range wants {
		ev := evs[i]
		if ev.Kind != w.kind || ev.OrgID != w.org || ev.ProjectID != w.project || ev.Version != w.version {
			t.Errorf("event %d = %s org %q project %q version %d, want %s org %q project %q version %d",
				i, ev.Kind, ev.OrgID, ev.ProjectID, ev.Version, w.kind, w.org, w.project, w.version)
		}
		wantTime(t, fmt.Sprintf("event %d CreatedAt", i), ev.CreatedAt, w.at)
		if i > 0 && ev.ID <= evs[i-1].ID {
			t.Errorf("event %d has ID %d, not above the previous %d", i, ev.ID, evs[i-1].ID)
		}
	}
	if id, err := e.s.LastEventID(e.ctx); err != nil || id != evs[len(evs)-1].ID {
		t.Errorf("LastEventID = %d, %v; want %d", id, err, evs[len(evs)-1].ID)
	}
}

func testEventPaging(t *testing.T, e *env) {
	o := e.org("A")
	for i := 0; i < 4; i++ {
		e.project(o.ID, fmt.Sprint(i))
	}
	all := e.events()
	if len(all) != 5 {
		t.Fatalf("FindEvents = %d events, want 5", len(all))
	}
	ids := func(evs []redirects.Event) []int64 {
		var out []int64
		for _, ev := range evs {
			out = append(out, ev.ID)
		}
		return out
	}
	for _, tc := range []struct {
		after int64
		limit int
		want  []redirects.Event
	}{
		{0, 2, all[:2]},
		{all[1].ID, 2, all[2:4]},
		{all[3].ID, 2, all[4:]},
		{all[4].ID, 2, nil},
		{all[0].ID, 100, all[1:]},
	} {
		got, err := e.s.FindEvents(e.ctx, tc.after, tc.limit)
		if err != nil {
			t.Fatalf("FindEvents(%d, %d): %v", tc.after, tc.limit, err)
		}
		if !slices.Equal(ids(got), ids(tc.want)) {
			t.Errorf("FindEvents(%d, %d) = %v, want %v", tc.after, tc.limit, ids(got), ids(tc.want))
		}
	}
}
