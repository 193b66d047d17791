package safety

import (
	"cmp"
	"slices"
	"strings"

	"redirects"
	"redirects/engine/pattern"
)

// Answer is what a lookup answers for a path: a status and a destination,
// or status 0 for no redirect.
type Answer = redirects.LookupAnswer

// SamplePath returns the path below a starts_with source that Diff and
// Verify probe besides the source itself: the source with "_" appended after
// a trailing '/', else with "/_".
func SamplePath(source string) string {
	if strings.HasSuffix(source, "/") {
		return source + "_"
	}
	return source + "/_"
}

// RuleChange is a rule present in both versions with other settings.
type RuleChange struct {
	From RuleRef `json:"from"`
	To   RuleRef `json:"to"`
	// Fields names what changed: destination, statusCode, preservePath,
	// preserveQuery, queryAfterFragment, mergeQuery, priority.
	Fields []string `json:"fields"`
}

// SettingsJSON are a project's matching settings as the API names them.
type SettingsJSON struct {
	CaseSensitive bool   `json:"caseSensitive"`
	TrailingSlash string `json:"trailingSlash"`
}

// SettingsOf returns s as the API names them.
func SettingsOf(s redirects.Settings) SettingsJSON {
	return SettingsJSON{CaseSensitive: s.CaseSensitive(), TrailingSlash: s.TrailingSlash()}
}

// SettingsChange is a change of the matching settings between the versions;
// its effect on answers is in the diff's Impact, with the paths whose answer
// changes for it (another case, the other trailing-slash form).
type SettingsChange struct {
	From SettingsJSON `json:"from"`
	To   SettingsJSON `json:"to"`
	// Fields names what changed: caseSensitive, trailingSlash.
	Fields []string `json:"fields"`
}

// PathChange is a path whose answer differs between the versions.
type PathChange struct {
	Path string `json:"path"`
	// Host is the host the path was looked up on, for a sample of a
	// host-scoped rule or any sample looked up on a rule's host; "" for a
	// lookup without a host.
	Host string `json:"host,omitempty"`
	From Answer `json:"from"`
	To   Answer `json:"to"`
}

// DiffResult is what changed from one rule set to another.
type DiffResult struct {
	// Settings is set when the matching settings differ.
	Settings *SettingsChange `json:"settings,omitempty"`
	Added    []RuleRef       `json:"added"`
	Removed  []RuleRef       `json:"removed"`
	Changed  []RuleChange    `json:"changed"`
	// Unchanged counts the rules equal in both.
	Unchanged int `json:"unchanged"`
	// PathsChecked is the number of sample paths looked up in both:
	// every source of either set, and a path below each starts_with
	// source (DiffOptions.Seen, else SampleRest); each of those with a query too for a preserveQuery rule;
	// and when the settings differ, each source's other spellings (its
	// letters' case swapped, its other trailing-slash form); a sample
	// request per extended rule on its host (extSamples); and, with
	// host-scoped rules, each of these on each rule host (ruleHosts, up to
	// MaxHostLookups). PathsChanged
	// of them answer differently (with the computed destination);
	// Impact lists the first DiffOptions.MaxPaths of those in byte order.
	PathsChecked int          `json:"pathsChecked"`
	PathsChanged int          `json:"pathsChanged"`
	Impact       []PathChange `json:"impact"`
}

// DiffOptions bounds a diff's output.
type DiffOptions struct {
	// MaxPaths is the number of changed paths Impact lists; 0 means
	// DefaultMaxPaths, a negative number all of them.
	MaxPaths int
	// From and To are the matching settings of the two sets (each
	// Target's Settings); the zero value is the default.
	From, To redirects.Settings
	// Seen are paths visitors asked for, such as the project's miss log:
	// the path Diff looks up below a starts_with source takes its rest
	// from the first of them (in byte order) below the source, so that the
	// changed paths it lists are ones people ask for; without one it is
	// the source and SampleRest. Paths holding '%', '?', '#' or bytes that
	// a client escapes are not taken.
	Seen []string
}

// SampleRest is the rest of the path below a starts_with source that Diff
// looks up when no path of DiffOptions.Seen is below it: a word a reader
// takes for a sample ("/blog/example"), where "_" reads as a typo or as
// a path of the site.
const SampleRest = "example"

// diffSample returns the path Diff looks up below a starts_with source:
// the first path of seen (sorted, each usable as it is sent) below it,
// else the source and SampleRest.
func diffSample(source string, seen []string) string {
	i, _ := slices.BinarySearch(seen, source)
	for ; i < len(seen) && strings.HasPrefix(seen[i], source); i++ {
		if len(seen[i]) > len(source) {
			return seen[i]
		}
	}
	if strings.HasSuffix(source, "/") {
		return source + SampleRest
	}
	return source + "/" + SampleRest
}

// seenPaths returns the paths of seen that diffSample may take, sorted,
// each once: those a client sends as they are written.
func seenPaths(seen []string) []string {
	out := make([]string, 0, len(seen))
	for _, p := range seen {
		if p != "" && p[0] == '/' && wireOf(p) == p && !strings.ContainsAny(p, "?#") {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// DefaultMaxPaths is the number of changed paths a diff lists by default.
const DefaultMaxPaths = 100

// Diff compares two rule sets (from, the older, and to). Rules are the same
// rule when they share a match type, a source (its query conditions
// included) and a host key; they changed when the destination, the status,
// an option or (for the rules it orders: all but exact ones) the priority
// differs. Extended rules add a sample request each (on its host) to the
// paths looked up. The impact is computed by looking
// up sample paths in both sets, each under its settings. Neither slice is
// modified.
func Diff(from, to []redirects.Rule, opts DiffOptions) DiffResult {
	res := DiffResult{Added: []RuleRef{}, Removed: []RuleRef{}, Changed: []RuleChange{}, Impact: []PathChange{}}
	if opts.From != opts.To {
		c := &SettingsChange{From: SettingsOf(opts.From), To: SettingsOf(opts.To), Fields: []string{}}
		if opts.From.CaseInsensitive != opts.To.CaseInsensitive {
			c.Fields = append(c.Fields, "caseSensitive")
		}
		if opts.From.IgnoreTrailingSlash != opts.To.IgnoreTrailingSlash {
			c.Fields = append(c.Fields, "trailingSlash")
		}
		res.Settings = c
	}
	a, b := sortedByIdentity(from), sortedByIdentity(to)
	for i, j := 0, 0; i < len(a) || j < len(b); {
		var c int
		switch {
		case i == len(a):
			c = 1
		case j == len(b):
			c = -1
		default:
			c = compareIdentity(a[i], b[j])
		}
		switch {
		case c < 0:
			res.Removed = append(res.Removed, Ref(a[i]))
			i++
		case c > 0:
			res.Added = append(res.Added, Ref(b[j]))
			j++
		default:
			if fields := changedFields(a[i], b[j]); len(fields) > 0 {
				res.Changed = append(res.Changed, RuleChange{From: Ref(a[i]), To: Ref(b[j]), Fields: fields})
			} else {
				res.Unchanged++
			}
			i++
			j++
		}
	}

	res.PathsChecked = 0
	xa, xb := newIndex(from, opts.From), newIndex(to, opts.To)
	limit := opts.MaxPaths
	if limit == 0 {
		limit = DefaultMaxPaths
	}
	hosts := ruleHosts(xa, xb)
	budget := MaxHostLookups
	check := func(path, host, wire string) {
		res.PathsChecked++
		oa, ob := xa.answer(host, wire), xb.answer(host, wire)
		if !oa.Same(ob) {
			res.PathsChanged++
			if limit < 0 || len(res.Impact) < limit {
				res.Impact = append(res.Impact, PathChange{Path: path, Host: host, From: oa, To: ob})
			}
		}
	}
	// each checks a sample on its host, then on the rules' hosts (a
	// host-scoped rule may answer it there), within the budget.
	each := func(path, host, wire string) {
		check(path, host, wire)
		for _, h := range hosts {
			if h != host && budget > 0 {
				budget--
				check(path, h, wire)
			}
		}
	}
	for _, p := range samplePaths(a, b, opts.From, opts.To, seenPaths(opts.Seen)) {
		each(p, "", wireOf(p))
	}
	for _, q := range extSamples(xa, xb, opts.From, opts.To) {
		each(q.wire, q.host, q.wire)
	}
	return res
}

// MaxHostLookups bounds the lookups a diff makes of its samples on the
// hosts of host-scoped rules besides each sample's own host.
const MaxHostLookups = 1 << 20

// ruleHosts returns, sorted and each once, a host each host-scoped rule
// of xa and xb answers on, and each host a rule's exceptHosts leaves out:
// its host key, or a wildcard's "www" subdomain.
func ruleHosts(xa, xb *index) []string {
	var out []string
	add := func(h string) {
		switch {
		case h == "":
		case h[0] == '*':
			out = append(out, "www"+h[1:])
		default:
			out = append(out, h)
		}
	}
	for _, x := range []*index{xa, xb} {
		if x.ext == nil {
			continue
		}
		for _, h := range x.ext.host {
			add(h)
		}
		for i := range x.rules {
			for _, h := range x.rules[i].ExceptHosts {
				add(h)
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// request is a lookup's host and path as a client sends it.
type request struct{ host, wire string }

// extSamples returns the sample requests of the extended rules of xa and
// xb (index.sample: a request each rule's source matches, on its host),
// each once, by path then host; when settings sa and sb differ, also each
// sample's other spellings, as samplePaths adds for a literal source (its
// path's letters' case swapped, its other trailing-slash form).
func extSamples(xa, xb *index, sa, sb redirects.Settings) []request {
	swap := sa.CaseInsensitive != sb.CaseInsensitive
	twin := sa.IgnoreTrailingSlash != sb.IgnoreTrailingSlash
	var out []request
	for _, x := range []*index{xa, xb} {
		if x.ext == nil {
			continue
		}
		for i := range x.rules {
			if !x.rules[i].Extended() {
				continue
			}
			h, w, ok := x.sample(int32(i))
			if !ok {
				continue
			}
			out = append(out, request{h, w})
			path, query, hasQ := strings.Cut(w, "?")
			if hasQ {
				query = "?" + query
			}
			if swap {
				if q := swapCase(path); q != path {
					out = append(out, request{h, q + query})
				}
			}
			if twin && len(path) > 1 {
				if strings.HasSuffix(path, "/") {
					out = append(out, request{h, path[:len(path)-1] + query})
				} else {
					out = append(out, request{h, path + "/" + query})
				}
			}
		}
	}
	slices.SortFunc(out, func(a, b request) int {
		return cmp.Or(strings.Compare(a.wire, b.wire), strings.Compare(a.host, b.host))
	})
	return slices.Compact(out)
}

// samplePaths returns, sorted and each once, the sources of a and b (both
// sorted by source) and a path below each of their starts_with sources
// (diffSample, from seen, sorted), with the
// additions DiffResult.PathsChecked names for options and for settings sa
// and sb. Sorting and merging costs less than a set of a few million
// strings.
func samplePaths(a, b []*redirects.Rule, sa, sb redirects.Settings, seen []string) []string {
	swap := sa.CaseInsensitive != sb.CaseInsensitive
	twin := sa.IgnoreTrailingSlash != sb.IgnoreTrailingSlash
	sources := make([]string, 0, len(a)+len(b))
	var below []string
	for i, j := 0, 0; i < len(a) || j < len(b); {
		var r *redirects.Rule
		if j == len(b) || i < len(a) && a[i].Source <= b[j].Source {
			r, i = a[i], i+1
		} else {
			r, j = b[j], j+1
		}
		if r.Extended() {
			// Its source is no path: extSamples asks a request it matches.
			continue
		}
		if n := len(sources); n == 0 || sources[n-1] != r.Source {
			sources = append(sources, r.Source)
		}
		if r.MatchType == redirects.StartsWith {
			p := diffSample(r.Source, seen)
			below = append(below, p)
			if r.PreserveQuery {
				below = append(below, p+probeQuery)
			}
		}
		if r.PreserveQuery {
			below = append(below, r.Source+probeQuery)
		}
		if r.MergeQuery {
			// A request that repeats the destination's parameters: a
			// merge drops them, a plain preserveQuery appends them.
			below = append(below, r.Source+mergeProbe(r.Destination))
		}
		if swap {
			if q := swapCase(r.Source); q != r.Source {
				below = append(below, q)
			}
		}
		if twin && len(r.Source) > 1 {
			if strings.HasSuffix(r.Source, "/") {
				below = append(below, r.Source[:len(r.Source)-1])
			} else {
				below = append(below, r.Source+"/")
			}
		}
	}
	slices.Sort(below)
	below = slices.Compact(below)
	out := make([]string, 0, len(sources)+len(below))
	for i, j := 0, 0; i < len(sources) || j < len(below); {
		switch {
		case j == len(below) || i < len(sources) && sources[i] < below[j]:
			out = append(out, sources[i])
			i++
		case i == len(sources) || below[j] < sources[i]:
			out = append(out, below[j])
			j++
		default:
			out = append(out, sources[i])
			i, j = i+1, j+1
		}
	}
	return out
}

// sortedByIdentity returns pointers to rules sorted by source, then match
// type.
func sortedByIdentity(rules []redirects.Rule) []*redirects.Rule {
	out := make([]*redirects.Rule, len(rules))
	for i := range rules {
		out[i] = &rules[i]
	}
	slices.SortFunc(out, compareIdentity)
	return out
}

func compareIdentity(a, b *redirects.Rule) int {
	if c := strings.Compare(a.Source, b.Source); c != 0 {
		return c
	}
	if c := cmp.Compare(a.MatchType, b.MatchType); c != 0 {
		return c
	}
	if a.Host == b.Host {
		return 0
	}
	return strings.Compare(hostKey(a.Host), hostKey(b.Host))
}

// hostKey is a rule's host key (docs/contract.md#hosts), or the host as
// written when it is not a host name.
func hostKey(h string) string {
	if k, ok := pattern.HostKey(h); ok {
		return k
	}
	return h
}

func changedFields(a, b *redirects.Rule) []string {
	var f []string
	if a.Destination != b.Destination {
		f = append(f, "destination")
	}
	if a.StatusCode != b.StatusCode {
		f = append(f, "statusCode")
	}
	if a.PreservePath != b.PreservePath {
		f = append(f, "preservePath")
	}
	if a.PreserveQuery != b.PreserveQuery {
		f = append(f, "preserveQuery")
	}
	if a.QueryAfterFragment != b.QueryAfterFragment {
		f = append(f, "queryAfterFragment")
	}
	if a.MergeQuery != b.MergeQuery {
		f = append(f, "mergeQuery")
	}
	if !slices.Equal(a.ExceptHosts, b.ExceptHosts) {
		f = append(f, "exceptHosts")
	}
	if a.MatchType != redirects.Exact && a.Priority != b.Priority {
		f = append(f, "priority")
	}
	return f
}

// mergeProbe is the query of a request that tells a mergeQuery rule with
// destination dest from the same rule without it: dest's own query, then
// probeQuery's parameter.
func mergeProbe(dest string) string {
	_, q, _ := redirects.SplitDestination(dest)
	return "?" + q + "&" + probeQuery[1:]
}
