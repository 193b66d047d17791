package redirects

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
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
	_ = n // the docs now link to the pages the README's sections moved to (TestDocsLinksResolve)
}

// readmeMaxLines is how long the README may be: a path into docs/, not a
// reference (issue #37).
const readmeMaxLines = 150

// TestREADMEIsAPath: the README is at most readmeMaxLines lines and holds
// what a newcomer needs: the two commands (run, test) in sh blocks under
// "Run it" and "Test it", the three journeys each with a recipe that
// TestDocsRecipes runs, a screenshot, and a link to every page of docs/;
// and .ci/run runs the README's test command.
func TestREADMEIsAPath(t *testing.T) {
	b, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	if n := strings.Count(strings.TrimRight(readme, "\n"), "\n") + 1; n > readmeMaxLines {
		t.Errorf("README.md has %d lines, more than %d: put the detail in docs/ and link to it", n, readmeMaxLines)
	}
	// section returns the text under the heading, to the next heading of
	// its level or above.
	section := func(heading string) string {
		level := strings.Count(strings.Fields(heading)[0], "#")
		_, after, ok := strings.Cut(readme, "\n"+heading+"\n")
		if !ok {
			t.Errorf("README.md has no %q", heading)
			return ""
		}
		for _, m := range regexp.MustCompile("(?m)^(#{1,6}) ").FindAllStringSubmatchIndex(after, -1) {
			if m[3]-m[2] <= level && !inFence(after[:m[0]]) {
				return after[:m[0]]
			}
		}
		return after
	}
	for heading, command := range map[string]string{"## Run it": "go run ./cmd/redirects quickstart", "## Test it": "go test ./..."} {
		if !strings.Contains(section(heading), "```sh\n"+command+"\n```") {
			t.Errorf("README.md's %q has no sh block of %q", heading, command)
		}
	}
	for _, journey := range []string{"### Migrate a file", "### Put rules in front of nginx or HAProxy", "### Manage from CI"} {
		if n := strings.Count(section(journey), "```sh recipe\n"); n != 1 {
			t.Errorf("README.md's %q has %d blocks marked sh recipe, want 1 (TestDocsRecipes runs it)", journey, n)
		}
	}
	if !regexp.MustCompile(`!\[[^\]]+\]\(docs/screenshots/[^)]+\.png\)`).MatchString(readme) {
		t.Error("README.md shows no screenshot of docs/screenshots")
	}
	pages, _ := filepath.Glob("docs/*.md")
	if len(pages) == 0 {
		t.Fatal("no docs/*.md")
	}
	for _, p := range pages {
		if !strings.Contains(readme, "]("+p+")") && !strings.Contains(readme, "]("+p+"#") {
			t.Errorf("README.md does not link to %s", p)
		}
	}
	ci, err := os.ReadFile(".ci/run")
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`(?m)^\s*(time\s+)?go test \./\.\.\.`).Match(ci) {
		t.Error(".ci/run does not run the README's test command, go test ./...")
	}
}

// inFence says whether text ends inside a fenced block.
func inFence(text string) bool {
	n := 0
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			n++
		}
	}
	return n%2 == 1
}

// mdLink matches a Markdown link or image: its target in group 1.
var mdLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// TestDocsLinksResolve: every relative link of the README and docs/*.md
// names a file of the repository, and an anchor in a Markdown file names
// one of its headings (as GitHub makes anchors of them), so that moving
// text between pages cannot leave a link behind.
func TestDocsLinksResolve(t *testing.T) {
	files, _ := filepath.Glob("docs/*.md")
	files = append(files, "README.md")
	anchors := map[string]map[string]bool{}
	anchorsOf := func(file string) map[string]bool {
		if a, ok := anchors[file]; ok {
			return a
		}
		b, err := os.ReadFile(file)
		if err != nil {
			return nil
		}
		a := map[string]bool{}
		seen := map[string]int{}
		text := string(b)
		for _, m := range regexp.MustCompile(`(?m)^#{1,6} (.+)$`).FindAllStringSubmatchIndex(text, -1) {
			if inFence(text[:m[0]]) {
				continue
			}
			slug := githubAnchor(text[m[2]:m[3]])
			if n := seen[slug]; n > 0 {
				a[fmt.Sprintf("%s-%d", slug, n)] = true
			} else {
				a[slug] = true
			}
			seen[slug]++
		}
		anchors[file] = a
		return a
	}
	links := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		text := string(b)
		for _, m := range mdLink.FindAllStringSubmatchIndex(text, -1) {
			target := text[m[2]:m[3]]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") || inFence(text[:m[0]]) {
				continue
			}
			links++
			path, anchor, _ := strings.Cut(target, "#")
			file := f
			if path != "" {
				file = filepath.Join(filepath.Dir(f), path)
				if _, err := os.Stat(file); err != nil {
					t.Errorf("%s links to %s, which does not exist", f, target)
					continue
				}
			}
			if anchor != "" && strings.HasSuffix(file, ".md") && !anchorsOf(file)[anchor] {
				t.Errorf("%s links to %s: %s has no heading with the anchor #%s", f, target, file, anchor)
			}
		}
	}
	if links == 0 {
		t.Fatal("no relative link found: the pattern no longer matches the docs")
	}
}

// githubAnchor returns the anchor GitHub gives a heading: lower case,
// punctuation dropped but for hyphens and underscores, spaces as hyphens.
func githubAnchor(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(heading)) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// TestGitHubAnchor: the anchors of a few headings, as GitHub makes them.
func TestGitHubAnchor(t *testing.T) {
	for heading, want := range map[string]string{
		"Run it":                              "run-it",
		"The `nginx` format":                  "the-nginx-format",
		"Pattern rules and hosts":             "pattern-rules-and-hosts",
		"What `sync --once` returns":          "what-sync---once-returns",
		"Lookup path: socket to answer (1.2)": "lookup-path-socket-to-answer-12",
	} {
		if got := githubAnchor(heading); got != want {
			t.Errorf("githubAnchor(%q) = %q, want %q", heading, got, want)
		}
	}
}

// untrustedContext matches the GitHub Actions contexts that whoever opens
// a pull request or pushes a branch controls, or may: the event's payload
// (commit messages, titles, bodies), branch and tag names (github.ref,
// github.head_ref), a workflow's inputs, and what earlier steps, jobs and
// env: hold, which may come from any of these. Inside a script each goes
// through env: and is used as "$NAME".
var untrustedContext = regexp.MustCompile(`\bgithub\s*\.\s*(event|head_ref|ref_name|ref)\b|\bgithub\s*\[|\b(inputs|steps|needs|env)\s*[.\[]`)

// gitlabInput matches a GitLab CI input interpolated into a script
// ($[[ inputs.NAME ]]): pasted into the script before the shell reads it,
// as ${{ ... }} is on GitHub.
var gitlabInput = regexp.MustCompile(`\$\[\[\s*inputs\s*\.[^\]]*\]\]`)

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
// on an untrusted context, and each GitLab $[[ inputs.NAME ]], inside a
// script of a fenced yaml block of doc: a run: value, a script: value
// (actions/github-script's, GitLab's script:, before_script: and
// after_script:). It counts the scripts it saw in runs.
func workflowRunProblems(doc string, runs *int) []string {
	fence := regexp.MustCompile("^\\s*```\\s*(\\S*)")
	runKey := regexp.MustCompile(`^(\s*)(-\s+)?(run|script|before_script|after_script):(.*)$`)
	expr := regexp.MustCompile(`\$\{\{(.*?)\}\}`)
	var problems []string
	inYAML, inFence := false, false
	runIndent := -1 // the indent of the run: key whose value goes on, or -1
	listScript := false
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
		if runIndent >= 0 && strings.TrimSpace(line) != "" && indent <= runIndent &&
			!(listScript && indent == runIndent && strings.HasPrefix(strings.TrimSpace(line), "- ")) {
			runIndent = -1
		}
		if m := runKey.FindStringSubmatch(line); m != nil && runIndent < 0 {
			*runs++
			runIndent = len(m[1]) + len(m[2])
			// GitLab's script: is a list, whose items may sit at the key's
			// indent.
			listScript = m[3] != "run" && strings.TrimSpace(m[4]) == ""
		}
		if runIndent < 0 {
			continue
		}
		for _, e := range expr.FindAllStringSubmatch(line, -1) {
			if untrustedContext.MatchString(e[1]) {
				problems = append(problems, fmt.Sprintf("%d: %s inside a script becomes code; pass it through env: and use \"$NAME\"", i+1, strings.TrimSpace(e[0])))
			}
		}
		for _, e := range gitlabInput.FindAllString(line, -1) {
			problems = append(problems, fmt.Sprintf("%d: %s inside a script becomes code; pass it through variables: and use \"$NAME\"", i+1, e))
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

// TestWorkflowScriptProblems: each context an author may control is found
// inside a script, not outside one, and so is a GitLab input; a script is
// a run:, actions/github-script's script: and GitLab's scripts.
func TestWorkflowScriptProblems(t *testing.T) {
	for _, tc := range []struct {
		name, yaml string
		want       string // "" for none
	}{
		{"ref", "- run: echo ${{ github.ref }}", "${{ github.ref }}"},
		{"ref_name", "- run: echo ${{ github.ref_name }}", "${{ github.ref_name }}"},
		{"head_ref", "- run: echo ${{ github.head_ref }}", "${{ github.head_ref }}"},
		{"inputs", "- run: echo ${{ inputs.name }}", "${{ inputs.name }}"},
		{"steps", "- run: echo ${{ steps.meta.outputs.title }}", "${{ steps.meta.outputs.title }}"},
		{"needs", "- run: |\n    echo start\n    echo ${{ needs.build.outputs.tag }}", "${{ needs.build.outputs.tag }}"},
		{"env", "- run: echo ${{ env.MESSAGE }}", "${{ env.MESSAGE }}"},
		{"env index", "- run: echo ${{ env['MESSAGE'] }}", "${{ env['MESSAGE'] }}"},
		{"through env", "- env:\n    M: ${{ github.ref_name }}\n    N: ${{ inputs.name }}\n  run: echo \"$M $N\"", ""},
		{"event_name", "- run: echo ${{ github.event_name }}", ""},
		{"repository", "- run: echo ${{ github.repository }}", ""},
		{"secrets", "- run: echo ${{ secrets.TOKEN }}", ""},
		{"github-script", "- uses: actions/github-script@v7\n  with:\n    script: |\n      const t = `${{ github.event.pull_request.title }}`", "${{ github.event.pull_request.title }}"},
		{"github-script one line", "- uses: actions/github-script@v7\n  with:\n    script: core.info('${{ steps.x.outputs.y }}')", "${{ steps.x.outputs.y }}"},
		{"github-script env", "- uses: actions/github-script@v7\n  env:\n    T: ${{ github.event.pull_request.title }}\n  with:\n    script: core.info(process.env.T)", ""},
		{"gitlab input", "job:\n  script:\n    - echo $[[ inputs.name ]]", "$[[ inputs.name ]]"},
		{"gitlab input same indent", "job:\n  before_script:\n  - echo ok\n  - echo \"$[[ inputs.tag ]]\"", "$[[ inputs.tag ]]"},
		{"gitlab input in variables", "job:\n  variables:\n    NAME: $[[ inputs.name ]]\n  script:\n    - echo \"$NAME\"", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			runs := 0
			got := workflowRunProblems("```yaml\n"+tc.yaml+"\n```\n", &runs)
			if runs != 1 {
				t.Fatalf("%d scripts found in\n%s\nwant 1", runs, tc.yaml)
			}
			switch {
			case tc.want == "" && len(got) != 0:
				t.Fatalf("problems %q in\n%s\nwant none", got, tc.yaml)
			case tc.want != "" && (len(got) != 1 || !strings.Contains(got[0], tc.want)):
				t.Fatalf("problems %q in\n%s\nwant one naming %s", got, tc.yaml, tc.want)
			}
		})
	}
}
