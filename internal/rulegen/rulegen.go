// Package rulegen generates rule sets shaped like a real site's redirects,
// for the tests and benchmarks of every package and for the benchmark tools
// (bench/gencsv, bench/runner). It lives apart from the domain so that the root package holds
// nothing only tests and tools use.
package rulegen

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"redirects"
)

// Rules returns n valid rules shaped like a real site's redirects,
// for benchmarks and load tests: paths such as /blog/2019/05/some-article-slug,
// /products/shoes/item-12345 or /docs/v2/guide/section, many prefix sources
// sharing leading segments, a few broad ones (/products/shoes/,
// /docs/v2/guide/), destinations on the same site or absolute URLs, some
// with a query string.
//
// About prefixShare of the rules are starts_with, the rest exact. Status is
// 301 for about four rules in five, 302 otherwise; priorities lie in
// 0..1000, most at redirects.DefaultPriority so ties are common. Sources are unique
// per match type (an exact and a starts_with rule may share one), IDs run
// 1..n and CreatedAt increases by one second per rule. The same seed gives
// the same rules; ProjectID is left empty for the caller to set.
func Rules(n int, prefixShare float64, seed uint64) []redirects.Rule {
	return RulesDeeper(n, prefixShare, seed, 0)
}

// RulesDeeper is Rules with longer paths: every generated
// path (source and destination) gets 0..extraDepth more slug segments, drawn
// uniformly, which shifts the path length distribution up by about 20 bytes
// per segment on average. With extraDepth 0 it returns exactly what
// Rules returns for the same seed.
func RulesDeeper(n int, prefixShare float64, seed uint64, extraDepth int) []redirects.Rule {
	if n <= 0 {
		return nil
	}
	g := &ruleGen{rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), extraDepth: extraDepth}
	nPrefix := int(float64(n)*prefixShare + 0.5)
	nPrefix = max(0, min(n, nPrefix))
	// Every index below nPrefix in a random permutation is a starts_with
	// rule: an exact count, shuffled among the exact rules.
	perm := g.rng.Perm(n)
	seen := [2]map[string]struct{}{make(map[string]struct{}, n-nPrefix), make(map[string]struct{}, nPrefix)}
	base := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	rules := make([]redirects.Rule, n)
	for i := range rules {
		mt := redirects.Exact
		if perm[i] < nPrefix {
			mt = redirects.StartsWith
		}
		var src string
		for {
			if mt == redirects.StartsWith {
				src = g.prefixSource()
			} else {
				src = g.exactSource()
			}
			if _, dup := seen[mt][src]; !dup {
				seen[mt][src] = struct{}{}
				break
			}
		}
		status := 301
		if g.rng.IntN(5) == 0 {
			status = 302
		}
		priority := redirects.DefaultPriority
		if g.rng.IntN(5) < 2 {
			priority = g.rng.IntN(1001)
		}
		rules[i] = redirects.Rule{
			ID:          int64(i + 1),
			Source:      src,
			Destination: g.destination(),
			StatusCode:  status,
			MatchType:   mt,
			Priority:    priority,
			CreatedAt:   base.Add(time.Duration(i) * time.Second),
		}
	}
	return rules
}

// Path returns a page path of a random section, drawn from rng the way the
// rules' sources are, for looking up paths that look like the rules' but
// that no rule need match.
func Path(rng *rand.Rand) string {
	g := &ruleGen{rng: rng}
	b, _, _ := g.path(nil)
	return string(b)
}

var (
	genWords = strings.Fields(`how to why what best guide new old free top easy quick simple complete
		ultimate review reviews tips tricks ideas list summer winter spring autumn garden kitchen home
		travel food recipe recipes coffee tea bread pasta salad chicken vegan healthy diet fitness
		running yoga hiking camping beach city mountain lake river island europe asia africa america
		paris london berlin tokyo rome madrid vienna prague lisbon dublin budget luxury family kids
		dog cat pet photo camera phone laptop tablet watch music guitar piano movie book books art
		design style fashion shoes shirt dress jacket bag wedding party birthday gift gifts holiday
		christmas easter business startup money finance invest saving career job interview remote
		work office team product launch update release feature security privacy cloud server data
		code golang python javascript rust database linux docker api web mobile app apps tools
		beginner advanced part one two three ten things mistakes lessons story`)
	genSections   = []string{"blog", "news", "products", "docs", "help", "shop", "en", "de", "fr", "es"}
	genCategories = strings.Fields(`shoes shirts jackets dresses bags watches phones laptops tablets
		cameras headphones speakers furniture lighting kitchen garden tools toys books games sports
		outdoor bikes beauty health pets baby office music movies software`)
	genDocParts = []string{"guide", "reference", "api", "tutorials", "howto", "concepts", "faq"}
	genDestDirs = []string{"articles", "stories", "p", "catalog", "kb", "learn", "library", "posts"}
	genHosts    = []string{"https://www.example.com", "https://shop.example.org", "http://legacy.example.net", "https://docs.example.io"}
	genQueries  = []string{"?utm_source=redirect", "?utm_source=old-site&utm_medium=redirect", "?ref=legacy", "?lang=de&ref=old"}
)

// ruleGen draws the parts of generated rules from one random source, reusing
// one buffer to build each string.
type ruleGen struct {
	rng        *rand.Rand
	b          []byte
	extraDepth int
}

// word returns a random slug word.
func (g *ruleGen) word() string { return genWords[g.rng.IntN(len(genWords))] }

// slug appends 2..5 words joined by '-'.
func (g *ruleGen) slug(b []byte) []byte {
	k := 2 + g.rng.IntN(4)
	for i := 0; i < k; i++ {
		if i > 0 {
			b = append(b, '-')
		}
		b = append(b, g.word()...)
	}
	return b
}

// path appends a full page path of a random section and returns it with the
// length of its parent directory (including the trailing '/'), and whether
// that directory is a natural target of a broad prefix rule.
func (g *ruleGen) path(b []byte) ([]byte, int, bool) {
	b, dir, broad := g.basePath(b)
	if g.extraDepth > 0 {
		for k := g.rng.IntN(g.extraDepth + 1); k > 0; k-- {
			b = append(b, '/')
			b = g.slug(b)
		}
	}
	return b, dir, broad
}

// basePath appends a page path of a random section, as path describes.
func (g *ruleGen) basePath(b []byte) ([]byte, int, bool) {
	sec := genSections[g.rng.IntN(len(genSections))]
	b = append(b, '/')
	b = append(b, sec...)
	b = append(b, '/')
	switch sec {
	case "blog":
		b = strconv.AppendInt(b, int64(2008+g.rng.IntN(17)), 10)
		b = append(b, '/')
		m := 1 + g.rng.IntN(12)
		b = append(b, byte('0'+m/10), byte('0'+m%10), '/')
		dir := len(b)
		return g.slug(b), dir, false
	case "news":
		b = strconv.AppendInt(b, int64(2008+g.rng.IntN(17)), 10)
		b = append(b, '/')
		dir := len(b)
		b = g.slug(b)
		b = append(b, '-')
		return strconv.AppendInt(b, int64(g.rng.IntN(100000)), 10), dir, false
	case "products":
		b = append(b, genCategories[g.rng.IntN(len(genCategories))]...)
		b = append(b, '/')
		dir := len(b)
		if g.rng.IntN(2) == 0 {
			b = append(b, "item-"...)
		} else {
			b = g.slug(b)
			b = append(b, '-')
		}
		return strconv.AppendInt(b, int64(g.rng.IntN(1000000)), 10), dir, true
	case "docs":
		b = append(b, 'v')
		b = strconv.AppendInt(b, int64(1+g.rng.IntN(5)), 10)
		b = append(b, '/')
		b = append(b, genDocParts[g.rng.IntN(len(genDocParts))]...)
		b = append(b, '/')
		dir := len(b)
		b = g.slug(b)
		if g.rng.IntN(2) == 0 {
			b = append(b, '/')
			b = g.slug(b)
		}
		return b, dir, true
	case "help":
		b = append(b, "articles/"...)
		dir := len(b)
		b = strconv.AppendInt(b, int64(g.rng.IntN(10000000)), 10)
		b = append(b, '-')
		return g.slug(b), dir, false
	case "shop":
		b = append(b, "index.php/catalog/product/view/id/"...)
		dir := len(b)
		return strconv.AppendInt(b, int64(g.rng.IntN(100000000)), 10), dir, false
	default: // a language
		b = append(b, genSections[g.rng.IntN(5)]...)
		b = append(b, '/')
		dir := len(b)
		return g.slug(b), dir, false
	}
}

// exactSource returns a page path, sometimes with a trailing '/', as sites
// often redirect both forms.
func (g *ruleGen) exactSource() string {
	b, _, _ := g.path(g.b[:0])
	if g.rng.IntN(10) == 0 {
		b = append(b, '/')
	}
	g.b = b
	return string(b)
}

// prefixSource returns mostly a page path as a directory ("/x/y/" covers
// its subpages) or as is ("/x/y" also covers "/x/y-2"), sometimes the
// page's parent directory in the sections where broad rules are usual, and
// sometimes a page path cut short ("/products/shoes/item-12" covers
// item-120..item-129...).
func (g *ruleGen) prefixSource() string {
	b, dir, broad := g.path(g.b[:0])
	switch k := g.rng.IntN(20); {
	case k < 11:
		b = append(b, '/')
	case k < 15:
	case k < 18 && broad:
		b = b[:dir]
	default:
		last := len(b) - dir
		b = b[:len(b)-g.rng.IntN(max(1, last/3))]
	}
	g.b = b
	return string(b)
}

// destination returns a path on the same site or an absolute URL on another,
// sometimes with a query string (with '&', which the JSON body must not
// escape).
func (g *ruleGen) destination() string {
	b := g.b[:0]
	switch k := g.rng.IntN(10); {
	case k < 5:
		b = append(b, '/')
		b = append(b, genDestDirs[g.rng.IntN(len(genDestDirs))]...)
		b = append(b, '/')
		b = g.slug(b)
	case k < 8:
		b = append(b, genHosts[g.rng.IntN(len(genHosts))]...)
		b, _, _ = g.path(b)
	default:
		b = append(b, genHosts[g.rng.IntN(len(genHosts))]...)
		b = append(b, '/')
		b = append(b, genDestDirs[g.rng.IntN(len(genDestDirs))]...)
		b = append(b, '/')
		b = strconv.AppendInt(b, int64(g.rng.IntN(1000000)), 10)
	}
	if g.rng.IntN(8) == 0 {
		b = append(b, genQueries[g.rng.IntN(len(genQueries))]...)
	}
	g.b = b
	return string(b)
}
