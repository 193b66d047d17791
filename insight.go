package redirects

import (
	"slices"
	"strings"
	"time"
)

// RuleHits is what the store holds of one rule's hits: the lookups the
// edge answered with it, summed over every node, and the last time one
// was counted (to the flush interval: the time of the flush that wrote
// it). A rule is named by its project, match type and source, so its
// hits carry over from one deployment to the next and survive an edit of
// its destination, but not of its source.
type RuleHits struct {
	ProjectID string
	MatchType MatchType
	// Host is the rule's host ("" for none): hits count per match type,
	// host and source (docs/contract.md#keys).
	Host    string
	Source  string
	Hits    int64
	LastHit time.Time
}

// Miss is a path of a project that live lookups asked for and no rule
// answered (204), with how often and when first and last: what a node
// counted (see docs/contract.md "Hits and misses"), or, in the store, the
// sum over every node.
type Miss struct {
	ProjectID string
	// Host is the lookup's host key ("" for a lookup without one): misses
	// count per host and path (docs/contract.md#keys).
	Host      string
	Path      string
	Count     int64
	FirstSeen time.Time
	LastSeen  time.Time
}

// MaxStoredMisses is how many missed paths the store keeps per project:
// after each AddMisses, the least frequent beyond this number go.
const MaxStoredMisses = 10000

// ValidateHits checks the arguments of Store.AddHits: a project, a source
// and a match type in each, and no negative count. Errors: EINVALID.
func ValidateHits(hits []RuleHits) error {
	for _, h := range hits {
		switch {
		case h.ProjectID == "":
			return Errorf(EINVALID, "hits of rule %q name no project", h.Source)
		case h.Source == "":
			return Errorf(EINVALID, "hits of project %s name no rule source", h.ProjectID)
		case !slices.Contains(MatchTypes, h.MatchType):
			return Errorf(EINVALID, "hits of rule %q have an unknown match type", h.Source)
		case h.Hits < 0:
			return Errorf(EINVALID, "hit count %d of rule %q is negative", h.Hits, h.Source)
		}
	}
	return nil
}

// ValidateMisses checks the arguments of Store.AddMisses: a project and a
// path in each, no negative count, and first seen no later than last seen.
// Errors: EINVALID.
func ValidateMisses(misses []Miss) error {
	for _, m := range misses {
		switch {
		case m.ProjectID == "":
			return Errorf(EINVALID, "miss %q names no project", m.Path)
		case !strings.HasPrefix(m.Path, "/"):
			return Errorf(EINVALID, "missed path %q does not start with /", m.Path)
		case m.Count < 0:
			return Errorf(EINVALID, "miss count %d of %q is negative", m.Count, m.Path)
		case m.LastSeen.Before(m.FirstSeen):
			return Errorf(EINVALID, "miss %q was last seen before it was first seen", m.Path)
		}
	}
	return nil
}

// StaleRules returns the rules that had no hit since t: never hit, or last
// hit before t, in rules' order. hits are the project's, as
// Store.FindHits returns them.
func StaleRules(rules []Rule, hits []RuleHits, since time.Time) []Rule {
	last := HitIndex(hits)
	var out []Rule
	for _, r := range rules {
		if h, ok := last[r.HitKey()]; ok && !h.LastHit.Before(since) {
			continue
		}
		out = append(out, r)
	}
	return out
}

// HitKey names a rule within a project, as its hits are counted.
type HitKey struct {
	MatchType MatchType
	Host      string
	Source    string
}

// HitKey returns the key r's hits count under.
func (r *Rule) HitKey() HitKey { return HitKey{r.MatchType, r.Host, r.Source} }

// HitIndex indexes a project's hits by rule.
func HitIndex(hits []RuleHits) map[HitKey]RuleHits {
	m := make(map[HitKey]RuleHits, len(hits))
	for _, h := range hits {
		m[HitKey{h.MatchType, h.Host, h.Source}] = h
	}
	return m
}
