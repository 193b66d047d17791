package edge

// lru is a least-recently-used cache of at most max entries; callers lock.
// Entries sit in a map and on a doubly linked list in recency order, so a
// hit, an insertion and an eviction each cost the same whatever the number
// of entries (the export cache holds up to a million).
type lru[K comparable, V any] struct {
	max   int
	items map[K]*lruEntry[K, V]
	// root is the list's sentinel: root.next is the most recently used
	// entry, root.prev the least.
	root lruEntry[K, V]
}

type lruEntry[K comparable, V any] struct {
	prev, next *lruEntry[K, V]
	key        K
	value      V
}

func newLRU[K comparable, V any](max int) *lru[K, V] {
	l := &lru[K, V]{max: max, items: map[K]*lruEntry[K, V]{}}
	l.root.prev, l.root.next = &l.root, &l.root
	return l
}

// get returns k's value and marks it the most recently used.
func (l *lru[K, V]) get(k K) (V, bool) {
	e, ok := l.items[k]
	if !ok {
		var zero V
		return zero, false
	}
	l.unlink(e)
	l.pushFront(e)
	return e.value, true
}

// contains reports whether k is cached, without marking it used.
func (l *lru[K, V]) contains(k K) bool {
	_, ok := l.items[k]
	return ok
}

// add sets k's value and marks it the most recently used. A new key beyond
// max evicts the least recently used entry, which add returns (ok true).
func (l *lru[K, V]) add(k K, v V) (evictedKey K, evicted V, ok bool) {
	if e, found := l.items[k]; found {
		e.value = v
		l.unlink(e)
		l.pushFront(e)
		return evictedKey, evicted, false
	}
	if l.max <= 0 {
		return evictedKey, evicted, false
	}
	if len(l.items) >= l.max {
		evictedKey, evicted, ok = l.removeOldest()
	}
	e := &lruEntry[K, V]{key: k, value: v}
	l.items[k] = e
	l.pushFront(e)
	return evictedKey, evicted, ok
}

// remove drops k's entry, if any.
func (l *lru[K, V]) remove(k K) {
	if e, ok := l.items[k]; ok {
		l.unlink(e)
		delete(l.items, k)
	}
}

// removeOldest drops the least recently used entry and returns it (ok
// false when the cache is empty).
func (l *lru[K, V]) removeOldest() (k K, v V, ok bool) {
	e := l.root.prev
	if e == &l.root {
		return k, v, false
	}
	l.unlink(e)
	delete(l.items, e.key)
	return e.key, e.value, true
}

func (l *lru[K, V]) unlink(e *lruEntry[K, V]) {
	e.prev.next = e.next
	e.next.prev = e.prev
	e.prev, e.next = nil, nil
}

func (l *lru[K, V]) pushFront(e *lruEntry[K, V]) {
	e.prev = &l.root
	e.next = l.root.next
	l.root.next.prev = e
	l.root.next = e
}
