package redirects

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestDocsNameREADMESections: every README section the docs send a reader
// to ("see the README's "Import files"") is a heading of the README, and
// the README starts with how to run the program.
func TestDocsNameREADMESections(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	headings := map[string]bool{}
	var order []string
	for _, m := range regexp.MustCompile(`(?m)^#{2,4} (.+)$`).FindAllStringSubmatch(string(readme), -1) {
		headings[m[1]] = true
		order = append(order, m[1])
	}
	if len(order) == 0 || order[0] != "Run it" {
		t.Errorf("the README's first section is %q, want \"Run it\"", order[:min(1, len(order))])
	}
	files, _ := filepath.Glob("docs/*.md")
	files = append(files, "README.md", "CHANGELOG.md")
	ref := regexp.MustCompile(`README's\s+"([^"]+)"`)
	n := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range ref.FindAllStringSubmatch(string(b), -1) {
			n++
			name := strings.Join(strings.Fields(m[1]), " ")
			if !headings[name] {
				t.Errorf("%s sends the reader to the README's %q, which has no such section", f, name)
			}
		}
	}
	if n == 0 {
		t.Fatal("no reference to a README section found: the pattern no longer matches the docs")
	}
}

// untrustedContext matches the GitHub Actions contexts that whoever opens
// a pull request or pushes a branch controls: the event's payload (commit
// messages, titles, bodies) and branch names.
var untrustedContext = regexp.MustCompile(`\bgithub\s*\.\s*(event|head_ref|ref_name)\b|\bgithub\s*\[`)

// TestDocsWorkflowsKeepUntrustedValuesOutOfScripts: no CI example in the
// docs pastes an untrusted value into a run: script with ${{ ... }}, where
// it becomes shell code before the shell runs (a commit message
// `x"; id; echo "` would run in the job that holds the secrets). Such
// values go through env: and are used as "$NAME".
func TestDocsWorkflowsKeepUntrustedValuesOutOfScripts(t *testing.T) {
	files, _ := filepath.Glob("docs/*.md")
	files = append(files, "README.md")
	runs := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range workflowRunProblems(string(b), &runs) {
			t.Errorf("%s:%s", f, p)
		}
	}
	if runs == 0 {
		t.Fatal("no run: step found in a yaml example: the test no longer finds the CI examples")
	}
}

// workflowRunProblems returns "LINE: ..." for each ${{ ... }} expression
// on an untrusted context inside a run: value of a fenced yaml block of
// doc, and counts the run: values it saw in runs.
func workflowRunProblems(doc string, runs *int) []string {
	fence := regexp.MustCompile("^\\s*```\\s*(\\S*)")
	runKey := regexp.MustCompile(`^(\s*)(-\s+)?run:(.*)$`)
	expr := regexp.MustCompile(`\$\{\{(.*?)\}\}`)
	var problems []string
	inYAML, inFence := false, false
	runIndent := -1 // the indent of the run: key whose value goes on, or -1
	for i, line := range strings.Split(doc, "\n") {
		if m := fence.FindStringSubmatch(line); m != nil {
			if !inFence {
				inFence, inYAML = true, m[1] == "yaml" || m[1] == "yml"
			} else {
				inFence, inYAML = false, false
			}
			runIndent = -1
			continue
		}
		if !inYAML {
			continue
		}
		indent := len(line) - len(strings.TrimLeft(line, " "))
		if runIndent >= 0 && strings.TrimSpace(line) != "" && indent <= runIndent {
			runIndent = -1
		}
		if m := runKey.FindStringSubmatch(line); m != nil && runIndent < 0 {
			*runs++
			runIndent = len(m[1]) + len(m[2])
		}
		if runIndent < 0 {
			continue
		}
		for _, e := range expr.FindAllStringSubmatch(line, -1) {
			if untrustedContext.MatchString(e[1]) {
				problems = append(problems, fmt.Sprintf("%d: %s inside a run: script becomes shell code; pass it through env: and use \"$NAME\"", i+1, strings.TrimSpace(e[0])))
			}
		}
	}
	return problems
}

// TestWorkflowRunProblems: the scan finds an untrusted expression in a
// run: value on its line, multi-line or not, and lets it through env:.
func TestWorkflowRunProblems(t *testing.T) {
	doc := "text ${{ github.event.x }}\n" + // 1: not in a yaml block
		"```yaml\n" + // 2
		"steps:\n" + // 3
		"  - name: ok\n" + // 4
		"    env:\n" + // 5
		"      M: ${{ github.event.head_commit.message }}\n" + // 6: env is fine
		"    run: echo \"$M\"\n" + // 7
		"  - run: |\n" + // 8
		"      echo ${{ secrets.X }}\n" + // 9: trusted
		"      echo \"${{ github.head_ref }}\"\n" + // 10
		"    if: github.event_name == 'push'\n" + // 11: after the run: value
		"  - run: echo ${{ github.event.pull_request.title }}\n" + // 12
		"```\n" + // 13
		"```sh\n" + // 14
		"run: ${{ github.event.x }}\n" + // 15: not yaml
		"```\n"
	runs := 0
	got := workflowRunProblems(doc, &runs)
	if runs != 3 || len(got) != 2 || !strings.HasPrefix(got[0], "10: ${{ github.head_ref }}") ||
		!strings.HasPrefix(got[1], "12: ${{ github.event.pull_request.title }}") {
		t.Fatalf("runs %d, problems %q; want 3 runs and problems on lines 10 and 12", runs, got)
	}
}
