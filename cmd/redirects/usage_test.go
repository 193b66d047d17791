package main_test

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"redirects"
)

func TestEdgeUsagePerKeyAndDay(t *testing.T) { eachEngine(t, testEdgeUsagePerKeyAndDay) }

// testEdgeUsagePerKeyAndDay sends a known mix of requests with two live
// keys over two days and checks that the store holds, after the edge's
// periodic flush, exactly the live lookups that consumed quota, per key and
// per day, adding up to the organization's monthly usage.
func testEdgeUsagePerKeyAndDay(t *testing.T, c *cli) {
	org, p, keyA := deployed(t, c)
	keyB := c.ok("key", "create", "--project", p, "--name", "second")
	test := c.ok("key", "create", "--project", p, "--test")
	s := openAccounts(t, c).(redirects.Store)
	ctx := context.Background()
	ids := map[string]string{} // secret -> ID
	keys, err := s.FindKeys(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range keys {
		for _, secret := range []string{keyA, keyB, test} {
			if secret[len(secret)-4:] == k.Last4 {
				ids[secret] = k.ID
			}
		}
	}
	clock := newTestClock(clockStart) // 2026-03-10 12:30:02
	e := startEdge(t, c, func(sc *serveConfig) { sc.clock = clock })
	want := func(status int, target, key string) {
		t.Helper()
		if r := e.get(target, key); r.status != status {
			t.Fatalf("GET %s: %d, want %d; %s", target, r.status, status, r.body)
		}
	}
	// Day one. Key A: 3 hits, 1 miss, 1 lookup with bad parameters (400,
	// after the limits: it consumed quota). Key B: 2 hits and an export.
	// Neither the test key, nor an unknown key, nor an export counts.
	for range 3 {
		want(200, lookupURL(p, "/old"), keyA)
	}
	want(204, lookupURL(p, "/nothing"), keyA)
	want(400, "/v1/lookup?project="+p, keyA)
	want(200, lookupURL(p, "/blog/x"), keyB)
	want(200, lookupURL(p, "/old"), keyB)
	want(200, "/v1/export?project="+p+"&format=csv", keyB)
	want(200, lookupURL(p, "/old"), test)
	want(200, lookupURL(p, "/old"), test)
	want(401, lookupURL(p, "/old"), "redir_live_"+"0123456789abcdef0123456789abcdef")
	// Day two: key A once, key B four times.
	clock.Set(time.Date(2026, 3, 11, 0, 0, 5, 0, time.UTC))
	want(200, lookupURL(p, "/old"), keyA)
	for range 4 {
		want(204, lookupURL(p, "/none"), keyB)
	}

	a, b := ids[keyA], ids[keyB]
	wantRows := []redirects.DailyUsage{{KeyID: a, Day: "2026-03-10", Count: 5}, {KeyID: b, Day: "2026-03-10", Count: 2},
		{KeyID: a, Day: "2026-03-11", Count: 1}, {KeyID: b, Day: "2026-03-11", Count: 4}}
	// FindDailyUsage sorts by day, then key ID.
	slices.SortFunc(wantRows, func(x, y redirects.DailyUsage) int {
		return cmp.Or(strings.Compare(x.Day, y.Day), strings.Compare(x.KeyID, y.KeyID))
	})
	var got []redirects.DailyUsage
	// The edge flushes every second while it runs.
	within(t, 5*time.Second, "the per-key usage flush", func() bool {
		got, err = s.FindDailyUsage(ctx, org, "2026-03")
		return err == nil && slices.Equal(got, wantRows)
	})
	total := int64(0)
	for _, r := range got {
		total += r.Count
	}
	within(t, 5*time.Second, "the monthly usage flush", func() bool {
		u, err := s.FindUsage(ctx, "2026-03")
		return err == nil && u[org] == total && total == 12
	})
	// Nothing more is written at shutdown: the counts were flushed once.
	e.stop()
	if got, err := s.FindDailyUsage(ctx, org, "2026-03"); err != nil || !slices.Equal(got, wantRows) {
		t.Fatalf("after shutdown: %+v (%v), want %+v", got, err, wantRows)
	}
}

func TestNodesUsagePerKey(t *testing.T) { eachEngine(t, testNodesUsagePerKey) }

// testNodesUsagePerKey: two nodes sharing limits through Redis count each
// key's lookups on their own, and the store sums them.
func testNodesUsagePerKey(t *testing.T, c *cli) {
	redis := multiNode(t, c)
	org, p, keyA := deployed(t, c)
	keyB := c.ok("key", "create", "--project", p)
	s := openAccounts(t, c).(redirects.Store)
	ctx := context.Background()
	keys, err := s.FindKeys(ctx, p)
	if err != nil || len(keys) != 2 {
		t.Fatalf("FindKeys = %d keys, %v", len(keys), err)
	}
	ids := map[string]string{}
	for _, k := range keys {
		for _, secret := range []string{keyA, keyB} {
			if strings.HasSuffix(secret, k.Last4) {
				ids[secret] = k.ID
			}
		}
	}
	opts := []serveOption{withEnv("REDIRECTS_REDIS", redis.url()), atClockStart}
	nodes := []*edge{startEdge(t, c, opts...), startEdge(t, c, opts...)}
	send := func(n *edge, key string, times int) {
		t.Helper()
		for range times {
			if r := n.get(lookupURL(p, "/old"), key); r.status != 200 {
				t.Fatalf("lookup: %d %s", r.status, r.body)
			}
		}
	}
	send(nodes[0], keyA, 3)
	send(nodes[0], keyB, 1)
	send(nodes[1], keyA, 2)
	send(nodes[1], keyB, 4)
	want := []redirects.DailyUsage{{KeyID: ids[keyA], Day: "2026-03-10", Count: 5}, {KeyID: ids[keyB], Day: "2026-03-10", Count: 5}}
	slices.SortFunc(want, func(x, y redirects.DailyUsage) int { return strings.Compare(x.KeyID, y.KeyID) })
	within(t, 5*time.Second, "both nodes' per-key usage", func() bool {
		got, err := s.FindDailyUsage(ctx, org, "2026-03")
		return err == nil && slices.Equal(got, want)
	})
	within(t, 5*time.Second, "both nodes' monthly usage", func() bool {
		u, err := s.FindUsage(ctx, "2026-03")
		return err == nil && u[org] == 10
	})
}
