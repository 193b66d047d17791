package safety

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"redirects"
)

// Severity says whether a finding blocks a deploy.
type Severity = redirects.FindingSeverity

// Severities of findings.
const (
	// SeverityError blocks a deploy unless it is forced with a reason.
	SeverityError Severity = "error"
	// SeverityWarning is reported and blocks nothing.
	SeverityWarning Severity = "warning"
)

// Kind names what a finding is about.
type Kind = redirects.FindingKind

// Kinds of findings, errors first.
const (
	// KindLoop: following the project's own rules from some path comes back
	// to it through two or more rules.
	KindLoop Kind = "loop"
	// KindSelfMatch: a rule answers its own destination (a loop of one).
	KindSelfMatch Kind = "self-match"
	// KindPathGrowth: a preservePath rule answers its own destination with
	// a longer path each time (its destination lies under its own source),
	// so the path grows on each redirect until the client gives up.
	KindPathGrowth Kind = "path-growth"
	// KindChain: a rule's destination is itself redirected by the project.
	KindChain Kind = "chain"
	// KindShadowed: a rule never answers, because a rule with a shorter or
	// equal source takes precedence on every path it matches (lintPrefixes,
	// lintCovered), or one of its match type and host that matches the
	// same requests comes first (lintDuplicates).
	KindShadowed Kind = "shadowed"
	// KindRedundant: an exact rule answers as the starts_with rule beneath
	// it would.
	KindRedundant Kind = "redundant"
	// KindOverlap: nested starts_with sources with the same priority, so the
	// longer one wins only by the tie-break.
	KindOverlap Kind = "overlap"
	// KindDoubleSlash: a preservePath rule whose source does not end in '/'
	// and whose destination's path does, so a request below the source
	// ("/x/a" for "/x") is answered with "//" at the join ("/y//a").
	KindDoubleSlash Kind = "double-slash"
	// KindInvalid: the rule engine refuses a rule (a malformed or
	// oversized pattern or regex), which validation normally does first;
	// such a rule never answers.
	KindInvalid Kind = "invalid"
)

var kindOrder = map[Kind]int{KindInvalid: -1, KindLoop: 0, KindSelfMatch: 1, KindPathGrowth: 2, KindChain: 3, KindShadowed: 4,
	KindRedundant: 5, KindOverlap: 6, KindDoubleSlash: 7, KindBrokenDestination: 8, KindOffsiteDestination: 9}

// RuleRef names a rule in a finding, an explanation or a diff.
type RuleRef = redirects.RuleRef

// Ref returns the RuleRef of r.
func Ref(r *redirects.Rule) RuleRef {
	return RuleRef{ID: r.ID, MatchType: r.MatchType.String(), Source: r.Source, Destination: r.Destination,
		StatusCode: r.StatusCode, Priority: r.Priority, PreservePath: r.PreservePath, PreserveQuery: r.PreserveQuery, Host: r.Host,
		QueryAfterFragment: r.QueryAfterFragment, MergeQuery: r.MergeQuery, ExceptHosts: r.ExceptHosts}
}

// Finding is one problem Lint found.
type Finding = redirects.LintFinding

// MaxChainRules bounds the rules a chain finding lists.
const MaxChainRules = 16

// LintOptions says how to lint.
type LintOptions struct {
	// Hosts are the project's own hosts: an absolute destination on one of
	// them is followed like a relative one. Compared without case; an entry
	// without a port also matches the host with any port.
	Hosts []string
	// Settings are the project's matching settings (the draft's, or the
	// version's): paths are compared with them.
	Settings redirects.Settings
	// Destinations are the project's last destination checks by
	// destination (CheckService.FindDestinationChecks): rules whose
	// destination is broken or leads off-site are warned of. nil for none.
	Destinations map[string]redirects.DestinationCheck
}

// Blocking reports whether any finding is an error.
func Blocking(findings []Finding) bool {
	for _, f := range findings {
		if f.Severity == SeverityError {
			return true
		}
	}
	return false
}

// Count returns the number of errors and warnings among findings.
func Count(findings []Finding) (errors, warnings int) {
	for _, f := range findings {
		if f.Severity == SeverityError {
			errors++
		} else {
			warnings++
		}
	}
	return errors, warnings
}

// Lint checks rules and returns its findings, errors first, then by kind and
// by the ID of the first rule involved. The cost is a few lookups per rule,
// each O(log n): a million rules take seconds. rules is not modified.
//
// Redirects are followed under opts.Settings, with computed destinations
// (redirects.Target): each rule is followed from its representative
// request, its source as a browser requests it (for a preservePath rule
// the source with "_" or "/_" appended, SamplePath, so that a rest is
// appended). A chain is then followed request by request as a client
// follows it, each next rule answering the request the previous answer
// makes, with its rest and query: a chain finding's final destination is
// what the lookup answers along the way. A 410 answers no destination and
// ends a chain.
func Lint(rules []redirects.Rule, opts LintOptions) []Finding {
	x := newIndex(rules, opts.Settings)
	var out []Finding
	if x.ext != nil {
		out = append(out, x.ext.invalid...)
	}
	out = append(out, lintFollow(x, newOwnHosts(opts.Hosts).withRules(x))...)
	out = append(out, lintPrefixes(x)...)
	covered := lintCovered(x)
	out = append(out, covered...)
	shadowed := map[int64]bool{}
	for _, f := range covered {
		shadowed[f.Rules[0].ID] = true
	}
	out = append(out, lintDuplicates(x, shadowed)...)
	out = append(out, lintRedundant(x)...)
	out = append(out, lintDoubleSlash(x)...)
	out = append(out, lintDestinations(rules, opts.Destinations)...)
	slices.SortStableFunc(out, func(a, b Finding) int {
		if a.Severity != b.Severity {
			if a.Severity == SeverityError {
				return -1
			}
			return 1
		}
		if c := cmp.Compare(kindOrder[a.Kind], kindOrder[b.Kind]); c != 0 {
			return c
		}
		return cmp.Compare(a.Rules[0].ID, b.Rules[0].ID)
	})
	return out
}

// lintPrefixes finds shadowed starts_with rules and equal-priority overlaps.
// A starts_with rule answers some path exactly when no rule whose source
// prefixes (or equals) its own takes precedence: such a rule matches every
// path it matches and beats it there, and without one the rule answers its
// source (or a path below it that no longer source matches).
func lintPrefixes(x *index) []Finding {
	rules := x.rules
	var out []Finding
	for i := range rules {
		r := &rules[i]
		if r.MatchType != redirects.StartsWith || x.ppos[i] < 0 {
			continue
		}
		j := x.ppos[i]
		if w := x.pwin[j]; w != int32(i) {
			wr := Ref(&rules[w])
			out = append(out, Finding{
				Severity: SeverityWarning, Kind: KindShadowed,
				Message: fmt.Sprintf("%s never answers: %s matches every path it matches and takes precedence (%s)",
					Ref(r), wr, precedence(&rules[w], r)),
				Rules: []RuleRef{Ref(r), wr},
				Path:  []string{r.Source},
			})
			continue
		}
		var same []RuleRef
		for a := x.pparent[j]; a >= 0; a = x.pparent[a] {
			if o := &rules[x.pown[a]]; o.Priority == r.Priority {
				same = append(same, Ref(o))
			}
		}
		if len(same) > 0 {
			names := make([]string, len(same))
			for k, s := range same {
				names[k] = s.String()
			}
			out = append(out, Finding{
				Severity: SeverityWarning, Kind: KindOverlap,
				Message: fmt.Sprintf("%s and %s have the same priority %d and both match %s and the paths below it; the longer source wins only by the tie-break",
					Ref(r), strings.Join(names, ", "), r.Priority, r.Source),
				Rules: append([]RuleRef{Ref(r)}, same...),
				Path:  []string{r.Source},
			})
		}
	}
	return out
}

// precedence says why starts_with rule w beats l on the paths both match.
func precedence(w, l *redirects.Rule) string {
	switch {
	case w.Priority != l.Priority:
		return fmt.Sprintf("priority %d beats %d", w.Priority, l.Priority)
	case len(w.Source) != len(l.Source):
		return fmt.Sprintf("same priority %d, longer source", w.Priority)
	}
	return fmt.Sprintf("same priority %d and source, older rule", w.Priority)
}

// lintRedundant finds exact rules that answer as the starts_with rule
// beneath them would without them: on their source as written and, under
// the settings, its other spellings (the other trailing-slash form, the
// letters' case swapped), each with and without a query.
func lintRedundant(x *index) []Finding {
	rules := x.rules
	var out []Finding
	for i := range rules {
		r := &rules[i]
		if r.MatchType == redirects.StartsWith || x.exact[x.set.Key(r.Source)] != int32(i) {
			continue
		}
		w, _ := x.lookupPrefix(r.Source)
		if w < 0 || rules[w].StatusCode != r.StatusCode || !sameBeneath(x, r) {
			continue
		}
		wr := Ref(&rules[w])
		out = append(out, Finding{
			Severity: SeverityWarning, Kind: KindRedundant,
			Message: fmt.Sprintf("%s answers %d %s, as %s would without it: it can be deleted",
				Ref(r), r.StatusCode, r.Destination, wr),
			Rules: []RuleRef{Ref(r), wr},
			Path:  []string{r.Source},
		})
	}
	return out
}

// spellings returns the decoded paths an exact source stands for under
// settings s, as lint probes them: the source, its other trailing-slash
// form (under ignore, the root aside) and the source with its letters'
// case swapped (without case).
func spellings(s redirects.Settings, src string) []string {
	out := []string{src}
	if s.IgnoreTrailingSlash && len(src) > 1 {
		if strings.HasSuffix(src, "/") {
			out = append(out, src[:len(src)-1])
		} else {
			out = append(out, src+"/")
		}
	}
	if s.CaseInsensitive {
		for _, p := range out[:len(out):len(out)] {
			if q := swapCase(p); q != p {
				out = append(out, q)
			}
		}
	}
	return out
}

// swapCase returns p with its ASCII letters' case swapped.
func swapCase(p string) string {
	b := []byte(p)
	for i, c := range b {
		switch {
		case 'a' <= c && c <= 'z':
			b[i] = c - 'a' + 'A'
		case 'A' <= c && c <= 'Z':
			b[i] = c - 'A' + 'a'
		}
	}
	return string(b)
}

// probeQuery is the query lint adds to a probe to see what a rule does
// with one.
const probeQuery = "?q=1"

// sameBeneath reports whether exact rule r answers as the starts_with
// rules alone would on every spelling of its source, with and without a
// query.
func sameBeneath(x *index, r *redirects.Rule) bool {
	for _, p := range spellings(x.set, r.Source) {
		w, m := x.lookupPrefix(p)
		if w < 0 || x.rules[w].StatusCode != r.StatusCode {
			return false
		}
		wire := wireOf(p)
		for _, q := range []string{"", probeQuery} {
			if x.ext != nil {
				// Without the exact rule a pattern, regex or
				// conditioned rule might answer instead: the warning is
				// only given when none matches.
				if i, _, _ := x.resolveExt("", wire+q, p); i >= 0 {
					return false
				}
			}
			if redirects.Target(r, wire+q, len(p)) != redirects.Target(&x.rules[w], wire+q, m) {
				return false
			}
		}
	}
	return true
}

// lintDoubleSlash finds preservePath rules whose join makes "//": a source
// not ending in '/' (so the rest of a request below it starts with '/')
// and a destination whose path ends in '/' (or an absolute one without a
// path, which gets "/").
func lintDoubleSlash(x *index) []Finding {
	var out []Finding
	for i := range x.rules {
		r := &x.rules[i]
		if !r.PreservePath || r.MatchType != redirects.StartsWith || r.StatusCode == redirects.StatusGone || strings.HasSuffix(r.Source, "/") || strings.Contains(r.Source, "?") {
			continue
		}
		path, _, _ := redirects.SplitDestination(r.Destination)
		if !strings.HasSuffix(path, "/") && !hostOnly(path) {
			continue
		}
		below := SamplePath(r.Source)
		out = append(out, Finding{
			Severity: SeverityWarning, Kind: KindDoubleSlash,
			Message: fmt.Sprintf("%s keeps the rest of the path after %s, which starts with '/' below it, and its destination's path ends in '/': %s is answered with %s; end the source with '/' or the destination without",
				Ref(r), r.Source, below, redirects.Target(r, wireOf(below), len(r.Source))),
			Rules: []RuleRef{Ref(r)},
			Path:  []string{below},
		})
	}
	return out
}

// hostOnly reports whether a destination's path part is an absolute URL
// without a path (https://ex.com), to which a join adds "/".
func hostOnly(path string) bool {
	rest, ok := cutSchemeFold(path)
	return ok && strings.IndexByte(rest, '/') < 0
}
