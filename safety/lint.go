package safety

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"redirects"
)

// Severity says whether a finding blocks a deploy.
type Severity string

// Severities of findings.
const (
	// SeverityError blocks a deploy unless it is forced with a reason.
	SeverityError Severity = "error"
	// SeverityWarning is reported and blocks nothing.
	SeverityWarning Severity = "warning"
)

// Kind names what a finding is about.
type Kind string

// Kinds of findings, errors first.
const (
	// KindLoop: following the project's own rules from some path comes back
	// to it through two or more rules.
	KindLoop Kind = "loop"
	// KindSelfMatch: a rule answers its own destination (a loop of one).
	KindSelfMatch Kind = "self-match"
	// KindChain: a rule's destination is itself redirected by the project.
	KindChain Kind = "chain"
	// KindShadowed: a starts_with rule never answers, because a rule with a
	// shorter or equal source takes precedence on every path it matches.
	KindShadowed Kind = "shadowed"
	// KindRedundant: an exact rule answers as the starts_with rule beneath
	// it would.
	KindRedundant Kind = "redundant"
	// KindOverlap: nested starts_with sources with the same priority, so the
	// longer one wins only by the tie-break.
	KindOverlap Kind = "overlap"
)

var kindOrder = map[Kind]int{KindLoop: 0, KindSelfMatch: 1, KindChain: 2, KindShadowed: 3, KindRedundant: 4, KindOverlap: 5}

// RuleRef names a rule in a finding, an explanation or a diff, with the
// fields that matter to matching.
type RuleRef struct {
	ID          int64  `json:"id"`
	MatchType   string `json:"matchType"`
	Source      string `json:"source"`
	Destination string `json:"destination"`
	StatusCode  int    `json:"statusCode"`
	Priority    int    `json:"priority"`
}

// Ref returns the RuleRef of r.
func Ref(r *redirects.Rule) RuleRef {
	return RuleRef{ID: r.ID, MatchType: r.MatchType.String(), Source: r.Source, Destination: r.Destination,
		StatusCode: r.StatusCode, Priority: r.Priority}
}

// String names the rule for messages: rule 12 (starts_with /a).
func (r RuleRef) String() string {
	return "rule " + strconv.FormatInt(r.ID, 10) + " (" + r.MatchType + " " + r.Source + ")"
}

// Finding is one problem Lint found.
type Finding struct {
	Severity Severity `json:"severity"`
	Kind     Kind     `json:"kind"`
	Message  string   `json:"message"`
	// Rules are the rules involved: for a loop or a chain in the order they
	// are followed, otherwise the rule the finding is about first.
	Rules []RuleRef `json:"rules"`
	// Path shows the finding: for a loop or a chain the paths requested one
	// after the other (a loop's last path is its first), otherwise the path
	// at which the rules meet.
	Path []string `json:"path"`
	// FinalDestination is, for a chain, where following it ends: the
	// destination of its last rule. Empty when the chain runs into a loop.
	FinalDestination string `json:"finalDestination,omitempty"`
	// MixedStatus is set on a chain of both 301 and 302 answers.
	MixedStatus bool `json:"mixedStatus,omitempty"`
	// Hops is the number of redirects of a chain or a loop (for a chain into
	// a loop, up to and once around the loop); Rules lists at most
	// MaxChainRules of them.
	Hops int `json:"hops,omitempty"`
}

// MaxChainRules bounds the rules a chain finding lists.
const MaxChainRules = 16

// LintOptions says how to lint.
type LintOptions struct {
	// Hosts are the project's own hosts: an absolute destination on one of
	// them is followed like a relative one. Compared without case; an entry
	// without a port also matches the host with any port.
	Hosts []string
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
func Lint(rules []redirects.Rule, opts LintOptions) []Finding {
	x := newIndex(rules)
	var out []Finding
	out = append(out, lintFollow(x, newOwnHosts(opts.Hosts))...)
	out = append(out, lintPrefixes(x)...)
	out = append(out, lintRedundant(x)...)
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

// nextRules returns, for every rule, the index of the rule that answers the
// path its destination leads to, or -1 when the destination leaves the
// project or no rule answers it.
func nextRules(x *index, hosts ownHosts) []int32 {
	next := make([]int32, len(x.rules))
	for i := range x.rules {
		next[i] = -1
		if p, ok := hosts.follow(x.rules[i].Destination); ok {
			next[i] = x.lookup(p)
		}
	}
	return next
}

// lintFollow finds loops, self-matches and chains. Every rule has at most
// one successor (the rule answering its destination), so the rules form a
// functional graph: each walk from an unvisited rule either ends, joins a
// walk done before, or closes a cycle on itself, and every rule is walked
// once. Chain facts (last rule, hops, statuses) are then filled in backwards
// along each walk from what its successor already knows.
func lintFollow(x *index, hosts ownHosts) []Finding {
	rules := x.rules
	next := nextRules(x, hosts)
	const (
		unseen = iota
		onWalk
		done
	)
	state := make([]uint8, len(rules))
	onCycle := make([]bool, len(rules))
	last := make([]int32, len(rules)) // the chain's last rule, or -1 into a loop
	hops := make([]int32, len(rules))
	statuses := make([]uint8, len(rules)) // bit 0: a 301, bit 1: a 302 on the way
	var out []Finding
	walk := make([]int32, 0, 16)
	for start := range rules {
		if state[start] != unseen {
			continue
		}
		walk = walk[:0]
		i := int32(start)
		for i >= 0 && state[i] == unseen {
			state[i] = onWalk
			walk = append(walk, i)
			i = next[i]
		}
		if i >= 0 && state[i] == onWalk {
			// The walk closed a cycle at i.
			k := slices.Index(walk, i)
			cycle := walk[k:]
			var bits uint8
			for _, c := range cycle {
				bits |= statusBit(rules[c].StatusCode)
			}
			for _, c := range cycle {
				state[c] = done
				onCycle[c] = true
				last[c] = -1
				hops[c] = int32(len(cycle))
				statuses[c] = bits
			}
			out = append(out, loopFinding(x, hosts, cycle))
			walk = walk[:k]
		}
		for k := len(walk) - 1; k >= 0; k-- {
			r := walk[k]
			state[r] = done
			bit := statusBit(rules[r].StatusCode)
			if n := next[r]; n < 0 {
				last[r], hops[r], statuses[r] = r, 0, bit
			} else {
				last[r], hops[r], statuses[r] = last[n], hops[n]+1, bit|statuses[n]
				if onCycle[n] {
					last[r] = -1
				}
			}
		}
		for _, c := range walk {
			if next[c] >= 0 {
				out = append(out, chainFinding(x, hosts, next, c, last[c], int(hops[c]), statuses[c] == 3))
			}
		}
	}
	return out
}

func statusBit(code int) uint8 {
	if code == 302 {
		return 2
	}
	return 1
}

// loopFinding describes a cycle of rules, rotated to start at its lowest
// ID so the same loop reads the same way every time.
func loopFinding(x *index, hosts ownHosts, cycle []int32) Finding {
	low := 0
	for k, c := range cycle {
		if x.rules[c].ID < x.rules[cycle[low]].ID {
			low = k
		}
	}
	ordered := append(slices.Clone(cycle[low:]), cycle[:low]...)
	f := Finding{Severity: SeverityError, Hops: len(ordered)}
	// The path into the first rule is where the last rule leads.
	first, _ := hosts.follow(x.rules[ordered[len(ordered)-1]].Destination)
	f.Path = append(f.Path, first)
	for _, c := range ordered {
		f.Rules = append(f.Rules, Ref(&x.rules[c]))
		p, _ := hosts.follow(x.rules[c].Destination)
		f.Path = append(f.Path, p)
	}
	if len(ordered) == 1 {
		f.Kind = KindSelfMatch
		f.Message = fmt.Sprintf("%s answers its own destination %s: a redirect loop", f.Rules[0], f.Rules[0].Destination)
		return f
	}
	f.Kind = KindLoop
	// The message names at most MaxChainRules rules; Rules and Path hold
	// them all.
	shown := min(len(f.Rules), MaxChainRules)
	names := make([]string, shown)
	for k, r := range f.Rules[:shown] {
		names[k] = r.String()
	}
	path := strings.Join(f.Path, " -> ")
	if shown < len(f.Rules) {
		path = strings.Join(f.Path[:shown+1], " -> ") + " -> ..."
		names = append(names, "...")
	}
	f.Message = fmt.Sprintf("redirect loop of %d rules: %s (%s)", len(ordered), path, strings.Join(names, ", "))
	return f
}

// chainFinding describes the chain that starts at rule i.
func chainFinding(x *index, hosts ownHosts, next []int32, i, last int32, hops int, mixed bool) Finding {
	f := Finding{Severity: SeverityWarning, Kind: KindChain, Hops: hops + 1, MixedStatus: mixed}
	f.Path = append(f.Path, matchPath(x.rules[i].Source))
	for r, n := i, 0; r >= 0 && n <= hops && n < MaxChainRules; r, n = next[r], n+1 {
		f.Rules = append(f.Rules, Ref(&x.rules[r]))
		if next[r] >= 0 && n < hops {
			p, _ := hosts.follow(x.rules[r].Destination)
			f.Path = append(f.Path, p)
		}
	}
	first := f.Rules[0]
	by := f.Rules[1]
	if last < 0 {
		f.Message = fmt.Sprintf("%s redirects to %s, which %s redirects again, into a redirect loop", first, first.Destination, by)
		return f
	}
	f.FinalDestination = x.rules[last].Destination
	f.Message = fmt.Sprintf("%s redirects to %s, which %s redirects again: %d redirects in a row end at %s; point it at %s directly",
		first, first.Destination, by, hops+1, f.FinalDestination, f.FinalDestination)
	if mixed {
		f.Message += " (the chain mixes 301 and 302 answers)"
	}
	return f
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
		if r.MatchType != redirects.StartsWith {
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
// beneath them would without them.
func lintRedundant(x *index) []Finding {
	rules := x.rules
	var out []Finding
	for i := range rules {
		r := &rules[i]
		if r.MatchType == redirects.StartsWith || x.exact[r.Source] != int32(i) {
			continue
		}
		w := x.lookupPrefix(r.Source)
		if w < 0 || rules[w].Destination != r.Destination || rules[w].StatusCode != r.StatusCode {
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
