// Package edge is the edge runtime the edge API answers from: the catalog
// of deployed versions (organizations, projects and keys with each
// project's compiled live deployment, older versions on demand), the
// counters of what the edge answered (each key's live lookups, each rule's
// hits, each project's misses), the sync agents' reports and the export
// cache. It reads and writes the store through the small interfaces below
// and knows nothing of HTTP: package http carries its answers.
package edge

import (
	"context"
	"encoding/hex"
	"fmt"
	"iter"
	"maps"
	"sync"
	"sync/atomic"
	"time"

	"redirects"
	"redirects/engine"
)

// View is an immutable picture of what the edge needs to answer without
// the store: organizations, projects with their latest compiled deployment,
// and keys by hash. A change builds a new view and swaps it in.
type View struct {
	orgs     map[string]*redirects.Org
	projects map[string]*Project
	keys     map[[32]byte]*Key
	// replaced is closed when a newer view replaces this one: what the
	// export long-polls wait on.
	replaced chan struct{}
}

// Key returns the key whose SHA-256 hash is hash, or nil.
func (v *View) Key(hash [32]byte) *Key { return v.keys[hash] }

// Project returns the project with ID id, or nil.
func (v *View) Project(id string) *Project { return v.projects[id] }

// Org returns the organization with ID id, or nil.
func (v *View) Org(id string) *redirects.Org { return v.orgs[id] }

// Projects returns every project of the view by ID, in no order.
func (v *View) Projects() iter.Seq2[string, *Project] { return maps.All(v.projects) }

// Replaced returns a channel closed once a newer view replaces v: an
// export long-poll waits on it for a deployment.
func (v *View) Replaced() <-chan struct{} { return v.replaced }

// Key is a key as the edge holds it: the key and the counter of its
// live lookups, which outlives the view (see keyUsage).
type Key struct {
	*redirects.Key
	usage *keyCounter
}

// CountLookup counts one live lookup of the key at now, for its daily
// usage. It takes no lock and allocates nothing.
func (k *Key) CountLookup(now time.Time) { k.usage.add(unixDay(now)) }

// Project is a project and its live deployment (the one its live pointer
// names), if any.
type Project struct {
	*redirects.Project
	// Latest is the live deployment, nil when the project has none.
	Latest *Deployment
	// Misses counts the project's live lookups that no rule answered; it
	// outlives the view (see insight).
	Misses *MissSketch
}

// Deployment is one compiled deployment.
type Deployment struct {
	Version int
	Snap    *engine.Snapshot
	// Staged is set on a staged version (never promoted): its lookups
	// count no hit and no miss (docs/contract.md#staged-deploys).
	Staged bool
}

// CatalogStore is what the catalog reads of a store (the view it answers
// from and the events that change it) and writes (the usage, hits, misses
// and agents' reports it counted). See redirects.Store and
// redirects.AgentStore for what each method promises.
type CatalogStore interface {
	LastEventID(ctx context.Context) (int64, error)
	FindEvents(ctx context.Context, afterID int64, limit int) ([]redirects.Event, error)
	FindOrgs(ctx context.Context) ([]*redirects.Org, error)
	FindProjects(ctx context.Context, orgID string) ([]*redirects.Project, error)
	FindKeys(ctx context.Context, projectID string) ([]*redirects.Key, error)
	FindDeployment(ctx context.Context, projectID string, version int) (*redirects.Deployment, []redirects.Rule, error)
	CountWriter
	UsageTogetherWriter
	AgentWriter
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
	current atomic.Pointer[View]
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
	old   *lru[versionKey, *Deployment]
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
	s := &Catalog{store: store, old: newLRU[versionKey, *Deployment](oldVersions)}
	last, err := store.LastEventID(ctx)
	if err != nil {
		return nil, err
	}
	c, err := s.loadView(ctx, nil)
	if err != nil {
		return nil, err
	}
	for id, p := range c.projects {
		if p.Latest, err = s.loadDeployment(ctx, id, 0); err != nil {
			return nil, err
		}
	}
	s.current.Store(c)
	s.lastID.Store(last)
	return s, nil
}

// loadView reads organizations, projects and keys; deployments are carried
// over from prev where the project is still there.
func (s *Catalog) loadView(ctx context.Context, prev *View) (*View, error) {
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
	c := &View{
		replaced: make(chan struct{}),
		orgs:     make(map[string]*redirects.Org, len(orgs)),
		projects: make(map[string]*Project, len(projects)),
		keys:     make(map[[32]byte]*Key, len(keys)),
	}
	for _, o := range orgs {
		c.orgs[o.ID] = o
	}
	for _, p := range projects {
		ps := &Project{Project: p, Misses: s.insight.sketch(p.ID)}
		if prev != nil {
			if old := prev.projects[p.ID]; old != nil {
				ps.Latest = old.Latest
			}
		}
		c.projects[p.ID] = ps
	}
	for _, k := range keys {
		var h [32]byte
		if _, err := hex.Decode(h[:], []byte(k.Hash)); err != nil {
			return nil, fmt.Errorf("key %s has a malformed hash: %w", k.ID, err)
		}
		c.keys[h] = &Key{Key: k, usage: s.usage.counter(k.ID)}
	}
	return c, nil
}

// loadDeployment compiles one version (0: the latest), or returns nil when
// the project has no deployment.
func (s *Catalog) loadDeployment(ctx context.Context, projectID string, version int) (*Deployment, error) {
	d, rules, err := s.store.FindDeployment(ctx, projectID, version)
	if redirects.ErrorCode(err) == redirects.ENOTFOUND && version == 0 {
		return nil, nil
	} else if err != nil {
		return nil, err
	}
	snap, err := engine.CompileChecked(rules, d.Settings)
	if err != nil {
		return nil, fmt.Errorf("compiling version %d of project %s: %w", d.Version, projectID, err)
	}
	s.insight.track(projectID, snap)
	return &Deployment{Version: d.Version, Snap: snap, Staged: d.Staged}, nil
}

// View returns the current view.
func (s *Catalog) View() *View { return s.current.Load() }

// OnForget has f called with the project and version of each deploy event
// Refresh applies, after the catalog dropped that version from its own
// cache: a promote changes whether a version is staged, a discard removes
// it (the server drops the version's export files). Call it before the
// first Refresh.
func (s *Catalog) OnForget(f func(project string, version int)) { s.forget = f }

// RefreshBatch is the most events one Refresh reads: a Refresh that applied
// this many may have more to read.
const RefreshBatch = 1000

// Refresh applies the events recorded since the last refresh. It returns
// how many it applied.
func (s *Catalog) Refresh(ctx context.Context) (int, error) {
	s.refreshMu.Lock()
	defer s.refreshMu.Unlock()
	after := s.lastID.Load()
	events, err := s.store.FindEvents(ctx, after, RefreshBatch)
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
		next = &View{orgs: cur.orgs, keys: cur.keys, projects: make(map[string]*Project, len(cur.projects)), replaced: make(chan struct{})}
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
		next.projects[id] = &Project{Project: p.Project, Latest: d, Misses: p.Misses}
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

// CachedVersion returns a compiled version if it is in memory, or nil.
func (s *Catalog) CachedVersion(projectID string, version int) *Deployment {
	s.oldMu.Lock()
	defer s.oldMu.Unlock()
	d, _ := s.old.get(versionKey{projectID, version})
	return d
}

// Version returns a compiled older (or any) version of a project, from the
// cache or the store. Errors: ENOTFOUND.
func (s *Catalog) Version(ctx context.Context, projectID string, version int) (*Deployment, error) {
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
