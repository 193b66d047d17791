package main_test

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"redirects"
	"redirects/api"
	"redirects/engine"
	"redirects/internal/rulemodel"
)

// flattenHost is the project's declared host in TestLintFixChainsCLI.
const flattenHost = "www.example.com"

// engineEnd is where a client asking wire ends through the compiled
// snapshot of rules: the first answer's status and the destination where
// following ends, with the host it ends on ("//host/path" once an absolute
// destination on the project's host was followed), or a loop.
func engineEnd(snap *engine.Snapshot, wire string) string {
	m, ok := snap.Lookup(wire)
	if !ok {
		return "miss"
	}
	first := m.StatusCode()
	if first == redirects.StatusGone {
		return "410"
	}
	dest := string(m.AppendTarget(nil, wire))
	host := ""
	seen := map[string]bool{}
	for n := 0; ; n++ {
		d, _, _ := strings.Cut(dest, "#")
		next, nh := d, host
		if !strings.HasPrefix(d, "/") {
			lower := strings.ToLower(d)
			rest, found := strings.CutPrefix(lower, "https://")
			if !found {
				rest, found = strings.CutPrefix(lower, "http://")
			}
			h, p := rest, "/"
			if i := strings.IndexAny(rest, "/?"); i >= 0 {
				h, p = rest[:i], d[len(d)-len(rest)+i:]
				if p[0] == '?' {
					p = "/" + p
				}
			}
			if !found || h != flattenHost {
				return fmt.Sprint(first, " ", dest)
			}
			next, nh = p, h
		}
		m, ok := snap.Lookup(next)
		if !ok || m.StatusCode() == redirects.StatusGone {
			break
		}
		host = nh
		if seen[host+" "+next] || n > 64 {
			return fmt.Sprint(first, " loop")
		}
		seen[host+" "+next] = true
		dest = string(m.AppendTarget(nil, next))
	}
	if strings.HasPrefix(dest, "/") && host != "" {
		return fmt.Sprint(first, " //", host, dest)
	}
	if rest, ok := strings.CutPrefix(strings.ToLower(dest), "https://"+flattenHost); ok && (rest == "" || rest[0] == '/' || rest[0] == '?') {
		return fmt.Sprint(first, " //", flattenHost, dest[len(dest)-len(rest):])
	}
	return fmt.Sprint(first, " ", dest)
}

// TestLintFixChainsCLI is the property of lint --fix chains --write through
// the command line (and, with REDIRECTS_TEST_E2E_STORE=api, the management
// API and its client): on random projects of literal rules with every
// option, status and setting, with destinations pointed at other rules'
// sources and planted chains of each kind, every request ends, by the
// compiled engine, where it ended before; every planted flattenable chain
// now ends in one redirect; no rule of a mixed-status, 410,
// request-dependent or looping chain changed; the preview changed
// nothing; and rule undo-import puts the draft back.
func TestLintFixChainsCLI(t *testing.T) {
	for seed := range uint64(6) {
		t.Run(strconv.FormatUint(seed, 10), func(t *testing.T) {
			c := newCLI(t)
			_, p := c.setup()
			rng := rand.New(rand.NewPCG(seed, 38))
			s, rules := rulemodel.Project(rng, 4+rng.IntN(12))
			for i := range rules {
				r := &rules[i]
				if r.StatusCode == redirects.StatusGone || rng.IntN(2) == 0 {
					continue
				}
				d := rules[rng.IntN(len(rules))].Source
				switch rng.IntN(4) {
				case 0:
					d += "/x"
				case 1:
					d = "https://" + flattenHost + d
				}
				old := r.Destination
				r.Destination = rulemodel.Escape(d, false)
				if r.Validate() != nil {
					r.Destination = old
				}
			}
			class := []int{301, 308}
			if seed%2 == 1 {
				class = []int{302, 307}
			}
			// Planted: a flattenable chain of 3, a mixed one, one into a 410,
			// one whose end depends on the rest of the path, a loop.
			planted := []redirects.Rule{
				{Source: "/fl/0", Destination: "/fl/1", StatusCode: class[0]},
				{Source: "/fl/1", Destination: "https://" + flattenHost + "/fl/2", StatusCode: class[1], PreserveQuery: true},
				{Source: "/fl/2", Destination: "https://other.org/fl", StatusCode: class[0]},
				{Source: "/mx/0", Destination: "/mx/1", StatusCode: 301},
				{Source: "/mx/1", Destination: "/mx/2", StatusCode: 302},
				{Source: "/mx/2", Destination: "https://other.org/mx", StatusCode: 302},
				{Source: "/gn/0", Destination: "/gn/1", StatusCode: 301},
				{Source: "/gn/1", Destination: "/gn/2", StatusCode: 301},
				{Source: "/gn/2", StatusCode: redirects.StatusGone},
				{Source: "/in/", Destination: "/inb/", StatusCode: 301, MatchType: redirects.StartsWith, PreservePath: true},
				{Source: "/inb/a", Destination: "https://other.org/a", StatusCode: 301},
				{Source: "/inb/", Destination: "https://other.org/b", StatusCode: 301, MatchType: redirects.StartsWith},
				{Source: "/lp/0", Destination: "/lp/1", StatusCode: 301},
				{Source: "/lp/1", Destination: "/lp/0", StatusCode: 301},
			}
			for _, r := range planted {
				r.Priority = redirects.DefaultPriority
				rules = append(rules, r)
			}
			var b bytes.Buffer
			w := csv.NewWriter(&b)
			w.Write([]string{"source", "destination", "statusCode", "matchType", "priority", "preservePath", "preserveQuery"})
			for _, r := range rules {
				w.Write([]string{r.Source, r.Destination, strconv.Itoa(r.StatusCode), r.MatchType.String(), strconv.Itoa(r.Priority),
					strconv.FormatBool(r.PreservePath), strconv.FormatBool(r.PreserveQuery)})
			}
			w.Flush()
			file := filepath.Join(t.TempDir(), "rules.csv")
			if err := os.WriteFile(file, b.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			trailing := "exact"
			if s.IgnoreTrailingSlash {
				trailing = "ignore"
			}
			c.ok("project", "update", "--project", p, "--host", flattenHost, "--case-sensitive="+strconv.FormatBool(!s.CaseInsensitive), "--trailing-slash", trailing)
			c.ok("rule", "import", "--project", p, file)

			draft := func() ([]redirects.Rule, map[string]redirects.Rule) {
				var list []api.Rule
				c.jsonOf(&list, "rule", "list", "--project", p, "--json")
				out := make([]redirects.Rule, len(list))
				by := map[string]redirects.Rule{}
				for i := range list {
					out[i] = list[i].Rule(p)
					by[out[i].MatchType.String()+" "+out[i].Source] = out[i]
				}
				return out, by
			}
			before, beforeBy := draft()
			listBefore := c.ok("rule", "list", "--project", p, "--json")
			preview := c.ok("lint", "--project", p, "--fix", "chains")
			if !strings.Contains(preview, "-exact /fl/0 "+strconv.Itoa(class[0])+" /fl/1\n+exact /fl/0 "+strconv.Itoa(class[0])+" https://other.org/fl") {
				t.Fatalf("the preview does not show the planted chain's change:\n%s", preview)
			}
			if got := c.ok("rule", "list", "--project", p, "--json"); got != listBefore {
				t.Fatal("the preview changed the draft")
			}
			var rep api.FlattenReport
			c.jsonOf(&rep, "lint", "--project", p, "--fix", "chains", "--write", "--json")
			if !rep.Written || rep.UndoID == 0 || len(rep.Fixes) == 0 {
				t.Fatalf("--write reported %+v", rep)
			}
			after, afterBy := draft()
			if len(after) != len(before) {
				t.Fatalf("%d rules before, %d after", len(before), len(after))
			}
			snapB, snapA := engine.CompileWith(before, s), engine.CompileWith(after, s)
			for _, r := range before {
				for _, wire := range []string{rulemodel.Escape(r.Source, false), rulemodel.Escape(strings.ToUpper(r.Source), false),
					rulemodel.Escape(r.Source+"/x", false), rulemodel.Escape(r.Source, false) + "?q=1"} {
					if eb, ea := engineEnd(snapB, wire), engineEnd(snapA, wire); eb != ea {
						t.Fatalf("settings %s: %s ended at %q, after --fix chains --write at %q", s, wire, eb, ea)
					}
				}
			}
			for i, r := range before {
				if a := afterBy[r.MatchType.String()+" "+r.Source]; a.StatusCode != r.StatusCode || a.ID != r.ID {
					t.Fatalf("rule %d changed more than its destination: %+v -> %+v", i, r, a)
				}
			}
			if got := afterBy["exact /fl/0"].Destination; got != "https://other.org/fl" {
				t.Fatalf("the planted flattenable chain's first rule points at %q", got)
			}
			if m, ok := snapA.Lookup("/fl/0"); !ok || string(m.AppendTarget(nil, "/fl/0")) != "https://other.org/fl" {
				t.Fatalf("/fl/0 does not reach its end in one redirect")
			}
			for _, r := range planted[3:] {
				k := r.MatchType.String() + " " + r.Source
				if beforeBy[k].Destination != afterBy[k].Destination {
					t.Fatalf("%s is on a chain to leave alone, yet changed from %q to %q", k, beforeBy[k].Destination, afterBy[k].Destination)
				}
			}
			var entries []struct{ After map[string]any }
			c.jsonOf(&entries, "audit", "--project", p, "--action", redirects.AuditRuleFlatten, "--json")
			if len(entries) != 1 || entries[0].After["undoId"] != float64(rep.UndoID) {
				t.Fatalf("audit entries of the flattening: %+v", entries)
			}
			c.ok("rule", "undo-import", "--project", p, "--import", strconv.FormatInt(rep.UndoID, 10))
			if got := c.ok("rule", "list", "--project", p, "--json"); got != listBefore {
				t.Fatalf("after the undo the draft is\n%s\nwant\n%s", got, listBefore)
			}
		})
	}
}

// TestLintFixBadFlags: a bad fix, --write without --fix and --fix on
// another version than the draft are usage errors that change nothing.
func TestLintFixBadFlags(t *testing.T) {
	c := newCLI(t)
	_, p := c.setup()
	c.ok("rule", "add", "--project", p, "--source", "/a", "--destination", "/b")
	c.ok("rule", "add", "--project", p, "--source", "/b", "--destination", "/c")
	before := c.ok("rule", "list", "--project", p, "--json")
	c.fail(2, `--fix "loops" is not a fix lint knows; the one fix is chains`, "lint", "--project", p, "--fix", "loops", "--write")
	c.fail(2, "--write saves what --fix changes", "lint", "--project", p, "--write")
	c.fail(2, "--fix changes the draft", "lint", "--project", p, "--fix", "chains", "--version", "live", "--write")
	if got := c.ok("rule", "list", "--project", p, "--json"); got != before {
		t.Fatal("a refused --fix changed the draft")
	}
}
