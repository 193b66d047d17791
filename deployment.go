package redirects

import (
	"slices"
	"sort"
	"strings"
	"time"
)

// Deployment is one immutable, numbered release of a project's rules. It
// holds a snapshot of the rules and the export files rendered from them.
type Deployment struct {
	ProjectID string
	Version   int
	CreatedAt time.Time
	Message   string
	// FromVersion is the version whose rules were deployed again (a
	// rollback), or 0 when the draft rules were deployed.
	FromVersion int
	ExactCount  int
	PrefixCount int
	// Report says what the export formats cannot express, for the operator.
	Report string
}

// Export is one export file of a deployment, rendered at deploy time.
type Export struct {
	Format string
	Body   []byte
	// ETag is the strong entity tag of Body, quotes included.
	ETag string
}

// DeployOptions says what to deploy.
type DeployOptions struct {
	Message string
	// FromVersion, when positive, deploys the rules of that earlier version
	// instead of the draft rules.
	FromVersion int
}

// DeployContent is what a deployment stores beside its metadata.
type DeployContent struct {
	Exports []Export
	Report  string
}

// Builder renders the content of a deployment from its rules. The store
// calls it inside the deploy transaction, so a failure stores nothing.
type Builder func(rules []Rule) (*DeployContent, error)

// SortRules puts rules in the canonical order of a deployment: exact rules
// by source bytes, then starts_with rules in precedence order (see Better).
func SortRules(rules []Rule) {
	sort.Slice(rules, func(i, j int) bool {
		a, b := &rules[i], &rules[j]
		if a.MatchType != b.MatchType {
			return a.MatchType == Exact
		}
		if a.MatchType == Exact {
			return a.Source < b.Source
		}
		return Better(a, b)
	})
}

// Better reports whether starts_with rule a takes precedence over b when
// both match a path: the lower priority number wins, ties go to the longer
// source, then to the older rule.
func Better(a, b *Rule) bool {
	if a.Priority != b.Priority {
		return a.Priority < b.Priority
	}
	if len(a.Source) != len(b.Source) {
		return len(a.Source) > len(b.Source)
	}
	if !a.CreatedAt.Equal(b.CreatedAt) {
		return a.CreatedAt.Before(b.CreatedAt)
	}
	if a.ID != b.ID {
		return a.ID < b.ID
	}
	return a.Source < b.Source
}

// PrefixWinner pairs a starts_with source with the rule that a lookup of a
// path equal to that source picks.
type PrefixWinner struct {
	Source string
	Rule   *Rule
}

// PrefixWinners returns, for every starts_with rule in rules, sorted by
// source bytes, the rule the lookup picks for a path equal to its source:
// the best (see Better) among the starts_with rules whose source is a prefix
// of it. A longest-prefix matcher (nginx "location ^~", HAProxy map_beg, the
// engine's prefix index) that answers a path with the winner of the longest
// source that prefixes it gives exactly the lookup's answer, because the
// sources that prefix a path are all prefixes of the longest one.
func PrefixWinners(rules []Rule) []PrefixWinner {
	var prefix []*Rule
	for i := range rules {
		if rules[i].MatchType == StartsWith {
			prefix = append(prefix, &rules[i])
		}
	}
	// A pdqsort on pointers: at a million rules sort.Slice's reflection
	// costs seconds.
	slices.SortFunc(prefix, func(a, b *Rule) int { return strings.Compare(a.Source, b.Source) })
	out := make([]PrefixWinner, len(prefix))
	// stack holds indexes into out of the sources that prefix the current one,
	// shortest first. In sorted order, every source's ancestors precede it.
	stack := make([]int, 0, 16)
	for i, r := range prefix {
		for len(stack) > 0 && !strings.HasPrefix(r.Source, out[stack[len(stack)-1]].Source) {
			stack = stack[:len(stack)-1]
		}
		best := r
		if len(stack) > 0 {
			if w := out[stack[len(stack)-1]].Rule; Better(w, best) {
				best = w
			}
		}
		out[i] = PrefixWinner{Source: r.Source, Rule: best}
		stack = append(stack, i)
	}
	return out
}

// Formats lists the export formats in the order of SPEC.md.
var Formats = []string{"csv", "nginx", "nginx-map-exact", "nginx-map-prefix", "haproxy", "haproxy-map-exact", "haproxy-map-prefix"}

// FormatExtension returns the file extension of an export format, without
// the dot, or "" for an unknown format.
func FormatExtension(format string) string {
	switch format {
	case "csv":
		return "csv"
	case "nginx":
		return "conf"
	case "haproxy":
		return "cfg"
	case "nginx-map-exact", "nginx-map-prefix", "haproxy-map-exact", "haproxy-map-prefix":
		return "map"
	}
	return ""
}
