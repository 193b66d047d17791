// Package suggest turns a project's missed paths into proposed rules
// (docs/suggest.md): the heuristics, their scoring, and the sitemaps they
// read. The service layer (service/suggest.go) stores what they propose.
package suggest

import (
	"net/url"
	"sort"
	"strconv"
	"strings"

	"redirects"
)

// Input is what the heuristics read: the misses to propose rules for (most
// missed first), the draft's rules, the project's settings and hosts, and
// the sitemap's page URLs (none without a sitemap).
type Input struct {
	Misses   []redirects.Miss
	Rules    []redirects.Rule
	Settings redirects.Settings
	Hosts    []string
	Sitemap  []string
}

// The confidences of the heuristics (docs/suggest.md#confidence).
const (
	confExactVariant  = 95
	confPrefixVariant = 85
	confPrefixMax     = 90
	confSitemapMax    = 80
	sitemapBoost      = 10
	// unlistedPenalty: with a sitemap, a destination on the project's
	// own site that the sitemap does not list is likely no page.
	unlistedPenalty = 30
	// affinityWeight: how much a sitemap page gains for lying where the
	// rules of the missed path's folder send their paths.
	affinityWeight  = 0.15
	minSitemapScore = 0.35
)

// Candidates returns, for each miss of in (in its order), the rules the
// heuristics propose for it, best first: by confidence, then by kind in
// the order case, trailing slash, prefix, sitemap, then destination. A
// candidate whose destination is one of the sitemap's pages gains
// sitemapBoost (the sitemap confirms it). ID, ProjectID, State and
// CreatedAt are left to the caller.
func Candidates(in Input) [][]redirects.Suggestion {
	ix := newIndex(in)
	out := make([][]redirects.Suggestion, len(in.Misses))
	for i, m := range in.Misses {
		var cs []redirects.Suggestion
		cs = append(cs, ix.variants(m)...)
		cs = append(cs, ix.prefix(m)...)
		cs = append(cs, ix.sitemap(m)...)
		best := map[string]int{}
		var kept []redirects.Suggestion
		for _, c := range cs {
			c.Host, c.Path, c.Misses = m.Host, m.Path, m.Count
			if c.Kind != redirects.SuggestSitemap && ix.comparable(c.Destination) {
				if ix.pages[ix.norm(c.Destination)] {
					c.Confidence = min(99, c.Confidence+sitemapBoost)
					c.Reason += "; the sitemap lists the destination"
				} else {
					c.Confidence = max(1, c.Confidence-unlistedPenalty)
					c.Reason += "; the sitemap does not list the destination"
				}
			}
			if k, ok := best[c.Destination]; ok {
				if c.Confidence > kept[k].Confidence {
					kept[k] = c
				}
				continue
			}
			best[c.Destination] = len(kept)
			kept = append(kept, c)
		}
		sort.SliceStable(kept, func(a, b int) bool {
			if kept[a].Confidence != kept[b].Confidence {
				return kept[a].Confidence > kept[b].Confidence
			}
			if ka, kb := kindOrder(kept[a].Kind), kindOrder(kept[b].Kind); ka != kb {
				return ka < kb
			}
			return kept[a].Destination < kept[b].Destination
		})
		out[i] = kept
	}
	return out
}

func kindOrder(k redirects.SuggestionKind) int {
	switch k {
	case redirects.SuggestCase:
		return 0
	case redirects.SuggestSlash:
		return 1
	case redirects.SuggestPrefix:
		return 2
	}
	return 3
}

type index struct {
	in Input
	// exact: the exact rules by folded source (case and trailing slash).
	exact map[string][]*redirects.Rule
	// prefixes: the starts_with rules.
	prefixes []*redirects.Rule
	// byParent: the exact rules by the folder of their source.
	byParent map[string][]*redirects.Rule
	// pages: the sitemap's destinations as a rule would hold them.
	pages map[string]bool
	// urls: the sitemap's pages, tokenized; byToken indexes them.
	urls    []page
	byToken map[string][]int
	hosts   map[string]bool
	// pageHosts: the hosts of the sitemap's pages, "" for those on a
	// project host (which become paths).
	pageHosts map[string]bool
}

type page struct {
	dest       string // as a rule's destination: a path on a project host
	slug, all  []string
	slugJoined string
}

func newIndex(in Input) *index {
	ix := &index{in: in, exact: map[string][]*redirects.Rule{}, byParent: map[string][]*redirects.Rule{}, pages: map[string]bool{}, byToken: map[string][]int{}, hosts: map[string]bool{}, pageHosts: map[string]bool{}}
	for _, h := range in.Hosts {
		ix.hosts[strings.ToLower(h)] = true
	}
	for i := range in.Rules {
		r := &in.Rules[i]
		switch r.MatchType {
		case redirects.Exact:
			ix.exact[fold(r.Source)] = append(ix.exact[fold(r.Source)], r)
			parent := r.Source[:strings.LastIndexByte(r.Source, '/')+1]
			ix.byParent[parent] = append(ix.byParent[parent], r)
		case redirects.StartsWith:
			ix.prefixes = append(ix.prefixes, r)
		}
	}
	seen := map[string]bool{}
	for _, u := range in.Sitemap {
		d := ix.norm(u)
		if seen[d] {
			continue
		}
		seen[d] = true
		ix.pages[d] = true
		if pu, err := url.Parse(d); err == nil {
			ix.pageHosts[strings.ToLower(pu.Hostname())] = true
		}
		p := page{dest: d}
		p.slug, p.all = urlTokens(u)
		p.slugJoined = strings.Join(p.slug, "-")
		k := len(ix.urls)
		ix.urls = append(ix.urls, p)
		for _, t := range uniq(p.all) {
			ix.byToken[t] = append(ix.byToken[t], k)
		}
	}
	return ix
}

// comparable reports whether the sitemap could list destination d: a
// path when the sitemap has pages on a project host, a URL when it has
// pages on the URL's host.
func (ix *index) comparable(d string) bool {
	u, err := url.Parse(d)
	if err != nil {
		return false
	}
	if u.Host == "" {
		return ix.pageHosts[""]
	}
	return ix.pageHosts[strings.ToLower(u.Hostname())]
}

// norm returns a sitemap URL as a rule's destination: a URL on one of the
// project's hosts becomes its path (and query and fragment).
func (ix *index) norm(u string) string {
	p, err := url.Parse(u)
	if err != nil || p.Host == "" || !ix.hosts[strings.ToLower(p.Hostname())] {
		return u
	}
	s := p.EscapedPath()
	if s == "" {
		s = "/"
	}
	if p.RawQuery != "" {
		s += "?" + p.RawQuery
	}
	if p.Fragment != "" {
		s += "#" + p.EscapedFragment()
	}
	return s
}

// fold is a path as a project that ignores case and trailing slashes
// compares it.
func fold(p string) string {
	p = strings.ToLower(p)
	if len(p) > 1 {
		p = strings.TrimSuffix(p, "/")
	}
	return p
}

func hostOK(r *redirects.Rule, host string) bool {
	return r.Host == "" || strings.EqualFold(r.Host, host)
}

// variants: (a) a rule's source that differs from the missed path only in
// case or a trailing slash.
func (ix *index) variants(m redirects.Miss) []redirects.Suggestion {
	var out []redirects.Suggestion
	for _, r := range ix.exact[fold(m.Path)] {
		if r.Source == m.Path || !hostOK(r, m.Host) {
			continue
		}
		kind, setting := variantKind(r.Source, m.Path)
		out = append(out, redirects.Suggestion{
			Destination: r.Destination, StatusCode: r.StatusCode, Kind: kind, Confidence: confExactVariant, Evidence: r.Source, Setting: setting,
			Reason: "the rule " + r.Source + " differs only in " + variantWords(setting) + "; the setting " + setting + " would answer it too",
		})
	}
	fp := strings.ToLower(m.Path)
	for _, r := range ix.prefixes {
		if !hostOK(r, m.Host) || strings.HasPrefix(m.Path, r.Source) {
			continue
		}
		fs := strings.ToLower(r.Source)
		var rest string
		switch {
		case strings.HasPrefix(fp, fs):
			rest = m.Path[len(r.Source):]
		case strings.HasSuffix(fs, "/") && fp == strings.TrimSuffix(fs, "/"):
			rest = ""
		default:
			continue
		}
		kind, setting := variantKind(r.Source, m.Path[:len(m.Path)-len(rest)])
		d := r.Destination
		if r.PreservePath {
			d += rest
		}
		out = append(out, redirects.Suggestion{
			Destination: d, StatusCode: r.StatusCode, Kind: kind, Confidence: confPrefixVariant, Evidence: r.Source, Setting: setting,
			Reason: "the starts_with rule " + r.Source + " almost covers it: it differs only in " + variantWords(setting) + "; the setting " + setting + " would answer it too",
		})
	}
	return out
}

func variantKind(source, path string) (redirects.SuggestionKind, string) {
	caseDiff := strings.TrimSuffix(source, "/") != strings.TrimSuffix(path, "/")
	slashDiff := strings.HasSuffix(source, "/") != strings.HasSuffix(path, "/")
	switch {
	case caseDiff && slashDiff:
		return redirects.SuggestSlash, "caseInsensitive,ignoreTrailingSlash"
	case slashDiff:
		return redirects.SuggestSlash, "ignoreTrailingSlash"
	}
	return redirects.SuggestCase, "caseInsensitive"
}

func variantWords(setting string) string {
	switch setting {
	case "caseInsensitive":
		return "case"
	case "ignoreTrailingSlash":
		return "a trailing slash"
	}
	return "case and a trailing slash"
}

// rewrite is how a rule under a folder turns its source into its
// destination: the source is folder + core + srcExt, the destination
// dstPrefix + core + dstSuffix.
type rewrite struct {
	srcExt, dstPrefix, dstSuffix string
	status                       int
}

// splitExt splits the extension off a path's last segment.
func splitExt(rest string) (core, ext string) {
	last := rest[strings.LastIndexByte(rest, '/')+1:]
	if i := strings.LastIndexByte(last, '.'); i > 0 {
		return rest[:len(rest)-len(last)+i], last[i:]
	}
	return rest, ""
}

func rewriteOf(r *redirects.Rule, folder string) (rewrite, bool) {
	core, ext := splitExt(r.Source[len(folder):])
	core = strings.TrimSuffix(core, "/")
	if core == "" {
		return rewrite{}, false
	}
	i := strings.LastIndex(r.Destination, core)
	if i < 0 {
		return rewrite{}, false
	}
	return rewrite{srcExt: ext + strings.Repeat("/", boolInt(strings.HasSuffix(r.Source, "/") && ext == "")), dstPrefix: r.Destination[:i], dstSuffix: r.Destination[i+len(core):], status: r.StatusCode}, true
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// prefix: (b) the exact rules of the missed path's folder (or, if none
// agree there, of a folder above it) rewrite their sources the same way;
// the missed path rewritten as most of them are.
func (ix *index) prefix(m redirects.Miss) []redirects.Suggestion {
	path := m.Path
	for folder := path[:strings.LastIndexByte(path, '/')+1]; folder != ""; folder = parentOf(folder) {
		sibs := ix.byParent[folder]
		if len(sibs) == 0 {
			// a deeper source under a folder above: gather them.
			sibs = ix.under(folder)
		}
		counts := map[rewrite]int{}
		n := 0
		for _, r := range sibs {
			if !hostOK(r, m.Host) || !strings.HasPrefix(r.Source, folder) {
				continue
			}
			n++
			if w, ok := rewriteOf(r, folder); ok {
				counts[w]++
			}
		}
		core, ext := splitExt(path[len(folder):])
		if strings.HasSuffix(core, "/") && ext == "" {
			core, ext = strings.TrimSuffix(core, "/"), "/"
		}
		if core == "" {
			continue
		}
		var best rewrite
		bestN := 0
		for w, c := range counts {
			if w.srcExt != ext {
				continue
			}
			if c > bestN || c == bestN && w.dstPrefix+w.dstSuffix < best.dstPrefix+best.dstSuffix {
				best, bestN = w, c
			}
		}
		if bestN == 0 {
			continue
		}
		conf := min(confPrefixMax, 40+15*bestN) * bestN / n
		if conf < 20 {
			conf = 20
		}
		return []redirects.Suggestion{{
			Destination: best.dstPrefix + core + best.dstSuffix, StatusCode: best.status, Kind: redirects.SuggestPrefix, Confidence: conf, Evidence: folder,
			Reason: strconv.Itoa(bestN) + " of the " + strconv.Itoa(n) + " rules under " + folder + " send their paths to " + best.dstPrefix + "…" + best.dstSuffix,
		}}
	}
	return nil
}

func parentOf(folder string) string {
	if folder == "/" {
		return ""
	}
	t := strings.TrimSuffix(folder, "/")
	return t[:strings.LastIndexByte(t, '/')+1]
}

// under returns the exact rules whose source's folder is folder or below
// it (only asked for a folder that holds no rule itself).
func (ix *index) under(folder string) []*redirects.Rule {
	if folder == "/" {
		return nil // every rule: not evidence of anything
	}
	var out []*redirects.Rule
	for f, rs := range ix.byParent {
		if strings.HasPrefix(f, folder) {
			out = append(out, rs...)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Source < out[j].Source })
	return out
}

// sitemap: (c) the sitemap's pages whose slug and words match the missed
// path best (Score); the best three above minSitemapScore.
func (ix *index) sitemap(m redirects.Miss) []redirects.Suggestion {
	if len(ix.urls) == 0 {
		return nil
	}
	slug, all := pathTokens(m.Path)
	slugJoined := strings.Join(slug, "-")
	cand := ix.candidatePages(all)
	type scored struct {
		k int
		s float64
	}
	dirs := ix.siblingDirs(m)
	var best []scored
	for _, k := range cand {
		p := &ix.urls[k]
		s := score(slug, all, slugJoined, p.slug, p.all, p.slugJoined)
		if len(dirs) > 0 {
			n := 0
			for _, d := range dirs {
				if strings.HasPrefix(p.dest, d) {
					n++
				}
			}
			s = (s + affinityWeight*float64(n)/float64(len(dirs))) / (1 + affinityWeight)
		}
		if s >= minSitemapScore {
			best = append(best, scored{k, s})
		}
	}
	sort.Slice(best, func(i, j int) bool {
		if best[i].s != best[j].s {
			return best[i].s > best[j].s
		}
		return ix.urls[best[i].k].dest < ix.urls[best[j].k].dest
	})
	var out []redirects.Suggestion
	for _, b := range best[:min(3, len(best))] {
		p := ix.urls[b.k]
		out = append(out, redirects.Suggestion{
			Destination: p.dest, StatusCode: 301, Kind: redirects.SuggestSitemap, Confidence: max(1, int(b.s*confSitemapMax+0.5)), Evidence: p.dest,
			Reason: "the sitemap's page whose slug and words match best (score " + strconv.FormatFloat(b.s, 'f', 2, 64) + ")",
		})
	}
	return out
}

// The bounds of the pages scored for one missed path: a word on more
// than commonShare of the pages (and more than minCommon) does not pick
// candidates unless the path has no other; of the pages sharing words
// with the path, the maxScored sharing the most are scored.
const (
	commonShare = 20 // 1/20: 5 %
	minCommon   = 500
	maxScored   = 300
)

// candidatePages returns the pages worth scoring for a path's words: those
// sharing its rarer words, the maxScored sharing the most of them (ties:
// sitemap order), so that a sitemap of 50,000 pages costs a bounded
// number of scorings per path.
func (ix *index) candidatePages(words []string) []int {
	common := max(minCommon, len(ix.urls)/commonShare)
	var rare, all []string
	for _, w := range uniq(words) {
		if n := len(ix.byToken[w]); n > 0 {
			all = append(all, w)
			if n <= common {
				rare = append(rare, w)
			}
		}
	}
	if len(rare) == 0 && len(all) > 0 {
		// Only common words: the rarest of them, its first pages.
		sort.Slice(all, func(i, j int) bool { return len(ix.byToken[all[i]]) < len(ix.byToken[all[j]]) })
		rare = all[:1]
	}
	shared := map[int]int{}
	for _, w := range rare {
		list := ix.byToken[w]
		if len(list) > common {
			list = list[:common]
		}
		for _, k := range list {
			shared[k]++
		}
	}
	out := make([]int, 0, len(shared))
	for k := range shared {
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool {
		if shared[out[i]] != shared[out[j]] {
			return shared[out[i]] > shared[out[j]]
		}
		return out[i] < out[j]
	})
	return out[:min(len(out), maxScored)]
}

// siblingDirs returns the folders of the destinations of the rules of the
// missed path's folder (the deepest folder above it that holds rules, the
// root aside): where its neighbours went.
func (ix *index) siblingDirs(m redirects.Miss) []string {
	for folder := m.Path[:strings.LastIndexByte(m.Path, '/')+1]; folder != "" && folder != "/"; folder = parentOf(folder) {
		var out []string
		for _, r := range ix.byParent[folder] {
			if hostOK(r, m.Host) {
				d := r.Destination
				if i := strings.IndexAny(d, "?#"); i >= 0 {
					d = d[:i]
				}
				out = append(out, d[:strings.LastIndexByte(d, '/')+1])
			}
		}
		if len(out) > 0 {
			return out
		}
	}
	return nil
}

// Score is how well a page matches a missed path, 0 to 1
// (docs/suggest.md#sitemap-scoring): half the overlap of their slugs'
// words (Dice), a fifth the similarity of the slugs as strings (1 - edit
// distance / longer length), three tenths the overlap of all their words.
func score(slugA, allA []string, joinedA string, slugB, allB []string, joinedB string) float64 {
	s := 0.5*dice(slugA, slugB) + 0.3*dice(allA, allB)
	if n := max(len(joinedA), len(joinedB)); n > 0 {
		s += 0.2 * (1 - float64(levenshtein(joinedA, joinedB))/float64(n))
	}
	return s
}

// Score is score on a missed path and a page URL, for tests and docs.
func Score(path, pageURL string) float64 {
	sa, aa := pathTokens(path)
	sb, ab := urlTokens(pageURL)
	return score(sa, aa, strings.Join(sa, "-"), sb, ab, strings.Join(sb, "-"))
}

// noise are the words a path's tokens drop: extensions and index pages.
var noise = map[string]bool{"html": true, "htm": true, "php": true, "asp": true, "aspx": true, "jsp": true, "md": true, "index": true, "default": true}

// tokens splits s into lower-case words of letters and digits.
func tokens(s string) []string {
	s = strings.ToLower(s)
	if u, err := url.PathUnescape(s); err == nil {
		s = u
	}
	var out []string
	for _, w := range strings.FieldsFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 127)
	}) {
		if noise[w] {
			continue
		}
		// A plural and its singular are one word.
		if len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") {
			w = w[:len(w)-1]
		}
		out = append(out, w)
	}
	return out
}

// pathTokens returns the words of a path's slug (its last segment with
// words, query aside) and of the whole path.
func pathTokens(p string) (slug, all []string) {
	if i := strings.IndexAny(p, "?#"); i >= 0 {
		p = p[:i]
	}
	segs := strings.Split(p, "/")
	for _, s := range segs {
		all = append(all, tokens(s)...)
	}
	for i := len(segs) - 1; i >= 0; i-- {
		if t := tokens(segs[i]); len(t) > 0 {
			return t, all
		}
	}
	return nil, all
}

// urlTokens is pathTokens of a page URL's path, whose fragment, if any,
// is its slug (a section of a page stands for the page it replaced).
func urlTokens(u string) (slug, all []string) {
	p, err := url.Parse(u)
	if err != nil {
		return pathTokens(u)
	}
	slug, all = pathTokens(p.Path)
	if f := tokens(p.Fragment); len(f) > 0 {
		return f, append(all, f...)
	}
	return slug, all
}

func uniq(ws []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, w := range ws {
		if !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	return out
}

// dice is the Dice coefficient of two word sets.
func dice(a, b []string) float64 {
	a, b = uniq(a), uniq(b)
	if len(a)+len(b) == 0 {
		return 0
	}
	in := map[string]bool{}
	for _, w := range a {
		in[w] = true
	}
	n := 0
	for _, w := range b {
		if in[w] {
			n++
		}
	}
	return 2 * float64(n) / float64(len(a)+len(b))
}

// levenshtein is the edit distance of a and b in bytes (insert, delete,
// substitute, each 1).
func levenshtein(a, b string) int {
	if len(a) < len(b) {
		a, b = b, a
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			c := prev[j-1]
			if a[i-1] != b[j-1] {
				c++
			}
			cur[j] = min(c, prev[j]+1, cur[j-1]+1)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
