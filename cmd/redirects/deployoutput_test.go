package main_test

import (
	"fmt"
	"strings"
	"testing"
)

// TestDeployOutputRanks: a deploy's stderr says the outcome first, then
// at most a few lines: the export formats that answer some of this
// draft's rules otherwise than the lookup API, named once, and none that
// answers them all as it does; --verbose states each kind of difference
// once with the formats it concerns. A blocked deploy says so first,
// then why. No line names a file that is not in the repository.
func TestDeployOutputRanks(t *testing.T) {
	c := newCLI(t)
	_, p := c.setup()
	csv := "source,destination,statusCode,matchType\n/old,/new,301,exact\n/promo,/sale,302,exact\n/gone,,410,exact\n/blog/,/news/,301,starts_with\n"
	if r := c.exec(csv, "rule", "import", "--project", p, "-"); r.code != 0 {
		t.Fatalf("import: exit %d\n%s", r.code, r.stderr)
	}
	c.ok("rule", "add", "--project", p, "--source", "/shop", "--destination", "/store", "--match", "starts_with", "--preserve-path")

	r := c.exec("", "deploy", "--project", p)
	if r.code != 0 || strings.TrimSpace(r.stdout) != "1" {
		t.Fatalf("deploy: exit %d, stdout %q\n%s", r.code, r.stdout, r.stderr)
	}
	lines := strings.Split(strings.TrimSuffix(r.stderr, "\n"), "\n")
	if !strings.HasPrefix(lines[0], "deployed version 1 of "+p+": ") {
		t.Errorf("the deploy's first line is not its outcome:\n%s", r.stderr)
	}
	if len(lines) > 5 {
		t.Errorf("the deploy printed %d lines, want the outcome and at most a few more:\n%s", len(lines), r.stderr)
	}
	export := ""
	for _, l := range lines {
		if strings.HasPrefix(l, "export files: ") {
			export = l
		}
	}
	formats, _, _ := strings.Cut(strings.TrimPrefix(export, "export files: "), " answer")
	named := strings.Split(formats, ", ")
	for _, want := range []string{"nginx-map-exact", "haproxy-map-exact", "haproxy-map-prefix"} {
		if strings.Count(","+strings.Join(named, ",")+",", ","+want+",") != 1 {
			t.Errorf("the export line does not name %s once (the 302, the 410, the preservePath rule): %q", want, export)
		}
	}
	for _, answersAll := range []string{"nginx", "nginx-map-prefix"} {
		for _, n := range named {
			if n == answersAll {
				t.Errorf("the export line names %s, which answers every rule of this draft as the API: %q", n, export)
			}
		}
	}
	if !strings.Contains(export, "--verbose lists them") {
		t.Errorf("the export line does not say where the details are: %q", export)
	}

	c.ok("rule", "add", "--project", p, "--source", "/more", "--destination", "/new")
	r = c.exec("", "deploy", "--project", p, "--verbose")
	if r.code != 0 {
		t.Fatalf("deploy --verbose: exit %d\n%s", r.code, r.stderr)
	}
	if !strings.HasPrefix(r.stderr, "deployed version 2 of ") {
		t.Errorf("deploy --verbose does not start with its outcome:\n%s", r.stderr)
	}
	kinds := map[string]int{}
	for _, l := range strings.Split(r.stderr, "\n") {
		if strings.HasPrefix(l, "  ") {
			_, what, _ := strings.Cut(l, ": ")
			kinds[what]++
		}
	}
	for what, n := range kinds {
		if n != 1 {
			t.Errorf("deploy --verbose states %q %d times, want once:\n%s", what, n, r.stderr)
		}
	}
	if !strings.Contains(r.stderr, "\n  nginx-map-exact, haproxy-map-exact: exact rules with statusCode 410: left out") ||
		!strings.Contains(r.stderr, "\n  nginx-map-exact, haproxy-map-exact: exact rules with statusCode 302: served as 301") {
		t.Errorf("deploy --verbose does not state the maps' 302 and 410 differences once each, naming both maps:\n%s", r.stderr)
	}
	if strings.Contains(r.stderr, "SPEC") || !strings.Contains(r.stderr, "four columns (source,destination,statusCode,matchType)") {
		t.Errorf("deploy --verbose names a file not in the repository, or not the csv's four columns:\n%s", r.stderr)
	}

	// Blocked: the outcome first, then the finding that blocks it.
	c.ok("rule", "add", "--project", p, "--source", "/new", "--destination", "/old")
	r = c.exec("", "deploy", "--project", p)
	if r.code != 1 || r.stdout != "" {
		t.Fatalf("blocked deploy: exit %d, stdout %q\n%s", r.code, r.stdout, r.stderr)
	}
	lines = strings.Split(strings.TrimSuffix(r.stderr, "\n"), "\n")
	if !strings.HasPrefix(lines[0], "redirects: deploy of the draft blocked, nothing changed: 1 lint error: pass --force --reason TEXT") ||
		len(lines) < 2 || !strings.HasPrefix(lines[1], "error    loop ") {
		t.Errorf("a blocked deploy does not say so first, then why:\n%s", r.stderr)
	}
}

// TestDiffListsTwentyPaths: diff lists the first 20 paths that answer
// differently unless --max-paths says otherwise, says how to list them
// all, and keeps the counts whole; the sample path below a starts_with
// source reads "example", never "_".
func TestDiffListsTwentyPaths(t *testing.T) {
	c := newCLI(t)
	_, p := c.setup()
	var csv strings.Builder
	csv.WriteString("source,destination,statusCode,matchType\n/blog/,/news/,301,starts_with\n")
	for i := range 30 {
		fmt.Fprintf(&csv, "/page-%02d,/p/%d,301,exact\n", i, i)
	}
	if r := c.exec(csv.String(), "rule", "import", "--project", p, "-"); r.code != 0 {
		t.Fatalf("import: exit %d\n%s", r.code, r.stderr)
	}
	r := c.exec("", "diff", "--project", p)
	if n := strings.Count("\n"+r.stdout, "\npath /"); r.code != 0 || n != 20 {
		t.Fatalf("diff: exit %d, %d paths listed, want 20:\n%s", r.code, n, r.stdout)
	}
	if !strings.Contains(r.stderr, "32 of 32 sample paths answer differently (20 listed); --max-paths -1 lists every one") {
		t.Errorf("diff does not keep the counts whole and say how to list every path:\n%s", r.stderr)
	}
	if !strings.Contains(r.stdout, "path /blog/example: no redirect -> 301 /news/\n") || strings.Contains(r.stdout, "/_") {
		t.Errorf("the sample path below /blog/ is not /blog/example:\n%s", r.stdout)
	}
	r = c.exec("", "diff", "--project", p, "--max-paths", "-1")
	if n := strings.Count("\n"+r.stdout, "\npath /"); r.code != 0 || n != 32 || strings.Contains(r.stderr, "--max-paths -1 lists") {
		t.Errorf("diff --max-paths -1: exit %d, %d paths listed, want 32:\n%s\n%s", r.code, n, r.stdout, r.stderr)
	}
}
