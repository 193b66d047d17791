package http

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"redirects"
	"redirects/engine"
)

// view is an immutable picture of what the edge needs to answer without
// the store: organizations, projects with their latest compiled deployment,
// and keys by hash. A change builds a new view and swaps it in.
type view struct {
	orgs     map[string]*redirects.Org
	projects map[string]*projectState
	keys     map[[32]byte]*edgeKey
	// replaced is closed when a newer view replaces this one: what the
	// export long-polls wait on (waitExport).
	replaced chan struct{}
}

// edgeKey is a key as the edge holds it: the key and the counter of its
// live lookups, which outlives the view (see keyUsage).
type edgeKey struct {
	*redirects.Key
	usage *keyCounter
}

// projectState is a project and its live deployment (the one its live
// pointer names), if any.
type projectState struct {
	project *redirects.Project
	latest  *deployed
	// misses counts the project's live lookups that no rule answered; it
	// outlives the view (see insight).
	misses *missSketch
}

// deployed is one compiled deployment.
type deployed struct {
	version int
	snap    *engine.Snapshot
	// staged is set on a staged version (never promoted): its lookups
	// count no hit and no miss (docs/contract.md#staged-deploys).
	staged bool
}

// CatalogStore is what the catalog reads of a store (the view it answers
// from and the events that change it) and writes (the usage, hits and
// misses it counted). See redirects.Store for what each method promises.
type CatalogStore interface {
	LastEventID(ctx context.Context) (int64, error)
	FindEvents(ctx context.Context, afterID int64, limit int) ([]redirects.Event, error)
	FindOrgs(ctx context.Context) ([]*redirects.Org, error)
	FindProjects(ctx context.Context, orgID string) ([]*redirects.Project, error)
	FindKeys(ctx context.Context, projectID string) ([]*redirects.Key, error)
	FindDeployment(ctx context.Context, projectID string, version int) (*redirects.Deployment, []redirects.Rule, error)
	CountWriter
}

// CountWriter is what the edge writes of what it counted: each key's daily
// usage, each rule's hits, each project's misses.
type CountWriter interface {
	AddKeyUsage(ctx context.Context, counts []redirects.DailyUsage) error
	AddHits(ctx context.Context, hits []redirects.RuleHits) error
	AddMisses(ctx context.Context, misses []redirects.Miss) error
}

// Catalog holds the loaded deployments the edge answers from: every
// project's latest compiled deployment, with the organizations and keys that
// reach it, as one view swapped whole when the store's events change it
// (Refresh), plus older versions compiled on demand (Version). Lookups read
// the view without locks.
type Catalog struct {
	store   CatalogStore
	current atomic.Pointer[view]
	lastID  atomic.Int64
	// refreshMu makes Refresh one at a time: each swap closes the view it
	// replaces exactly once.
	refreshMu sync.Mutex

	// usage counts each key's live lookups per day.
	usage keyUsage
	// insight counts each rule's hits and each project's misses.
	insight insight
	// agents holds what sync agents reported on their export requests.
	agents agentTracker

	// old caches compiled older versions, loaded on demand.
	oldMu sync.Mutex
	old   *lru[versionKey, *deployed]
	// forgets counts the Refreshes that dropped versions from old: a load
	// that began before one keeps what it read out of the cache.
	forgets uint64

	// forget, when set, is called with the project and version of each
	// deploy event Refresh applied, after the catalog dropped that version
	// from its own cache: a promote changes whether a version is staged, a
	// discard removes it (the server drops the version's export files).
	forget func(project string, version int)
}

type versionKey struct {
	project string
	version int
}

// LoadCatalog reads organizations, projects and keys and compiles every
// project's latest deployment. It keeps up to oldVersions older versions
// compiled once asked for.
func LoadCatalog(ctx context.Context, store CatalogStore, oldVersions int) (*Catalog, error) {
	s := &Catalog{store: store, old: newLRU[versionKey, *deployed](oldVersions)}
	last, err := store.LastEventID(ctx)
	if err != nil {
		return nil, err
	}
	c, err := s.loadView(ctx, nil)
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

// loadView reads organizations, projects and keys; deployments are carried
// over from prev where the project is still there.
func (s *Catalog) loadView(ctx context.Context, prev *view) (*view, error) {
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
	c := &view{
		replaced: make(chan struct{}),
		orgs:     make(map[string]*redirects.Org, len(orgs)),
		projects: make(map[string]*projectState, len(projects)),
		keys:     make(map[[32]byte]*edgeKey, len(keys)),
	}
	for _, o := range orgs {
		c.orgs[o.ID] = o
	}
	for _, p := range projects {
		ps := &projectState{project: p, misses: s.insight.sketch(p.ID)}
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
		c.keys[h] = &edgeKey{Key: k, usage: s.usage.counter(k.ID)}
	}
	return c, nil
}

// loadDeployment compiles one version (0: the latest), or returns nil when
// the project has no deployment.
func (s *Catalog) loadDeployment(ctx context.Context, projectID string, version int) (*deployed, error) {
	d, rules, err := s.store.FindDeployment(ctx, projectID, version)
	if redirects.ErrorCode(err) == redirects.ENOTFOUND && version == 0 {
		return nil, nil
	} else if err != nil {
		return nil, err
	}
	snap := engine.CompileWith(rules, d.Settings)
	s.insight.track(projectID, snap)
	return &deployed{version: d.Version, snap: snap, staged: d.Staged}, nil
}

// FlushUsage writes the live lookups counted per key and day, the hits and
// misses counted per project and the sync agents' reports since the last
// flush to the store, as of now. On failure the counts stay pending for
// the next flush.
func (s *Catalog) FlushUsage(ctx context.Context, now time.Time) error {
	return errors.Join(s.usage.flush(ctx, s.store, now), s.insight.flush(ctx, s.store, now), s.agents.flush(ctx, s.store))
}

// view returns the current view.
func (s *Catalog) view() *view { return s.current.Load() }

// refreshBatch is the most events one Refresh reads.
const refreshBatch = 1000

// Refresh applies the events recorded since the last refresh. It returns
// how many it applied.
func (s *Catalog) Refresh(ctx context.Context) (int, error) {
	s.refreshMu.Lock()
	defer s.refreshMu.Unlock()
	after := s.lastID.Load()
	events, err := s.store.FindEvents(ctx, after, refreshBatch)
	if err != nil || len(events) == 0 {
		return 0, err
	}
	cur := s.current.Load()
	next := cur
	deploys := map[string]bool{}
	var dropped []versionKey
	reloadView := false
	for _, e := range events {
		if e.Kind == redirects.EventDeploy {
			deploys[e.ProjectID] = true
			dropped = append(dropped, versionKey{e.ProjectID, e.Version})
		} else {
			reloadView = true
		}
	}
	if reloadView {
		if next, err = s.loadView(ctx, cur); err != nil {
			return 0, err
		}
	} else {
		next = &view{orgs: cur.orgs, keys: cur.keys, projects: make(map[string]*projectState, len(cur.projects)), replaced: make(chan struct{})}
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
		next.projects[id] = &projectState{project: p.project, latest: d, misses: p.misses}
	}
	// A deploy event's version was deployed, promoted or discarded: a
	// cached copy of it may say staged when it no longer is, or answer
	// for a version that is gone. Versions are never renumbered, so
	// dropping it is enough.
	if len(dropped) > 0 {
		s.oldMu.Lock()
		s.forgets++
		for _, k := range dropped {
			s.old.remove(k)
		}
		s.oldMu.Unlock()
	}
	if s.forget != nil {
		for _, k := range dropped {
			s.forget(k.project, k.version)
		}
	}
	s.current.Store(next)
	close(cur.replaced)
	s.lastID.Store(events[len(events)-1].ID)
	return len(events), nil
}

// cachedVersion returns a compiled version if it is in memory, or nil.
func (s *Catalog) cachedVersion(projectID string, version int) *deployed {
	s.oldMu.Lock()
	defer s.oldMu.Unlock()
	d, _ := s.old.get(versionKey{projectID, version})
	return d
}

// Version returns a compiled older (or any) version of a project, from the
// cache or the store. Errors: ENOTFOUND.
func (s *Catalog) Version(ctx context.Context, projectID string, version int) (*deployed, error) {
	k := versionKey{projectID, version}
	s.oldMu.Lock()
	d, ok := s.old.get(k)
	forgets := s.forgets
	s.oldMu.Unlock()
	if ok {
		return d, nil
	}
	d, err := s.loadDeployment(ctx, projectID, version)
	if err != nil {
		return nil, err
	}
	s.oldMu.Lock()
	if s.forgets == forgets {
		s.old.add(k, d)
	}
	s.oldMu.Unlock()
	return d, nil
}
