//go:build linux

package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"redirects"
	"redirects/engine"
	"redirects/export"
	"redirects/internal/rulegen"
	"redirects/sqlite"
)

// dataset is one generated rule set imported and deployed through the real
// CLI into a fresh SQLite file.
type dataset struct {
	n                      int
	dir                    string
	db                     string // file path
	csvBytes               int64
	org, project, key      string
	importTime, deployTime time.Duration
	deployReport           string
	dbBytes                int64
}

func (d *dataset) env() []string { return []string{"REDIRECTS_DB=sqlite:" + d.db} }

// writeCSV writes rulegen.RulesDeeper(n, share, seed, depth) as an import
// file (export.WriteCSV, as bench/gencsv writes it) and returns its size.
func writeCSV(path string, n int, share float64, seed uint64, depth int) (int64, error) {
	f, err := os.Create(path)
	if err != nil {
		return 0, err
	}
	if err := export.WriteCSV(f, rulegen.RulesDeeper(n, share, seed, depth)); err != nil {
		f.Close()
		return 0, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return 0, err
	}
	return st.Size(), f.Close()
}

// prepare generates n rules and imports and deploys them with the CLI on a
// fresh database in its own directory, timing the import and the deploy.
func (r *runner) prepare(ctx context.Context, name string, n int) (*dataset, error) {
	d := &dataset{n: n, dir: filepath.Join(r.tmp, name)}
	if err := os.MkdirAll(d.dir, 0o755); err != nil {
		return nil, err
	}
	d.db = filepath.Join(d.dir, "bench.db")
	csv := filepath.Join(d.dir, "rules.csv")
	var err error
	if d.csvBytes, err = writeCSV(csv, n, r.cfg.prefixShare, r.cfg.seed, r.cfg.extraDepth); err != nil {
		return nil, err
	}
	cli := func(timeout time.Duration, args ...string) (string, string, time.Duration, error) {
		o, e, took, err := command(ctx, timeout, d.env(), append([]string{r.bin}, args...)...)
		return strings.TrimSpace(o), strings.TrimSpace(e), took, err
	}
	if d.org, _, _, err = cli(time.Minute, "org", "create", "--name", "bench", "--tier", "enterprise"); err != nil {
		return nil, err
	}
	if d.project, _, _, err = cli(time.Minute, "project", "create", "--org", d.org, "--name", "bench"); err != nil {
		return nil, err
	}
	var out string
	if out, _, d.importTime, err = cli(15*time.Minute, "rule", "import", "--project", d.project, csv); err != nil {
		return nil, err
	}
	if out != strconv.Itoa(n) {
		return nil, fmt.Errorf("rule import printed %q, want %d", out, n)
	}
	if _, d.deployReport, d.deployTime, err = cli(15*time.Minute, "deploy", "--project", d.project); err != nil {
		return nil, err
	}
	if d.key, _, _, err = cli(time.Minute, "key", "create", "--project", d.project); err != nil {
		return nil, err
	}
	os.Remove(csv)
	if st, err := os.Stat(d.db); err == nil {
		d.dbBytes = st.Size()
	}
	if st, err := os.Stat(d.db + "-wal"); err == nil {
		d.dbBytes += st.Size()
	}
	return d, nil
}

// remove deletes the dataset's files.
func (d *dataset) remove() { os.RemoveAll(d.dir) }

// deployedRules reads the latest deployment's rules from the database, in
// process.
func (d *dataset) deployedRules(ctx context.Context) ([]redirects.Rule, error) {
	db, err := sqlite.Open(ctx, d.db)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	_, rules, err := db.FindDeployment(ctx, d.project, 0)
	return rules, err
}

// target is one path with the answer the lookup API gives it.
type target struct {
	kind   string // "exact hit", "prefix hit", "miss"
	path   string
	match  bool
	status int
	dest   string
	exact  bool
	// rank is, for a prefix hit, the position of the answering rule among
	// the starts_with rules in priority order: the number of regular
	// expressions nginx-map-prefix tries.
	rank int
}

// samples holds the lookup paths derived from a deployment's rules.
type samples struct {
	exact, prefix, miss []string
	// The fixed paths the servers are measured with.
	exactHit, prefixHit, missT target
}

const maxSamples = 4096

// makeSamples derives paths from rules, checked against snap: exact
// sources, starts_with sources + "/more" that a starts_with rule answers,
// and random paths that nothing answers.
func makeSamples(rules []redirects.Rule, snap *engine.Snapshot, seed uint64) (*samples, error) {
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	var ex, pre []int
	for i := range rules {
		if rules[i].MatchType == redirects.Exact {
			ex = append(ex, i)
		} else {
			pre = append(pre, i)
		}
	}
	s := &samples{}
	pick := func(idx []int) []int {
		if len(idx) <= maxSamples {
			return idx
		}
		out := make([]int, maxSamples)
		for i := range out {
			out[i] = idx[rng.IntN(len(idx))]
		}
		return out
	}
	for _, i := range pick(ex) {
		if m, ok := snap.Lookup(rules[i].Source); ok && m.MatchType() == redirects.Exact {
			s.exact = append(s.exact, rules[i].Source)
		}
	}
	for _, i := range pick(pre) {
		p := rules[i].Source + "/more"
		if m, ok := snap.Lookup(p); ok && m.MatchType() == redirects.StartsWith {
			s.prefix = append(s.prefix, p)
		}
	}
	for len(s.miss) < maxSamples {
		p := fmt.Sprintf("/zz-no-rule/%x/page-%d", rng.Uint64(), rng.IntN(1000))
		if _, ok := snap.Lookup(p); !ok {
			s.miss = append(s.miss, p)
		}
	}
	if len(s.exact) == 0 || len(s.prefix) == 0 {
		return nil, fmt.Errorf("the rule set has no usable exact or starts_with rule (%d exact, %d starts_with)", len(ex), len(pre))
	}

	answer := func(kind, path string) target {
		t := target{kind: kind, path: path}
		if m, ok := snap.Lookup(path); ok {
			t.match, t.status, t.dest, t.exact = true, m.StatusCode(), m.Destination(), m.MatchType() == redirects.Exact
		}
		return t
	}
	// Exact: the middle of the sample. Plain ASCII paths only, so every
	// server sees the same bytes.
	for off := 0; off < len(s.exact); off++ {
		p := s.exact[(len(s.exact)/2+off)%len(s.exact)]
		if plain(p) {
			s.exactHit = answer("exact hit", p)
			break
		}
	}
	// Prefix: of the first 256 candidates, the one whose answering rule
	// sits nearest the middle of the priority order, so nginx-map-prefix
	// (one regular expression after the other) gets a typical path rather
	// than a lucky or an unlucky one.
	found := false
	for _, p := range s.prefix[:min(256, len(s.prefix))] {
		// A source that ends in '/' gives "//more", which nginx merges
		// into "/more": skip those to send every server the same path.
		if !plain(p) || strings.HasSuffix(p, "//more") {
			continue
		}
		t := answer("prefix hit", p)
		// The first rule in priority order whose source prefixes p.
		t.rank = -1
		for k, i := range pre {
			if strings.HasPrefix(p, rules[i].Source) {
				t.rank = k + 1
				break
			}
		}
		if !found || abs(t.rank-len(pre)/2) < abs(s.prefixHit.rank-len(pre)/2) {
			s.prefixHit, found = t, true
		}
	}
	s.missT = answer("miss", s.miss[0])
	if !s.exactHit.match || !s.prefixHit.match || s.missT.match {
		return nil, fmt.Errorf("no usable fixed paths in the rule set")
	}
	return s, nil
}

// plain reports whether p is printable ASCII without '%', so it reaches
// every server as the same bytes.
func plain(p string) bool {
	for i := 0; i < len(p); i++ {
		if p[i] <= ' ' || p[i] >= 0x7f || p[i] == '%' {
			return false
		}
	}
	return true
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
