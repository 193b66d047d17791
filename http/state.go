package http

import (
	"context"
	"encoding/hex"
	"fmt"
	"sync"
	"sync/atomic"

	"redirects"
)

// catalog is an immutable picture of what the edge needs to answer without
// the store: organizations, projects with their latest compiled deployment,
// and keys by hash. A change builds a new catalog and swaps it in.
type catalog struct {
	orgs     map[string]*redirects.Org
	projects map[string]*projectState
	keys     map[[32]byte]*redirects.Key
}

// projectState is a project and its latest deployment, if any.
type projectState struct {
	project *redirects.Project
	latest  *deployed
}

// deployed is one compiled deployment.
type deployed struct {
	version int
	snap    *redirects.Snapshot
}

// State holds the current catalog and follows the store's events to keep it
// current. Lookups read it without locks.
type State struct {
	store   redirects.Store
	current atomic.Pointer[catalog]
	lastID  atomic.Int64

	// old caches compiled older versions, loaded on demand.
	oldMu sync.Mutex
	old   *lru[versionKey, *deployed]
}

type versionKey struct {
	project string
	version int
}

// LoadState reads the whole catalog and every project's latest deployment.
func LoadState(ctx context.Context, store redirects.Store, oldVersions int) (*State, error) {
	s := &State{store: store, old: newLRU[versionKey, *deployed](oldVersions)}
	last, err := store.LastEventID(ctx)
	if err != nil {
		return nil, err
	}
	c, err := s.loadCatalog(ctx, nil)
	if err != nil {
		return nil, err
	}
	for id, p := range c.projects {
		if p.latest, err = s.loadDeployment(ctx, id, 0); err != nil {
			return nil, err
		}
	}
	s.current.Store(c)
	s.lastID.Store(last)
	return s, nil
}

// loadCatalog reads organizations, projects and keys; deployments are
// carried over from prev where the project is still there.
func (s *State) loadCatalog(ctx context.Context, prev *catalog) (*catalog, error) {
	orgs, err := s.store.FindOrgs(ctx)
	if err != nil {
		return nil, err
	}
	projects, err := s.store.FindProjects(ctx, "")
	if err != nil {
		return nil, err
	}
	keys, err := s.store.FindKeys(ctx, "")
	if err != nil {
		return nil, err
	}
	c := &catalog{
		orgs:     make(map[string]*redirects.Org, len(orgs)),
		projects: make(map[string]*projectState, len(projects)),
		keys:     make(map[[32]byte]*redirects.Key, len(keys)),
	}
	for _, o := range orgs {
		c.orgs[o.ID] = o
	}
	for _, p := range projects {
		ps := &projectState{project: p}
		if prev != nil {
			if old := prev.projects[p.ID]; old != nil {
				ps.latest = old.latest
			}
		}
		c.projects[p.ID] = ps
	}
	for _, k := range keys {
		var h [32]byte
		if _, err := hex.Decode(h[:], []byte(k.Hash)); err != nil {
			return nil, fmt.Errorf("key %s has a malformed hash: %w", k.ID, err)
		}
		c.keys[h] = k
	}
	return c, nil
}

// loadDeployment compiles one version (0: the latest), or returns nil when
// the project has no deployment.
func (s *State) loadDeployment(ctx context.Context, projectID string, version int) (*deployed, error) {
	d, rules, err := s.store.FindDeployment(ctx, projectID, version)
	if redirects.ErrorCode(err) == redirects.ENOTFOUND && version == 0 {
		return nil, nil
	} else if err != nil {
		return nil, err
	}
	return &deployed{version: d.Version, snap: redirects.Compile(rules)}, nil
}

// Catalog returns the current catalog.
func (s *State) catalog() *catalog { return s.current.Load() }

// refreshBatch is the most events one Refresh reads.
const refreshBatch = 1000

// Refresh applies the events recorded since the last refresh. It returns
// how many it applied.
func (s *State) Refresh(ctx context.Context) (int, error) {
	after := s.lastID.Load()
	events, err := s.store.FindEvents(ctx, after, refreshBatch)
	if err != nil || len(events) == 0 {
		return 0, err
	}
	cur := s.current.Load()
	next := cur
	deploys := map[string]bool{}
	reloadCatalog := false
	for _, e := range events {
		if e.Kind == redirects.EventDeploy {
			deploys[e.ProjectID] = true
		} else {
			reloadCatalog = true
		}
	}
	if reloadCatalog {
		if next, err = s.loadCatalog(ctx, cur); err != nil {
			return 0, err
		}
	} else {
		next = &catalog{orgs: cur.orgs, keys: cur.keys, projects: make(map[string]*projectState, len(cur.projects))}
		for id, p := range cur.projects {
			next.projects[id] = p
		}
	}
	for id := range deploys {
		p := next.projects[id]
		if p == nil {
			continue
		}
		d, err := s.loadDeployment(ctx, id, 0)
		if err != nil {
			return 0, err
		}
		next.projects[id] = &projectState{project: p.project, latest: d}
	}
	s.current.Store(next)
	s.lastID.Store(events[len(events)-1].ID)
	return len(events), nil
}

// cachedVersion returns a compiled version if it is in memory, or nil.
func (s *State) cachedVersion(projectID string, version int) *deployed {
	s.oldMu.Lock()
	defer s.oldMu.Unlock()
	d, _ := s.old.get(versionKey{projectID, version})
	return d
}

// Version returns a compiled older (or any) version of a project, from the
// cache or the store. Errors: ENOTFOUND.
func (s *State) Version(ctx context.Context, projectID string, version int) (*deployed, error) {
	k := versionKey{projectID, version}
	s.oldMu.Lock()
	d, ok := s.old.get(k)
	s.oldMu.Unlock()
	if ok {
		return d, nil
	}
	d, err := s.loadDeployment(ctx, projectID, version)
	if err != nil {
		return nil, err
	}
	s.oldMu.Lock()
	s.old.add(k, d)
	s.oldMu.Unlock()
	return d, nil
}

// lru is a small least-recently-used cache; callers lock.
type lru[K comparable, V any] struct {
	max   int
	order []K
	items map[K]V
}

func newLRU[K comparable, V any](max int) *lru[K, V] {
	return &lru[K, V]{max: max, items: map[K]V{}}
}

func (l *lru[K, V]) get(k K) (V, bool) {
	v, ok := l.items[k]
	if ok {
		l.touch(k)
	}
	return v, ok
}

func (l *lru[K, V]) touch(k K) {
	for i, o := range l.order {
		if o == k {
			copy(l.order[i:], l.order[i+1:])
			l.order[len(l.order)-1] = k
			return
		}
	}
}

func (l *lru[K, V]) add(k K, v V) {
	if _, ok := l.items[k]; ok {
		l.items[k] = v
		l.touch(k)
		return
	}
	if l.max <= 0 {
		return
	}
	if len(l.order) >= l.max {
		delete(l.items, l.order[0])
		l.order = l.order[1:]
	}
	l.items[k] = v
	l.order = append(l.order, k)
}
