package export

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"redirects"
	"redirects/engine"
)

// maxExamples is how many sources a report line or a warning names.
const maxExamples = 3

// linearScanWarn is the rule count above which the report warns about the
// formats that test rules one by one: docs/exports.md gives the figures
// for each format, and advises the maps above about 10,000 rules.
const linearScanWarn = 10_000

// nginxInsertionWarn is the nginxInsertionWork above which the report warns:
// some ten seconds of nginx's start-up at 0.1-0.2 us per comparison.
const nginxInsertionWarn = 100_000_000

// nginxInsertionWork estimates the comparisons nginx 1.22 (and any nginx
// whose ngx_queue_sort is an insertion sort) makes to sort the locations of
// the nginx export: the file lists every exact location before every prefix
// location, and each prefix location is moved back past every exact one
// that sorts after it. Sorted sections cost nothing more. Both lists are
// sorted by source, so one merge walk counts it.
func nginxInsertionWork(exact, prefix []rec) int64 {
	var work int64
	j := 0
	for _, p := range prefix {
		for j < len(exact) && exact[j].src <= p.src {
			j++
		}
		work += int64(len(exact) - j)
	}
	return work
}

// caseInfo says where matching that ignores ASCII case (nginx map keys,
// HAProxy's -i) changes an answer.
type caseInfo struct {
	// leftOut lists the exact sources nginx-map-exact leaves out because an
	// earlier one (in source byte order, the file's order) differs from it
	// only in case; kept names that earlier source.
	leftOut    []caseDup
	leftOutSet map[*redirects.Rule]bool
	// haproxy lists the source paths for which the haproxy format answers
	// with another rule than the lookup API; kept names the source of the
	// rule that answers.
	haproxy []caseDup
}

type caseDup struct{ source, kept string }

// cases computes caseInfo once; the nginx-map-exact renderer and the report
// both need it and run concurrently.
func (s *sorted) cases() *caseInfo {
	s.caseOnce.Do(func() { s.caseInfo = computeCases(s) })
	return s.caseInfo
}

// computeCases compares, for every path equal to a source, what the lookup
// API answers with what HAProxy's case-insensitive ACLs answer, and finds the
// exact sources that collide as nginx map keys. With no upper-case letter in
// any source, case-insensitive and case-sensitive matching agree on all
// those paths, which is the common case and costs one scan.
func computeCases(s *sorted) *caseInfo {
	ci := &caseInfo{}
	upper := false
	for _, r := range s.all {
		if hasUpper(r.src) {
			upper = true
			break
		}
	}
	if !upper {
		return ci
	}

	// Exact rules: the first in byte order of each case-insensitive group
	// answers the whole group, in nginx-map-exact and in haproxy alike.
	// Only keys that some upper-case source lowers to can collide.
	colliding := make(map[string]bool)
	for _, r := range s.exact {
		if hasUpper(r.src) {
			colliding[lowerASCII(r.src)] = true
		}
	}
	first := make(map[string]*redirects.Rule, len(colliding))
	ci.leftOutSet = make(map[*redirects.Rule]bool)
	for _, r := range s.exact {
		key := lowerASCII(r.src)
		if !colliding[key] {
			continue
		}
		if f, ok := first[key]; ok {
			ci.leftOut = append(ci.leftOut, caseDup{r.src, f.Source})
			ci.leftOutSet[r.rule] = true
			ci.haproxy = append(ci.haproxy, caseDup{r.src, f.Source})
		} else {
			first[key] = r.rule
		}
	}
	// haproxyExact returns the exact rule whose ACL answers path p first.
	haproxyExact := func(p string) *redirects.Rule {
		key := lowerASCII(p)
		if colliding[key] {
			return first[key]
		}
		return findExact(s.exact, key)
	}

	// Prefix rules: for each starts_with source, the best rule among those
	// whose source is a case-insensitive prefix of it, found like
	// engine.PrefixWinners does, over lower-cased sources.
	type lowered struct {
		low    string
		r, win *redirects.Rule
	}
	list := make([]lowered, len(s.prefix))
	for i, r := range s.prefix {
		list[i] = lowered{low: lowerASCII(r.src), r: r.rule}
	}
	slices.SortFunc(list, func(a, b lowered) int { return strings.Compare(a.low, b.low) })
	stack := make([]int, 0, 16)
	for i := range list {
		for len(stack) > 0 && !strings.HasPrefix(list[i].low, list[stack[len(stack)-1]].low) {
			stack = stack[:len(stack)-1]
		}
		best := list[i].r
		if len(stack) > 0 {
			if w := list[stack[len(stack)-1]].win; engine.Better(w, best) {
				best = w
			}
		}
		list[i].win = best
		stack = append(stack, i)
	}
	// Sources equal up to case all get the winner of the last of their run,
	// the only one that saw the others.
	for i := len(list) - 2; i >= 0; i-- {
		if list[i].low == list[i+1].low {
			list[i].win = list[i+1].win
		}
	}
	for i := range list {
		p := list[i].r.Source
		api := findExact(s.exact, p)
		if api == nil {
			api = findWinner(s.winners, p)
		}
		got := haproxyExact(p)
		if got == nil {
			got = list[i].win
		}
		if got != api {
			ci.haproxy = append(ci.haproxy, caseDup{p, got.Source})
		}
	}
	return ci
}

// findExact returns the exact rule with source src, by binary search in
// exact (sorted by source), or nil.
func findExact(exact []rec, src string) *redirects.Rule {
	return find(exact, src)
}

// findWinner returns the closure winner of starts_with source src, by
// binary search in winners (sorted by source), or nil.
func findWinner(winners []rec, src string) *redirects.Rule {
	return find(winners, src)
}

func find(recs []rec, src string) *redirects.Rule {
	i, ok := slices.BinarySearchFunc(recs, src, func(r rec, t string) int { return strings.Compare(r.src, t) })
	if !ok {
		return nil
	}
	return recs[i].rule
}

func hasUpper(s string) bool {
	for i := 0; i < len(s); i++ {
		if 'A' <= s[i] && s[i] <= 'Z' {
			return true
		}
	}
	return false
}

// lowerASCII lowers ASCII letters only, as nginx (ngx_hash_strlow) and
// HAProxy (strncasecmp in the C locale) do; strings.ToLower would also fold
// other letters, which neither server does.
func lowerASCII(s string) string {
	if !hasUpper(s) {
		return s
	}
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// nginxNormalizes reports whether nginx matches a request for src against
// something else than src: nginx merges "//" and resolves "." and ".."
// segments of the request path before matching, so a source holding them
// never meets a request path equal to it. Validation refuses such sources;
// rules stored before it did can still hold them. A '%' is no such case any
// more: all three decode the request path once, so a stored source holding
// '%' is met by the request that escapes it as %25, everywhere alike.
func nginxNormalizes(src string) bool {
	return strings.Contains(src, "//") ||
		strings.Contains(src, "/./") || strings.Contains(src, "/../") ||
		strings.HasSuffix(src, "/.") || strings.HasSuffix(src, "/..")
}

// report returns the deploy-time report: one line per thing some format
// cannot express, with a count and up to maxExamples examples, or "" when
// every format answers as the lookup API does (up to the documented
// differences that depend on the request alone, such as its case).
func (s *sorted) report() string {
	var lines []string
	add := func(n int, what string, examples []string) {
		if n > 0 {
			lines = append(lines, what+": "+strconv.Itoa(n)+", e.g. "+strings.Join(examples, ", "))
		}
	}

	n, ex := 0, []string(nil)
	if s.ext {
		// A project that uses options or settings: each format's
		// declarations, as its opening comment has them (the csv's here
		// only), then the case differences source by source.
		for _, format := range redirects.Formats {
			for _, d := range s.declarations(format) {
				lines = append(lines, format+": "+strings.TrimPrefix(d, declPrefix))
			}
		}
		if !s.set.CaseInsensitive {
			_, _, left := s.exactMapEntries()
			add(len(left), "nginx-map-exact: exact keys left out because nginx map keys are case-insensitive and an earlier key is equal to them up to case", dupExamples(left))
			// The chain's literal rules, in the API's order, are declared
			// by match type when -i applies to them (declarations).
			if s.chain == nil {
				add(len(s.cases().haproxy), "haproxy: source paths answered by another rule than in the lookup API, because the ACLs match case-insensitively (-i)", dupExamples(s.cases().haproxy))
			}
		}
	} else {
		for _, r := range s.exact {
			if r.code != 301 {
				if n++; n <= maxExamples {
					ex = append(ex, r.src)
				}
			}
		}
		add(n, "nginx-map-exact, haproxy-map-exact: exact rules with status 302 served as 301 (these maps have no status column)", ex)

		ci := s.cases()
		add(len(ci.leftOut), "nginx-map-exact: exact sources left out because nginx map keys are case-insensitive and an earlier source differs from them only in case", dupExamples(ci.leftOut))
		add(len(ci.haproxy), "haproxy: source paths answered by another rule than in the lookup API, because the ACLs match case-insensitively (-i)", dupExamples(ci.haproxy))
	}

	n, ex = 0, nil
	for _, r := range s.all {
		if nginxNormalizes(r.src) {
			if n++; n <= maxExamples {
				ex = append(ex, r.src)
			}
		}
	}
	normalizing := "nginx, nginx-map-exact, nginx-map-prefix"
	if s.chain != nil {
		normalizing = "nginx-map-exact, nginx-map-prefix" // the chain matches $request_uri
	}
	add(n, normalizing+`: sources that do not match as in the lookup API because they hold "//", "/./" or "/../", which nginx normalizes in the request path before matching (validation refuses them now: edit these rules)`, ex)

	n, ex = 0, nil
	for _, recs := range [][]rec{s.exact, s.winners} {
		if s.ext {
			break // declared above, or regular-expression locations
		}
		for _, r := range recs {
			if len(r.src) > maxNginxLocation {
				if n++; n <= maxExamples {
					ex = append(ex, r.src[:40]+"... ("+strconv.Itoa(len(r.src))+" bytes)")
				}
			}
		}
	}
	add(n, "nginx: sources left out because they are longer than 255 bytes, which nginx 1.22 mishandles in locations (one such location catches every request)", ex)

	if w := nginxInsertionWork(s.exact, s.winners); w > nginxInsertionWarn && s.set.IsDefault() && s.chain == nil {
		lines = append(lines, "nginx: "+strconv.Itoa(len(s.exact))+" exact and "+strconv.Itoa(len(s.winners))+
			" prefix locations take nginx versions that sort locations by insertion (such as 1.22) some "+
			strconv.FormatInt(w/1_000_000, 10)+" million comparisons to load (about "+
			(time.Duration(w)*200*time.Nanosecond).Round(time.Second).String()+" at 0.2 us each), because all prefix locations follow all exact ones")
	}

	var slow []string
	if n := len(s.exact) + len(s.prefix); n > linearScanWarn && s.chain == nil {
		slow = append(slow, "haproxy ("+strconv.Itoa(n)+" ACLs)")
	}
	if n := len(s.prefix); n > linearScanWarn {
		slow = append(slow, "nginx-map-prefix ("+strconv.Itoa(n)+" regular expressions)")
	}
	if n := len(s.exact) + len(s.prefix); n > linearScanWarn && !s.set.IsDefault() && s.chain == nil {
		slow = append(slow, "nginx ("+strconv.Itoa(n)+" regular-expression locations)")
	}
	if n := len(s.chain); n > linearScanWarn {
		slow = append(slow, "nginx ("+strconv.Itoa(n)+" server-level regular expressions)", "haproxy ("+strconv.Itoa(n)+" regular expressions)")
	}
	if len(slow) > 0 {
		lines = append(lines, strings.Join(slow, ", ")+": tested one by one per request, which is slow above about 10,000 rules (haproxy-map-exact with haproxy-map-prefix, and nginx-map-exact, look rules up in trees and hashes)")
	}

	dups := make([]string, 0, maxExamples)
	for _, d := range s.dupExact {
		if len(dups) < maxExamples {
			dups = append(dups, "exact "+d)
		}
	}
	for _, d := range s.dupPrefix {
		if len(dups) < maxExamples {
			dups = append(dups, "starts_with "+d)
		}
	}
	add(len(s.dupExact)+len(s.dupPrefix), "all formats but csv: repeated sources written once, with the rule the lookup API answers", dups)

	if len(lines) == 0 {
		return ""
	}
	return strings.Join(lines, "\n") + "\n"
}

func dupExamples(d []caseDup) []string {
	var ex []string
	for i := 0; i < len(d) && i < maxExamples; i++ {
		ex = append(ex, d[i].source+" (answered by the rule of "+d[i].kept+")")
	}
	return ex
}
