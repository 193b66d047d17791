package safety

import (
	"fmt"
	"slices"
	"strings"

	"redirects"
)

// Following redirects through a project's own rules, for lint: loops,
// self-matches, growing paths and chains.

// representative returns the request lint follows rule r from, as a
// browser sends it: its source, or for a preservePath rule SamplePath of
// its source, so that the rest is appended (docs/contract.md#rule-options).
func representative(r *redirects.Rule) string {
	if r.PreservePath && r.MatchType == redirects.StartsWith {
		return wireOf(SamplePath(r.Source))
	}
	return wireOf(r.Source)
}

// repAnswer returns what rule r answers its representative request: its
// computed destination, which is the destination as configured unless a
// rest is appended.
func repAnswer(r *redirects.Rule) string {
	if r.PreservePath && r.MatchType == redirects.StartsWith && r.StatusCode != redirects.StatusGone {
		return redirects.Target(r, representative(r), len(r.Source))
	}
	return r.Destination
}

// follows is what lint knows of each rule's redirect: its answer to its
// representative request, the path (decoded) that answer leads to, and the
// rule that answers that path, or -1 when the answer leaves the project, no
// rule answers it, the rule answering it is a 410, or the rule itself is a
// 410.
type follows struct {
	answer []string
	path   []string
	next   []int32
	// host is, for a project with extended rules, the host of the request
	// that answer leads to; nil otherwise.
	host []string
}

// rep returns the request lint follows rule i from: representative for a
// literal rule (on no host), a sample of an extended rule's source on its
// host. ok is false for an extended rule without a sample.
func (x *index) rep(i int32) (host, wire string, ok bool) {
	r := &x.rules[i]
	if x.ext == nil || !r.Extended() {
		return "", representative(r), true
	}
	return x.sample(i)
}

func followAll(x *index, hosts ownHosts) follows {
	n := len(x.rules)
	f := follows{answer: make([]string, n), path: make([]string, n), next: make([]int32, n)}
	if x.ext != nil {
		f.host = make([]string, n)
	}
	for i := range x.rules {
		r := &x.rules[i]
		f.next[i] = -1
		if r.StatusCode == redirects.StatusGone {
			continue
		}
		if x.ext == nil || !r.Extended() {
			f.answer[i] = repAnswer(r)
		} else {
			h, wire, ok := x.sample(int32(i))
			if !ok {
				continue
			}
			if f.answer[i], ok = x.ownAnswer(int32(i), h, wire); !ok {
				continue
			}
		}
		if x.ext == nil {
			p, ok := hosts.follow(f.answer[i])
			if !ok {
				continue
			}
			f.path[i] = p
			if j, _ := x.lookup(p); j >= 0 && x.rules[j].StatusCode != redirects.StatusGone {
				f.next[i] = j
			}
			continue
		}
		h, _, _ := x.rep(int32(i))
		nh, wire, ok := hosts.followReq(h, f.answer[i])
		if !ok {
			continue
		}
		f.path[i] = shownPath(wire)
		f.host[i] = nh
		if j, _ := x.resolve(nh, wire); j >= 0 && x.rules[j].StatusCode != redirects.StatusGone {
			f.next[i] = j
		}
	}
	return f
}

// grows reports whether rule i, which answers the path its own answer
// leads to, leads to another path each time: a preservePath rule whose
// destination lies under its own source.
func (f *follows) grows(x *index, i int32) bool {
	r := &x.rules[i]
	if !r.PreservePath || r.MatchType != redirects.StartsWith {
		return false
	}
	_, wire, _ := x.rep(i)
	from, _ := requested(wire)
	return x.set.Key(from) != x.set.Key(f.path[i])
}

// lintFollow finds loops, self-matches, growing paths and chains. Every
// rule has at most one successor (the rule answering its answer), so the
// rules form a functional graph: each walk from an unvisited rule either
// ends, joins a walk done before, or closes a cycle on itself, and every
// rule is walked once. Whether a walk ends or runs into a loop is then
// filled in backwards along it from what its successor already knows; a
// chain's own finding follows the real requests (walkChain), since the
// next rule answers the rest of the request the previous one made, not
// its own representative request.
func lintFollow(x *index, hosts ownHosts) []Finding {
	rules := x.rules
	f := followAll(x, hosts)
	next := f.next
	const (
		unseen = iota
		onWalk
		done
	)
	state := make([]uint8, len(rules))
	onCycle := make([]bool, len(rules))
	last := make([]int32, len(rules)) // the chain's last rule, or -1 into a loop
	into := make([]int32, len(rules)) // for a chain into a loop, a rule on the loop
	var out []Finding
	// chain reports the chain from rule c. With extended rules, a chain
	// whose requests run into a loop the rules' own samples did not show
	// reports that loop too, once.
	loops := map[string]bool{}
	chain := func(c int32, growth bool) {
		fd, w := chainFinding(x, hosts, &f, c, growth)
		out = append(out, fd)
		if x.ext == nil || len(w.cycle) == 0 {
			return
		}
		ids := make([]int32, len(w.cycle))
		copy(ids, w.cycle)
		slices.Sort(ids)
		key := fmt.Sprint(ids)
		if onCycle[w.cycle[0]] || loops[key] {
			return
		}
		loops[key] = true
		out = append(out, walkLoopFinding(x, w))
	}
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
			for _, c := range cycle {
				state[c] = done
				onCycle[c] = true
				last[c] = -1
				into[c] = c
			}
			if x.cycleReal(hosts, &f, cycle) {
				out = append(out, loopFinding(x, &f, cycle))
			} else {
				// Followed from sample requests the rules lead into each
				// other, but the requests they make do not repeat: a
				// chain, reported from each rule as it really goes.
				for _, c := range cycle {
					chain(c, false)
				}
			}
			walk = walk[:k]
		}
		for k := len(walk) - 1; k >= 0; k-- {
			r := walk[k]
			state[r] = done
			if n := next[r]; n < 0 {
				last[r] = r
			} else {
				last[r], into[r] = last[n], into[n]
				if onCycle[n] {
					last[r] = -1
				}
			}
		}
		for _, c := range walk {
			if next[c] >= 0 {
				growth := last[c] < 0 && next[into[c]] == into[c] && f.grows(x, into[c])
				chain(c, growth)
			}
		}
	}
	return out
}

// statusBit is a bit per redirect status; mixed reports whether bits hold
// both a permanent (301, 308) and a temporary (302, 303, 307) one.
func statusBit(code int) uint8 {
	switch code {
	case 302:
		return 2
	case 303:
		return 4
	case 307:
		return 8
	case 308:
		return 16
	}
	return 1
}

func mixed(bits uint8) bool { return bits&(1|16) != 0 && bits&(2|4|8) != 0 }

// mixNote says which statuses a chain mixes: the contract's first two as before, any
// others by number.
func mixNote(bits uint8) string {
	if bits == 3 {
		return " (the chain mixes 301 and 302 answers)"
	}
	var codes []string
	for k, code := range []string{"301", "302", "303", "307", "308"} {
		if bits&(1<<k) != 0 {
			codes = append(codes, code)
		}
	}
	return " (the chain mixes permanent and temporary answers: " + strings.Join(codes[:len(codes)-1], ", ") + " and " + codes[len(codes)-1] + ")"
}

// cycleReal reports whether a cycle of rules, found by following each
// rule from its own representative request, is a loop of the requests a
// client makes. It is, for literal rules: each answers the next one's
// representative path. An extended rule is followed from a sample of its
// source, and the next rule answers another request than its own sample,
// with other captures: the cycle is real when following the requests from
// its first rule's sample makes one of them again.
func (x *index) cycleReal(hosts ownHosts, f *follows, cycle []int32) bool {
	if x.ext == nil {
		return true
	}
	low := cycle[0]
	ext := false
	for _, c := range cycle {
		ext = ext || x.rules[c].Extended()
		if x.rules[c].ID < x.rules[low].ID {
			low = c
		}
	}
	if !ext {
		return true
	}
	return walkChain(x, hosts, f, low).loop
}

// loopFinding describes a cycle of rules, rotated to start at its lowest
// ID so the same loop reads the same way every time.
func loopFinding(x *index, f *follows, cycle []int32) Finding {
	low := 0
	for k, c := range cycle {
		if x.rules[c].ID < x.rules[cycle[low]].ID {
			low = k
		}
	}
	ordered := append(slices.Clone(cycle[low:]), cycle[:low]...)
	out := Finding{Severity: SeverityError, Hops: len(ordered)}
	if len(ordered) == 1 && f.grows(x, ordered[0]) {
		// Each request is answered with a longer one: the path the rule
		// is followed from, then where it leads.
		c := ordered[0]
		r := Ref(&x.rules[c])
		_, wire, _ := x.rep(c)
		from, _ := requested(wire)
		out.Kind = KindPathGrowth
		out.Rules = []RuleRef{r}
		out.Path = []string{from, f.path[c]}
		out.Message = fmt.Sprintf("%s keeps the rest of the path and redirects %s to %s, under its own source: the path grows on each redirect until the client gives up",
			r, from, f.answer[c])
		return out
	}
	// The path into the first rule is where the last rule leads.
	out.Path = append(out.Path, f.path[ordered[len(ordered)-1]])
	for _, c := range ordered {
		out.Rules = append(out.Rules, Ref(&x.rules[c]))
		out.Path = append(out.Path, f.path[c])
	}
	if len(ordered) == 1 {
		out.Kind = KindSelfMatch
		out.Message = fmt.Sprintf("%s answers its own destination %s: a redirect loop", out.Rules[0], f.answer[ordered[0]]) +
			onHosts(x, ordered, f.host)
		return out
	}
	out.Kind = KindLoop
	// The message names at most MaxChainRules rules; Rules and Path hold
	// them all.
	shown := min(len(out.Rules), MaxChainRules)
	names := make([]string, shown)
	for k, r := range out.Rules[:shown] {
		names[k] = r.String()
	}
	path := strings.Join(out.Path, " -> ")
	if shown < len(out.Rules) {
		path = strings.Join(out.Path[:shown+1], " -> ") + " -> ..."
		names = append(names, "...")
	}
	out.Message = fmt.Sprintf("redirect loop of %d rules%s: %s (%s)", len(ordered), onHosts(x, ordered, f.host), path, strings.Join(names, ", ")) +
		sampleNote(x, ordered)
	return out
}

// chainWalk is the chain that starts at a rule, followed request by
// request as a client follows it: the rule's answer to its representative
// request, then the lookup's answer to each next request, with the rest of
// that very request (redirects.Target), not the next rule's own
// representative one.
type chainWalk struct {
	rules []int32  // the rules that answer, in order, the first rule first
	paths []string // the decoded path each of them answers
	final string   // where following ends; "" when it loops
	loop  bool     // a request came again, or MaxFollow redirects passed
	bits  uint8    // statusBit of every answer on the way
	// cycle and cyclePaths are, when a request came again, the rules
	// from its first answer to the request before it came again, and the
	// paths they answer (the first one again at the end).
	cycle      []int32
	cyclePaths []string
	// hosts are, with extended rules, the host each path is requested on
	// ("" for none), and cycleHosts those of cyclePaths.
	hosts, cycleHosts []string
}

// walkChain follows rule i's answer through the rules as x.final does
// (a request made twice, or more than MaxFollow redirects, is a loop),
// recording the rules on the way. It costs at most MaxFollow lookups.
func walkChain(x *index, hosts ownHosts, f *follows, i int32) chainWalk {
	host, from, _ := x.rep(i)
	if x.ext != nil {
		from = shownPath(from)
	} else {
		from, _ = requested(from)
	}
	w := chainWalk{rules: []int32{i}, paths: []string{from}, hosts: []string{host}, bits: statusBit(x.rules[i].StatusCode)}
	// The representative request is not among the requests seen: rule i
	// answers it by choice, where the lookup may pick another rule.
	var seen []string
	dest := f.answer[i]
	for n := 0; ; n++ {
		var wire string
		var ok bool
		host, wire, ok = hosts.followReq(host, dest)
		if !ok {
			w.final = dest
			return w
		}
		p, _ := requested(wire)
		j, next := x.resolve(host, wire)
		if j < 0 || x.rules[j].StatusCode == redirects.StatusGone {
			w.final = dest
			return w
		}
		w.rules = append(w.rules, j)
		w.hosts = append(w.hosts, host)
		if x.ext != nil {
			w.paths = append(w.paths, shownPath(wire))
		} else {
			w.paths = append(w.paths, p)
		}
		w.bits |= statusBit(x.rules[j].StatusCode)
		req := x.set.Key(p) + "?" + redirects.RequestQuery(wire)
		if x.ext != nil {
			req = host + " " + req
		}
		if k := slices.Index(seen, req); k >= 0 || n >= MaxFollow {
			w.loop = true
			if k >= 0 {
				w.cycle = slices.Clone(w.rules[k+1 : len(w.rules)-1])
				w.cyclePaths = slices.Clone(w.paths[k+1:])
				w.cycleHosts = slices.Clone(w.hosts[k+1:])
			}
			// Listed up to the first rule that answers again: past it the
			// loop, or the growing path, repeats itself.
			for k := 1; k < len(w.rules); k++ {
				if slices.Contains(w.rules[:k], w.rules[k]) {
					w.rules, w.paths, w.hosts = w.rules[:k+1], w.paths[:k+1], w.hosts[:k+1]
					break
				}
			}
			return w
		}
		seen = append(seen, req)
		dest = next
	}
}

// chainFinding describes the chain that starts at rule i, followed with
// the rest of each request (walkChain); growth says that the rules lead
// into a rule whose path grows rather than into a loop.
func chainFinding(x *index, hosts ownHosts, f *follows, i int32, growth bool) (Finding, chainWalk) {
	w := walkChain(x, hosts, f, i)
	out := Finding{Severity: SeverityWarning, Kind: KindChain, Hops: len(w.rules), MixedStatus: mixed(w.bits)}
	shown := min(len(w.rules), MaxChainRules)
	for _, r := range w.rules[:shown] {
		out.Rules = append(out.Rules, Ref(&x.rules[r]))
	}
	out.Path = slices.Clone(w.paths[:shown])
	first := out.Rules[0]
	by := out.Rules[1]
	if w.loop {
		end := "into a redirect loop"
		if growth {
			end = "into a path that grows on each redirect"
		}
		out.Message = fmt.Sprintf("%s redirects to %s, which %s redirects again, %s", first, f.answer[i], by, end)
		return out, w
	}
	out.FinalDestination = w.final
	out.Message = fmt.Sprintf("%s redirects to %s, which %s redirects again: %d redirects in a row end at %s; point it at %s directly",
		first, f.answer[i], by, out.Hops, out.FinalDestination, out.FinalDestination)
	if out.MixedStatus {
		out.Message += mixNote(w.bits)
	}
	return out, w
}

// walkLoopFinding describes a loop that following the requests from a
// rule's sample ran into, where the rules' own samples do not lead into
// each other (a placeholder's sample value that another rule's constraint
// refuses): rotated to start at its lowest ID, as loopFinding does.
func walkLoopFinding(x *index, w chainWalk) Finding {
	low := 0
	for k, c := range w.cycle {
		if x.rules[c].ID < x.rules[w.cycle[low]].ID {
			low = k
		}
	}
	n := len(w.cycle)
	out := Finding{Severity: SeverityError, Kind: KindLoop, Hops: n}
	for k := range n {
		out.Rules = append(out.Rules, Ref(&x.rules[w.cycle[(low+k)%n]]))
		out.Path = append(out.Path, w.cyclePaths[(low+k)%n])
	}
	out.Path = append(out.Path, out.Path[0])
	if n == 1 {
		out.Kind = KindSelfMatch
		out.Message = fmt.Sprintf("%s answers %s with a request it answers again: a redirect loop", out.Rules[0], out.Path[0]) +
			cycleOn(x, w.cycle, w.cycleHosts)
		return out
	}
	shown := min(n, MaxChainRules)
	names := make([]string, shown)
	for k, r := range out.Rules[:shown] {
		names[k] = r.String()
	}
	path := strings.Join(out.Path, " -> ")
	if shown < n {
		path = strings.Join(out.Path[:shown+1], " -> ") + " -> ..."
		names = append(names, "...")
	}
	out.Message = fmt.Sprintf("redirect loop of %d rules%s: %s (%s)", n, cycleOn(x, w.cycle, w.cycleHosts), path, strings.Join(names, ", ")) +
		sampleNote(x, w.cycle)
	return out
}

// shownPath is how a finding shows a request in a project with extended
// rules: its decoded path and, when it has one, its query as sent, which
// query conditions read.
func shownPath(wire string) string {
	p, _ := requested(wire)
	if q := redirects.RequestQuery(wire); q != "" {
		return p + "?" + q
	}
	return p
}

// sampleNote says, for a loop through pattern or regex rules, that its
// paths are samples: each placeholder's name stands for any value it
// takes.
func sampleNote(x *index, rules []int32) string {
	for _, c := range rules {
		if mt := x.rules[c].MatchType; mt == redirects.Pattern || mt == redirects.Regex {
			return "; the paths are samples, each placeholder written as its name"
		}
	}
	return ""
}

// onHosts says which hosts a loop of rules is on, when one of its rules is
// host-scoped (a lookup without that host never shows the loop): " on
// host H" (" on hosts H1, H2"), or "". reqHost is, per rule, the host of
// the request its answer leads to (follows.host; nil without extended
// rules).
func onHosts(x *index, rules []int32, reqHost []string) string {
	if reqHost == nil {
		return ""
	}
	hs := make([]string, len(rules))
	for k, c := range rules {
		hs[k] = reqHost[c]
	}
	return cycleOn(x, rules, hs)
}

// cycleOn is onHosts given the host of each request of the loop.
func cycleOn(x *index, rules []int32, hosts []string) string {
	if x.ext == nil {
		return ""
	}
	scoped := false
	for _, c := range rules {
		scoped = scoped || x.ext.host[c] != ""
	}
	if !scoped {
		return ""
	}
	var names []string
	for _, h := range hosts {
		if h != "" && !slices.Contains(names, h) {
			names = append(names, h)
		}
	}
	switch len(names) {
	case 0:
		return ""
	case 1:
		return " on host " + names[0]
	}
	return " on hosts " + strings.Join(names, ", ")
}
