package safety

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"redirects"
	"redirects/engine/pattern"
)

// Flattening chains (docs/chains.md). A rule whose answer
// does not depend on the request (no kept rest of the path, no capture)
// answers every request it answers with its destination D; the lookup then
// follows D to the end of its chain, F. Giving the rule the destination F
// changes what a client ends at for no request: the requests the rule
// answers end at F in one redirect, and a chain through the rule reaches
// it with a request it answers with F, where D led. No source changes, so
// every request is answered by the same rule as before.
//
// A rule that keeps the request's query (and nothing else of it) answers
// D with the query appended; in a project of literal rules only (no query
// conditions, which could read that query) the chain from there ends at F
// with the same query appended exactly when every rule on the chain keeps
// the query too: each appends what it was asked to its own destination's
// query, and the rule answering F with the query kept does the same.
//
// The chain is followed from every host the rule can be asked on that
// answers differently: with host-scoped rules, each host they name (a
// wildcard's subdomains through two samples) and a host none names. Where
// the ends differ, one destination cannot say them all.

// FlattenChains returns the rules of a project whose chains flattening
// rewrites, in ID order, and the chains it leaves alone (mixed statuses, a
// 410 at the end, a loop, an end that depends on the request), in the ID
// order of their first rule. rules is not modified; opts are lint's
// (settings and the project's hosts).
func FlattenChains(rules []redirects.Rule, opts LintOptions) ([]redirects.ChainFix, []redirects.ChainLeft) {
	x := newIndex(rules, opts.Settings)
	hosts := newOwnHosts(opts.Hosts).withRules(x)
	f := followAll(x, hosts)
	probes := hostProbes(x)
	var fixes []redirects.ChainFix
	var left []redirects.ChainLeft
	// on holds, for each rule on a chain left alone, the chain's first
	// rule: the whole chain is left alone, not only its first rule.
	on := map[int32]int32{}
	reasonOf := map[int32]redirects.ChainLeftReason{}
	var fixAt []int32
	leave := func(i int32, reason redirects.ChainLeftReason, msg string, walks ...[]int32) {
		left = append(left, leftOf(&x.rules[i], reason, msg))
		reasonOf[i] = reason
		for _, w := range walks {
			for _, j := range w {
				if _, ok := on[j]; !ok {
					on[j] = i
				}
			}
		}
	}
	for i := range x.rules {
		r := &x.rules[i]
		if r.StatusCode == redirects.StatusGone {
			continue
		}
		if x.ext != nil && !x.ext.ok[i] {
			continue
		}
		keepsQuery := r.PreserveQuery
		dependent := (r.PreservePath && r.MatchType == redirects.StartsWith) || mayCapture(r, r.Destination) ||
			(keepsQuery && x.ext != nil)
		if dependent {
			if f.next[i] >= 0 {
				h, _, _ := x.rep(int32(i))
				w := flattenWalk(x, hosts, h, f.answer[i])
				leave(int32(i), redirects.ChainInexpressible, "where the chain ends depends on the request it answers (the rest of the path, its query or a capture), which one destination cannot say", w.rules)
			}
			continue
		}
		if x.ext == nil && f.next[i] < 0 {
			// Without extended rules, the walk's first step is the one
			// followAll took, from the same destination (the rule's own:
			// it does not depend on the request) on no host: it found no
			// rule to go on to, so the walk would end at once, with no
			// chain.
			continue
		}
		hs := flattenHosts(x, int32(i), probes)
		walks := make([]flatWalk, len(hs))
		chained := false
		for k, h := range hs {
			walks[k] = flattenWalk(x, hosts, h, r.Destination)
			chained = chained || len(walks[k].rules) > 0
		}
		if !chained {
			continue
		}
		w := walks[0]
		bits := statusBit(r.StatusCode)
		reason, why := redirects.ChainLeftReason(""), ""
		for k := range walks {
			wk := &walks[k]
			bits |= wk.bits
			switch {
			case wk.loop:
				reason, why = redirects.ChainLoop, "the chain runs into a redirect loop, which flattening does not fix"
			case wk.gone && reason == "":
				reason, why = redirects.ChainGone, "the chain ends at a 410"
			case reason == "" && wk.final != w.final:
				reason, why = redirects.ChainInexpressible, fmt.Sprintf("the chain ends at %s on host %s and at %s on host %s, which one destination cannot say",
					w.final, hostName(hs[0]), wk.final, hostName(hs[k]))
			}
			if reason == "" && (r.QueryAfterFragment || slices.ContainsFunc(wk.rules, func(j int32) bool { return x.rules[j].QueryAfterFragment })) {
				// The query after a fragment is no query of the next
				// request: the chain's answers are not one destination's.
				reason, why = redirects.ChainInexpressible, "a rule on the chain puts the request's query after its destination's fragment (queryAfterFragment), so the next request on the chain is sent without it, which one destination cannot say"
			}
			if reason == "" && (r.MergeQuery || slices.ContainsFunc(wk.rules, func(j int32) bool { return x.rules[j].MergeQuery })) {
				// Which of the request's parameters go on depends on
				// their names: not one destination's answer.
				reason, why = redirects.ChainInexpressible, "a rule on the chain merges the request's query into its destination's (mergeQuery), so which of the request's parameters the chain passes on depends on their names, which one destination cannot say"
			}
			if reason == "" && keepsQuery {
				for _, j := range wk.rules {
					if !x.rules[j].PreserveQuery {
						reason, why = redirects.ChainInexpressible, fmt.Sprintf("the rule keeps the request's query and %s on its chain does not: where the chain ends depends on the query", Ref(&x.rules[j]))
						break
					}
				}
			}
		}
		if reason == "" && mixed(bits) {
			reason, why = redirects.ChainMixed, "its statuses are not of one class"+mixNote(bits)
		}
		if reason == "" && w.final != r.Destination {
			nr := *r
			nr.Destination = w.final
			if mayCapture(r, w.final) {
				reason, why = redirects.ChainInexpressible, fmt.Sprintf("the end of the chain, %s, would read as a capture in the rule's destination", w.final)
			} else if err := nr.Validate(); err != nil {
				reason, why = redirects.ChainInexpressible, fmt.Sprintf("the end of the chain, %s, is not a destination a rule may have: %v", w.final, err)
			}
		}
		switch {
		case reason != "":
			rs := make([][]int32, len(walks))
			for k := range walks {
				rs[k] = walks[k].rules
			}
			leave(int32(i), reason, why, rs...)
		case w.final != r.Destination:
			fixes = append(fixes, redirects.ChainFix{Rule: *r, Destination: w.final, Hops: 1 + len(w.rules)})
			fixAt = append(fixAt, int32(i))
		}
	}
	// A rule on a chain left alone stays as it is, though its own chain
	// would flatten.
	kept := fixes[:0]
	for k, fx := range fixes {
		i := fixAt[k]
		if c, ok := on[i]; ok && c != i {
			left = append(left, leftOf(&x.rules[i], reasonOf[c], fmt.Sprintf("it is on the chain of %s, which is left alone", Ref(&x.rules[c]))))
			continue
		}
		kept = append(kept, fx)
	}
	fixes = kept
	slices.SortFunc(fixes, func(a, b redirects.ChainFix) int { return cmp.Compare(a.Rule.ID, b.Rule.ID) })
	slices.SortStableFunc(left, func(a, b redirects.ChainLeft) int { return cmp.Compare(a.Rule.ID, b.Rule.ID) })
	return fixes, left
}

func leftOf(r *redirects.Rule, reason redirects.ChainLeftReason, why string) redirects.ChainLeft {
	return redirects.ChainLeft{Rule: *r, Reason: reason, Message: fmt.Sprintf("%s -> %s left alone: %s", Ref(r), r.Destination, why)}
}

func hostName(h string) string {
	if h == "" {
		return "(none)"
	}
	return h
}

// flatWalk is the chain a destination starts, on one host: the rules that
// answer the requests it leads to, in order, and where it ends.
type flatWalk struct {
	rules []int32
	final string
	bits  uint8
	loop  bool // a request came again, or MaxFollow redirects passed
	gone  bool // the chain ends at a 410
}

// flattenWalk follows dest, answered to a request on host, as a client
// does, through the rules as the lookup answers (index.resolve).
func flattenWalk(x *index, hosts ownHosts, host, dest string) flatWalk {
	var w flatWalk
	var seen []string
	// origin is the scheme and host of the last absolute destination on
	// the way: a relative end is on that host, not the first request's.
	origin := ""
	end := func(dest string) string {
		if origin != "" && strings.HasPrefix(dest, "/") {
			return origin + dest
		}
		return dest
	}
	for n := 0; ; n++ {
		h, wire, ok := hosts.followReq(host, dest)
		if !ok {
			w.final = end(dest)
			return w
		}
		if !strings.HasPrefix(dest, "/") {

			rest := dest[strings.Index(dest, "://")+3:]
			if k := strings.IndexAny(rest, "/?#"); k >= 0 {
				origin = dest[:len(dest)-len(rest)+k]
			} else {
				origin = dest
			}
		}
		j, next := x.resolve(h, wire)
		if j < 0 {
			w.final = end(dest)
			return w
		}
		if x.rules[j].StatusCode == redirects.StatusGone {
			w.final, w.gone = end(dest), true
			return w
		}
		p, _ := requested(wire)
		req := h + " " + x.set.Key(p) + "?" + redirects.RequestQuery(wire)
		if slices.Contains(seen, req) || n >= MaxFollow {
			w.loop = true
			return w
		}
		seen = append(seen, req)
		w.rules = append(w.rules, j)
		w.bits |= statusBit(x.rules[j].StatusCode)
		host, dest = h, next
	}
}

// hostProbes returns the hosts a chain is followed on when host-scoped
// rules may answer it: none ("", where only host-less rules answer), each
// host a rule names, and for a wildcard two of its subdomains (one that a
// more specific rule may name, one that none does). Nil when no rule is
// host-scoped: every host is then answered alike.
func hostProbes(x *index) []string {
	if x.ext == nil {
		return nil
	}
	seen := map[string]bool{}
	var out []string
	add := func(h string) {
		if !seen[h] {
			seen[h] = true
			out = append(out, h)
		}
	}
	named := func(k string) {
		if k == "" {
			return
		}
		if strings.HasPrefix(k, "*.") {
			add("www" + k[1:])
			add("flatten-probe-none" + k[1:])
			return
		}
		add(k)
	}
	for _, k := range x.ext.host {
		named(k)
	}
	// The hosts a rule's exceptHosts leave out are probed as a rule's host
	// is: the chain may end otherwise there.
	for i := range x.rules {
		for _, k := range x.rules[i].ExceptHosts {
			named(k)
		}
	}
	if len(out) == 0 {
		return nil
	}
	slices.Sort(out)
	return append([]string{""}, out...)
}

// flattenHosts returns the hosts rule i's chain is followed on: its own
// for a rule scoped to one host, the probes its wildcard matches, every
// probe for a host-less rule but those its exceptHosts leave out, or just
// no host when no rule is scoped.
func flattenHosts(x *index, i int32, probes []string) []string {
	if probes == nil {
		h, _, _ := x.rep(i)
		return []string{h}
	}
	k := x.ext.host[i]
	switch {
	case k == "" && len(x.rules[i].ExceptHosts) > 0:
		var out []string
		for _, p := range probes {
			if !pattern.ExceptsHost(x.rules[i].ExceptHosts, p) {
				out = append(out, p)
			}
		}
		return out
	case k == "":
		return probes
	case strings.HasPrefix(k, "*."):
		var out []string
		for _, p := range probes {
			if strings.HasSuffix(p, k[1:]) {
				out = append(out, p)
			}
		}
		return out
	}
	return []string{k}
}

// mayCapture reports whether dest, as rule r's destination, may hold a
// capture (docs/contract.md#captures-in-destinations): for a regex rule a
// '$', for another extended rule a ':' before a letter past the scheme.
// It errs on the side of yes: such a rule is left alone.
func mayCapture(r *redirects.Rule, dest string) bool {
	if !r.Extended() {
		return false
	}
	d := dest
	if rest, ok := cutSchemeFold(d); ok {
		d = rest
	}
	if r.MatchType == redirects.Regex {
		return strings.ContainsRune(d, '$')
	}
	for k := 0; k+1 < len(d); k++ {
		if c := d[k+1]; d[k] == ':' && (c|0x20 >= 'a' && c|0x20 <= 'z') {
			return true
		}
	}
	return false
}
