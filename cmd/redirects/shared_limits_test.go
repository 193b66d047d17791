package main_test

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"redirects/internal/testproxy"
)

// TestSharedLimitsExact: three nodes on PostgreSQL and Redis, limits of 30
// and 1,000 a minute and a quota of 500. With requests round robin, and
// all on one node after the others took shares, the cluster admits no more
// than the limit, and no fewer than the limit minus one per node while
// requests keep coming.
func TestSharedLimitsExact(t *testing.T) { eachEngine(t, testSharedLimitsExact) }

func testSharedLimitsExact(t *testing.T, c *cli) {
	redis := multiNode(t, c)
	opts := []serveOption{withEnv("REDIRECTS_REDIS", redis.url()), atClockStart}
	nodes := []*edge{startEdge(t, c, opts...), startEdge(t, c, opts...), startEdge(t, c, opts...)}
	for _, tt := range []struct {
		name  string
		flags []string
		limit int
	}{
		{"30 a minute", []string{"--rate-limit", "30"}, 30},
		{"1000 a minute", []string{"--rate-limit", "1000"}, 1000},
		{"500 a month", []string{"--rate-limit", "100000", "--monthly-quota", "500"}, 500},
	} {
		for _, spread := range []string{"round robin", "one node"} {
			unlessFellBack(t, nodes, func() error {
				_, p, key := deployed(t, c, tt.flags...)
				ready(t, c, nodes, p)
				admitted, other := 0, 0
				ask := func(n *edge) {
					switch r := n.get(lookupURL(p, "/old"), key); r.status {
					case 200:
						admitted++
					case 429:
					default:
						other++
						t.Errorf("%s, %s: %d %s", tt.name, spread, r.status, r.body)
					}
				}
				if spread == "round robin" {
					for i := 0; i < 2*tt.limit; i++ {
						ask(nodes[i%3])
					}
				} else {
					// Two nodes take shares and go quiet; the third gets every
					// request from then on, and reaches the limit once the
					// others give back what they hold.
					ask(nodes[0])
					ask(nodes[1])
					deadline := time.Now().Add(10 * time.Second)
					for admitted < tt.limit && time.Now().Before(deadline) {
						ask(nodes[2])
						if admitted >= tt.limit-3 {
							time.Sleep(5 * time.Millisecond)
						}
					}
					for i := 0; i < 30; i++ {
						ask(nodes[2])
					}
				}
				// Requests decided without Redis (a loaded machine): one at a
				// time, nothing else takes units meanwhile, and a node admits
				// alone at most a sixteenth of what was left, so the limit
				// holds all the same.
				extra := 0
				for _, n := range nodes {
					v, _ := strconv.Atoi(n.metric("redirects_limiter_redis_timeouts_total"))
					extra += v
				}
				t.Logf("%s, %s: %d admitted (%d decided without Redis)", tt.name, spread, admitted, extra)
				if admitted > tt.limit || admitted < tt.limit-len(nodes) {
					return fmt.Errorf("%s, %s: %d admitted across three nodes, want %d (at least %d)", tt.name, spread, admitted, tt.limit, tt.limit-len(nodes))
				}
				return nil
			})
		}
	}
	var trips, waits int
	for _, n := range nodes {
		v, _ := strconv.Atoi(n.metric("redirects_limiter_redis_round_trips_total"))
		w, _ := strconv.Atoi(n.metric("redirects_limiter_redis_waits_total"))
		trips, waits = trips+v, waits+w
	}
	if trips == 0 || waits == 0 {
		t.Fatalf("round trips %d, waits %d: the metrics do not count the shared limiter's work", trips, waits)
	}
}

// ready waits until every node knows project p and its keys. It asks with
// a test key of its own, which counts in the test window only: the live
// window and the quota stay untouched.
func ready(t *testing.T, c *cli, nodes []*edge, p string) {
	t.Helper()
	probe := c.ok("key", "create", "--project", p, "--test")
	for _, n := range nodes {
		within(t, propagation, "the new project and keys on every node", func() bool {
			return n.get(lookupURL(p, "/old"), probe).status == 200
		})
	}
}

// TestNodesThroughRedisFaults: Redis slow (700 ms before every reply),
// sending a malformed reply, stopped, and restarted. Lookups keep
// answering, each node falls back once and says so, and once Redis is
// back nothing more is admitted in the minute than the limit allows.
func TestNodesThroughRedisFaults(t *testing.T) { eachEngine(t, testNodesThroughRedisFaults) }

func testNodesThroughRedisFaults(t *testing.T, c *cli) {
	redis := multiNode(t, c)
	px := testproxy.Start(t, "127.0.0.1:0", "127.0.0.1:"+redis.port)
	opts := []serveOption{withEnv("REDIRECTS_REDIS", "redis://"+px.Addr()+"/0"), atClockStart}
	nodes := []*edge{startEdge(t, c, opts...), startEdge(t, c, opts...)}
	_, p, key := deployed(t, c, "--rate-limit", "60")
	ready(t, c, nodes, p)
	admitted := 0
	load := func(n int) {
		t.Helper()
		for i := 0; i < n; i++ {
			r := nodes[i%len(nodes)].get(lookupURL(p, "/old"), key)
			switch {
			case r.status == 200:
				admitted++
			case r.status != 429:
				t.Fatalf("lookup answered %d %s", r.status, r.body)
			}
		}
	}
	fallback := func(want string) {
		t.Helper()
		for _, n := range nodes {
			within(t, 15*time.Second, "redirects_limiter_fallback "+want, func() bool { return n.metric("redirects_limiter_fallback") == want })
		}
	}
	load(4)

	for _, fault := range []string{"slow", "malformed"} {
		switch fault {
		case "slow":
			px.SetDelay(700 * time.Millisecond)
		case "malformed":
			px.ReplaceNextReply([]byte("$9223372036854775807\r\n"))
		}
		// Every lookup is answered: decided from a share in hand, or
		// after at most the bound (the nodes count those), or per node.
		for i := 0; i < 40 && !(nodes[0].metric("redirects_limiter_fallback") == "1" && nodes[1].metric("redirects_limiter_fallback") == "1"); i++ {
			load(2)
			if fault == "malformed" {
				px.ReplaceNextReply([]byte("$9223372036854775807\r\n"))
			}
		}
		fallback("1")
		px.SetDelay(0)
		px.ReplaceNextReply(nil)
		fallback("0")
		t.Logf("after Redis was %s: %d admitted", fault, admitted)
	}
	if strings.Count(nodes[0].logText(), "Redis unreachable") != 2 {
		t.Fatalf("want one log line per fallback (two):\n%s", nodes[0].logText())
	}
	if n := nodes[0].metric("redirects_limiter_redis_timeouts_total"); n == "0" || n == "" {
		t.Fatalf("redirects_limiter_redis_timeouts_total %q after a slow Redis, want requests that stopped waiting", n)
	}

	// Stopped and restarted: lookups go on per node, then shared again.
	redis.stop()
	load(4)
	fallback("1")
	startRedis(t, redis.port)
	fallback("0")
	t.Logf("after Redis restarted: %d admitted", admitted)

	// What the nodes admitted alone went into the shared window when
	// Redis came back (the restarted one knew nothing of it): the minute's
	// 60 hold.
	load(200)
	if admitted > 60 {
		t.Fatalf("%d admitted in one minute with a limit of 60 around Redis faults", admitted)
	}
	t.Logf("%d admitted of 60 around the faults", admitted)
}

// TestSharedLimitsSlowRedis: two nodes whose Redis is 2 ms away, 128
// clients racing for a limit of 200 a minute. Requests queue on each node
// for the round trips near the limit; the cluster still admits no more
// than the limit, and no fewer than the limit minus one per node.
func TestSharedLimitsSlowRedis(t *testing.T) { eachEngine(t, testSharedLimitsSlowRedis) }

func testSharedLimitsSlowRedis(t *testing.T, c *cli) {
	redis := multiNode(t, c)
	px := testproxy.Start(t, "127.0.0.1:0", "127.0.0.1:"+redis.port)
	px.SetDelay(2 * time.Millisecond)
	opts := []serveOption{withEnv("REDIRECTS_REDIS", "redis://"+px.Addr()+"/0"), atClockStart}
	nodes := []*edge{startEdge(t, c, opts...), startEdge(t, c, opts...)}
	unlessFellBack(t, nodes, func() error {
		timeouts0, local0 := localDecisions(t, nodes)
		_, p, key := deployed(t, c, "--rate-limit", "200")
		ready(t, c, nodes, p)
		var admitted, other atomic.Int64
		var wg sync.WaitGroup
		for g := 0; g < 128; g++ {
			wg.Add(1)
			go func(n *edge) {
				defer wg.Done()
				for i := 0; i < 4; i++ {
					switch r := n.get(lookupURL(p, "/old"), key); r.status {
					case 200:
						admitted.Add(1)
					case 429:
					default:
						other.Add(1)
					}
				}
			}(nodes[g%2])
		}
		wg.Wait()
		// Requests Redis did not answer within 50 ms (a loaded machine) are
		// decided by their node alone: those admitted are the most the
		// cluster can admit beyond the limit (docs/contract.md), and those
		// refused may leave the units their node asked for unspent.
		timeouts, local := localDecisions(t, nodes)
		timeouts, local = timeouts-timeouts0, local-local0
		t.Logf("%d admitted of 512 by 128 clients on two nodes (%d decided without Redis, %d of them admitted)", admitted.Load(), timeouts, local)
		if n, least := admitted.Load(), 200-int64(len(nodes))-(timeouts-local); other.Load() != 0 || n > 200+local || n < least {
			return fmt.Errorf("%d admitted (and %d neither 200 nor 429) with a limit of 200, want at most %d and at least %d", n, other.Load(), 200+local, least)
		}
		return nil
	})
}

// unlessFellBack runs a scenario of nodes sharing limits, up to three
// times, until a run in which no node fell back to per-node counting, and
// fails the test with that run's error, if any. A machine loaded enough to
// stall a round trip to Redis past 150 ms makes a node fall back by
// design, and the nodes then count each by itself: what a run asserts of
// the shared limit does not hold then. Before another run, every node
// shares limits again. A fallback for an error (not for slow answers), or
// three runs that all fell back, fail the test.
func unlessFellBack(t *testing.T, nodes []*edge, run func() error) {
	t.Helper()
	// The lines a node logs when it falls back, all of them and those for
	// slow answers.
	fallbacks := func() (all, slow int) {
		for _, e := range nodes {
			for _, line := range strings.Split(e.logText(), "\n") {
				if strings.Contains(line, "Redis unreachable") {
					all++
					if strings.Contains(line, "answered slower than") {
						slow++
					}
				}
			}
		}
		return all, slow
	}
	for i := 1; ; i++ {
		all0, slow0 := fallbacks()
		err := run()
		all, slow := fallbacks()
		switch fell := all != all0; {
		case all-all0 != slow-slow0:
			t.Fatalf("a node fell back to per-node counting for an error, not for slow answers (%v)", err)
		case !fell && err != nil:
			t.Fatal(err)
		case !fell:
			return
		case i == 3:
			t.Fatalf("a node fell back to per-node counting for slow answers in each of three runs (last: %v)", err)
		}
		t.Logf("run %d: a node fell back to per-node counting for slow answers (a loaded machine), so the limit was not shared: again (%v)", i, err)
		for _, e := range nodes {
			within(t, 15*time.Second, "shared counting again", func() bool { return e.metric("redirects_limiter_fallback") == "0" })
		}
	}
}

// localDecisions sums the nodes' requests decided without Redis, and
// those of them admitted.
func localDecisions(t *testing.T, nodes []*edge) (timeouts, admitted int64) {
	t.Helper()
	for _, n := range nodes {
		v, _ := strconv.Atoi(n.metric("redirects_limiter_redis_timeouts_total"))
		a, err := strconv.Atoi(n.metric("redirects_limiter_local_admits_total"))
		if err != nil {
			t.Fatalf("redirects_limiter_local_admits_total: %v", err)
		}
		timeouts, admitted = timeouts+int64(v), admitted+int64(a)
	}
	return timeouts, admitted
}
