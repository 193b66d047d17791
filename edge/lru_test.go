package edge

import "testing"

func TestLRU(t *testing.T) {
	l := newLRU[string, int](3)
	for i, k := range []string{"a", "b", "c"} {
		if _, _, evicted := l.add(k, i); evicted {
			t.Fatalf("add(%s) evicted below max", k)
		}
	}
	// A hit makes "a" the most recent, so "b" is the oldest.
	if v, ok := l.get("a"); !ok || v != 0 {
		t.Fatalf("get(a) = %d, %v", v, ok)
	}
	k, v, evicted := l.add("d", 3)
	if !evicted || k != "b" || v != 1 {
		t.Fatalf("add(d) evicted %q=%d (%v), want b=1", k, v, evicted)
	}
	if l.contains("b") || !l.contains("a") || !l.contains("c") || !l.contains("d") {
		t.Fatalf("after eviction: a %v b %v c %v d %v", l.contains("a"), l.contains("b"), l.contains("c"), l.contains("d"))
	}
	// contains does not count as use: "c" stays the oldest.
	l.contains("c")
	// Updating an entry replaces its value and marks it used, evicting nothing.
	if _, _, evicted := l.add("c", 30); evicted {
		t.Fatal("updating an entry evicted one")
	}
	if v, _ := l.get("c"); v != 30 {
		t.Fatalf("get(c) = %d, want 30", v)
	}
	var order []string
	for {
		k, _, ok := l.removeOldest()
		if !ok {
			break
		}
		order = append(order, k)
	}
	if len(order) != 3 || order[0] != "a" || order[1] != "d" || order[2] != "c" {
		t.Fatalf("eviction order %v, want [a d c]", order)
	}
	if len(l.items) != 0 {
		t.Fatalf("%d items left", len(l.items))
	}
	if _, ok := l.get("a"); ok {
		t.Fatal("get on an empty cache found an entry")
	}
}

func TestLRUZero(t *testing.T) {
	l := newLRU[int, int](0)
	l.add(1, 1)
	if l.contains(1) {
		t.Fatal("a cache of 0 entries kept one")
	}
}
