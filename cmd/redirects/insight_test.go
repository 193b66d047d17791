package main_test

import (
	"fmt"
	"maps"
	"strings"
	"testing"
)

// TestInsightThreeNodes sends a known mix of lookups to three nodes on one
// PostgreSQL database and checks that the hits per rule and the misses per
// path the store ends with are exactly the mix's, that a node's graceful
// stop writes what it counted since its last flush, and that the counts
// survive a restart of every node.
func TestInsightThreeNodes(t *testing.T) { eachEngine(t, testInsightThreeNodes) }

func testInsightThreeNodes(t *testing.T, c *cli) {
	redis := multiNode(t, c)
	_, p, key := deployed(t, c, "--tier", "enterprise")
	testKey := c.ok("key", "create", "--project", p, "--test")
	opts := []serveOption{withEnv("REDIRECTS_REDIS", redis.url())}
	nodes := []*edge{startEdge(t, c, opts...), startEdge(t, c, opts...), startEdge(t, c, opts...)}
	within(t, propagation, "the key on every node", func() bool {
		for _, n := range nodes {
			if n.get(lookupURL(p, "/old"), testKey).status != 200 {
				return false
			}
		}
		return true
	})

	// The mix, round robin over the nodes: hits of the exact rule /old and
	// of the prefix rule /blog, misses of two paths (one in two forms that
	// match alike), and test-key lookups, which count for neither.
	mix := []struct {
		path string
		n    int
	}{{"/old", 31}, {"/blog/a", 20}, {"/blog", 4}, {"/gone", 16}, {"/caf%C3%A9", 5}, {"/café?x=1", 4}}
	i := 0
	for _, m := range mix {
		for range m.n {
			want := 200
			if !strings.HasPrefix(m.path, "/old") && !strings.HasPrefix(m.path, "/blog") {
				want = 204
			}
			if r := nodes[i%3].get(lookupURL(p, m.path), key); r.status != want {
				t.Fatalf("lookup %s on node %d: %d %s", m.path, i%3, r.status, r.body)
			}
			i++
		}
	}
	for range 6 {
		nodes[1].get(lookupURL(p, "/old"), testKey)
		nodes[2].get(lookupURL(p, "/gone"), testKey)
	}
	wantHits := map[string]int64{"exact /old": 31, "starts_with /blog": 24}
	wantMisses := map[string]int64{"/gone": 16, "/café": 9}
	var hits, misses map[string]int64
	within(t, propagation, "every node's flush", func() bool {
		hits, misses = storedHits(c, p), storedMisses(c, p)
		return maps.Equal(hits, wantHits) && maps.Equal(misses, wantMisses)
	})
	if !maps.Equal(hits, wantHits) || !maps.Equal(misses, wantMisses) {
		t.Fatalf("stored hits %v and misses %v, want %v and %v", hits, misses, wantHits, wantMisses)
	}

	// A node stopped right after answering writes those counts as it stops.
	for range 7 {
		nodes[2].get(lookupURL(p, "/old"), key)
		nodes[2].get(lookupURL(p, "/gone"), key)
	}
	nodes[2].stop()
	wantHits["exact /old"] += 7
	wantMisses["/gone"] += 7
	if hits, misses := storedHits(c, p), storedMisses(c, p); !maps.Equal(hits, wantHits) || !maps.Equal(misses, wantMisses) {
		t.Fatalf("after a node's stop: hits %v and misses %v, want %v and %v", hits, misses, wantHits, wantMisses)
	}

	// Every node restarted: the store keeps the counts, and new ones add up.
	nodes[0].stop()
	nodes[1].stop()
	nodes = []*edge{startEdge(t, c, opts...), startEdge(t, c, opts...)}
	if hits, misses := storedHits(c, p), storedMisses(c, p); !maps.Equal(hits, wantHits) || !maps.Equal(misses, wantMisses) {
		t.Fatalf("after a restart: hits %v and misses %v, want %v and %v", hits, misses, wantHits, wantMisses)
	}
	for j := range 10 {
		nodes[j%2].get(lookupURL(p, "/blog/x"), key)
	}
	wantHits["starts_with /blog"] += 10
	within(t, propagation, "the restarted nodes' flush", func() bool {
		return maps.Equal(storedHits(c, p), wantHits)
	})

	// The stale-rules report: /old was hit, /new-rule (never deployed) was not.
	c.ok("rule", "add", "--project", p, "--source", "/new-rule", "--destination", "/x")
	var stale []struct {
		Source string `json:"source"`
		Hits   int64  `json:"hits"`
	}
	c.jsonOf(&stale, "hits", "--project", p, "--stale-since", "1h", "--json")
	if fmt.Sprint(stale) != "[{/new-rule 0}]" {
		t.Errorf("stale rules = %v, want /new-rule alone", stale)
	}
	out := c.ok("misses", "--project", p, "--limit", "1")
	if !strings.Contains(out, "23") || !strings.Contains(out, "/gone") || strings.Contains(out, "/café") {
		t.Errorf("misses --limit 1:\n%s\nwant /gone with 23 alone", out)
	}
}

// storedHits returns a project's hits as the CLI reports them, by match
// type and source, leaving out rules with none.
func storedHits(c *cli, project string) map[string]int64 {
	var list []struct {
		Source    string `json:"source"`
		MatchType string `json:"matchType"`
		Hits      int64  `json:"hits"`
	}
	c.jsonOf(&list, "hits", "--project", project, "--json")
	out := map[string]int64{}
	for _, h := range list {
		if h.Hits > 0 {
			out[h.MatchType+" "+h.Source] = h.Hits
		}
	}
	return out
}

// storedMisses returns a project's misses as the CLI reports them.
func storedMisses(c *cli, project string) map[string]int64 {
	var list []struct {
		Path  string `json:"path"`
		Count int64  `json:"count"`
	}
	c.jsonOf(&list, "misses", "--project", project, "--json")
	out := map[string]int64{}
	for _, m := range list {
		out[m.Path] = m.Count
	}
	return out
}
