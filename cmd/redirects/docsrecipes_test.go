package main_test

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"redirects/internal/servertest"
)

// A recipe is a fenced block of the docs whose info string is "sh recipe":
// a reader copies it as it is, so TestDocsRecipes runs it as it is.
const recipeInfo = "sh recipe"

// docBlock is a fenced block of a Markdown file.
type docBlock struct {
	file string
	line int // of the opening fence
	info string
	text string
}

// docBlocks returns the fenced blocks of the README and docs/*.md.
func docBlocks(t *testing.T) []docBlock {
	t.Helper()
	files, _ := filepath.Glob("../../docs/*.md")
	files = append(files, "../../README.md")
	var out []docBlock
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var cur *docBlock
		for i, line := range strings.Split(string(b), "\n") {
			trimmed := strings.TrimSpace(line)
			switch {
			case cur == nil && strings.HasPrefix(trimmed, "```"):
				cur = &docBlock{file: strings.TrimPrefix(f, "../../"), line: i + 1, info: strings.TrimSpace(strings.TrimPrefix(trimmed, "```"))}
			case cur != nil && trimmed == "```":
				out = append(out, *cur)
				cur = nil
			case cur != nil:
				cur.text += line + "\n"
			}
		}
	}
	return out
}

// docsProject is a project with a rule of each status the servers must
// answer as the API does, deployed, behind a real edge and management API.
type docsProject struct {
	c                 *cli
	org, project, key string
	edge, api         string
	dir               string // the test's folder
	bin               string // a folder holding the redirects binary, for PATH
}

func newDocsProject(t *testing.T) *docsProject {
	t.Helper()
	c := newCLI(t)
	if c.api != nil {
		t.Skip("the recipes start their own server")
	}
	d := &docsProject{c: c, dir: t.TempDir()}
	d.org, d.project = c.setup()
	for _, r := range [][]string{
		{"--source", "/old", "--destination", "/new"},
		{"--source", "/promo", "--destination", "/sale", "--status", "302"},
		{"--source", "/moved", "--destination", "/there?x=1", "--status", "307"},
		{"--source", "/gone", "--status", "410"},
		{"--source", "/blog/", "--destination", "https://blog.example.com/", "--match", "starts_with", "--status", "308", "--preserve-path"},
	} {
		c.ok(append([]string{"rule", "add", "--project", d.project}, r...)...)
	}
	c.ok("deploy", "--project", d.project)
	d.key = c.ok("key", "create", "--project", d.project)
	d.bin = filepath.Join(d.dir, "bin")
	os.Mkdir(d.bin, 0o755)
	if err := os.Symlink(binary(t), filepath.Join(d.bin, "redirects")); err != nil {
		t.Fatal(err)
	}
	edgeAddr, manageAddr := loopbackAddr(t), loopbackAddr(t)
	m := c.newMain(nil)
	var logs syncBuffer
	m.Stdout, m.Stderr = &logs, &logs
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	go func() {
		done <- m.Run(ctx, []string{"serve", "--addr", edgeAddr, "--admin-addr", "", "--engine", "net/http", "--manage-addr", manageAddr})
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case <-done:
		case <-time.After(15 * time.Second):
			t.Errorf("serve did not stop; logs:\n%s", logs.String())
		}
	})
	d.edge, d.api = "http://"+edgeAddr, "http://"+manageAddr
	waitMinute(t, "serve to answer", func() bool {
		for _, u := range []string{d.edge + "/healthz", d.api + "/manage/v1/orgs"} {
			res, err := http.Get(u)
			if err != nil {
				return false
			}
			res.Body.Close()
		}
		return true
	})
	return d
}

// loopbackAddr returns a loopback address that was free a moment ago.
func loopbackAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// env is the environment a recipe or a CI step runs in: the test's PATH
// with the binary first, and vars.
func (d *docsProject) env(vars map[string]string) []string {
	env := []string{"PATH=" + d.bin + ":" + os.Getenv("PATH") + ":/usr/sbin:/sbin", "HOME=" + d.dir, "LC_ALL=C"}
	for k, v := range vars {
		env = append(env, k+"="+v)
	}
	return env
}

// lookup returns the lookup API's status and destination for path (0 for
// no rule).
func (d *docsProject) lookup(t *testing.T, path string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest("GET", d.edge+"/v1/lookup?project="+url.QueryEscape(d.project)+"&path="+url.QueryEscape(path), nil)
	req.Header.Set("X-API-Key", d.key)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode == http.StatusNoContent {
		return 0, ""
	}
	var a struct {
		Destination string
		StatusCode  int
	}
	if err := json.NewDecoder(res.Body).Decode(&a); err != nil {
		t.Fatalf("lookup %s: %d %v", path, res.StatusCode, err)
	}
	return a.StatusCode, a.Destination
}

// runShell runs script with bash -eo pipefail (as GitHub runs a run: step
// and GitLab a job's lines) in dir, in a process group of its own that is
// killed when the test ends (what the script left running included).
func runShell(t *testing.T, dir string, env []string, script string) (string, error) {
	t.Helper()
	cmd := exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script)
	cmd.Dir, cmd.Env = dir, env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	// A file, not a pipe: what the script leaves running in the
	// background keeps its output open, and Wait would wait for it.
	out, err := os.CreateTemp(t.TempDir(), "out")
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM) })
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	read := func() string { b, _ := os.ReadFile(out.Name()); return string(b) }
	select {
	case err := <-done:
		return read(), err
	case <-time.After(2 * time.Minute):
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		return read(), fmt.Errorf("did not end within 2 minutes")
	}
}

// TestDocsRecipes runs every recipe of the docs as written, in a folder of
// its own, with EDGE, KEY and PROJECT naming a real edge, a live key and a
// deployed project, REDIRECTS_API and REDIRECTS_TOKEN the management API
// and an editor token, and PORT a free port. A recipe that uses
// REDIRECTS_RELEASE_URL (a CI job's steps) gets a release archive there,
// laid out as release/build lays it out, a viewer token in
// REDIRECTS_PLAN_TOKEN, an editor token in REDIRECTS_APPLY_TOKEN, and in
// PROJECT a project with no rules, which the file must reach the edge of. A recipe that starts nginx
// (it leaves nginx.pid) must have nginx answer each rule as the lookup API
// does, 302, 307 and 410 included, and keep doing so after a deploy (the
// agent it started applies it).
func TestDocsRecipes(t *testing.T) {
	var recipes []docBlock
	for _, b := range docBlocks(t) {
		if b.info == recipeInfo {
			recipes = append(recipes, b)
		}
	}
	if len(recipes) == 0 {
		t.Fatalf("no block marked %q in the docs", recipeInfo)
	}
	for _, r := range recipes {
		t.Run(fmt.Sprintf("%s:%d", r.file, r.line), func(t *testing.T) {
			if strings.Contains(r.text, "nginx") {
				servertest.LookPath(t, "nginx")
			}
			d := newDocsProject(t)
			token := d.c.ok("token", "create", "--org", d.org, "--role", "editor", "--name", "recipe")
			dir := filepath.Join(d.dir, "work")
			os.Mkdir(dir, 0o755)
			port := servertest.FreePort(t)
			vars := map[string]string{"EDGE": d.edge, "KEY": d.key, "PROJECT": d.project,
				"REDIRECTS_API": d.api, "REDIRECTS_TOKEN": token, "PORT": strconv.Itoa(port)}
			// A CI recipe downloads the release archive and plans and
			// applies a project file, with a viewer and an editor token,
			// on a project that has no rules yet.
			ci := strings.Contains(r.text, "REDIRECTS_RELEASE_URL")
			if ci {
				archive := releaseArchive(t)
				srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write(archive) }))
				t.Cleanup(srv.Close)
				d.project = d.c.ok("project", "create", "--org", d.org, "--name", "from-ci")
				d.key = d.c.ok("key", "create", "--project", d.project)
				vars["PROJECT"], vars["KEY"] = d.project, d.key
				vars["REDIRECTS_RELEASE_URL"] = srv.URL + "/redirects_v0.0.0-test_linux_amd64.tar.gz"
				vars["REDIRECTS_PLAN_TOKEN"] = d.c.ok("token", "create", "--org", d.org, "--role", "viewer", "--name", "ci-plan")
				vars["REDIRECTS_APPLY_TOKEN"] = d.c.ok("token", "create", "--org", d.org, "--role", "editor", "--name", "ci-apply")
			}
			env := d.env(vars)
			t.Cleanup(func() {
				if pid, err := os.ReadFile(filepath.Join(dir, "nginx.pid")); err == nil {
					if n, err := strconv.Atoi(strings.TrimSpace(string(pid))); err == nil {
						syscall.Kill(n, syscall.SIGQUIT)
					}
				}
			})
			out, err := runShell(t, dir, env, r.text)
			if err != nil {
				t.Fatalf("%s:%d: the recipe failed (%v):\n%s", r.file, r.line, err, out)
			}
			if ci {
				// The apply deployed the file: the edge answers its rules.
				status, dest := 0, ""
				waitMinute(t, "the edge to answer the applied file", func() bool {
					status, dest = d.lookup(t, "/old")
					return status == 301 && dest == "/new"
				})
			}
			if _, err := os.Stat(filepath.Join(dir, "nginx.pid")); err != nil {
				return
			}
			paths := []string{"/old", "/promo", "/moved", "/gone", "/blog/2024/hello", "/nothing"}
			d.sameAnswers(t, port, paths)
			// A deploy reaches nginx through the agent the recipe started.
			d.c.ok("rule", "add", "--project", d.project, "--source", "/later", "--destination", "/after", "--status", "307")
			d.c.ok("deploy", "--project", d.project)
			untilAnswers(t, port, "/later", 307, "/after", time.Now())
			// nginx's old workers finish what they hold after the reload's
			// signal, and may take a connection meanwhile.
			time.Sleep(time.Second)
			d.sameAnswers(t, port, append(paths, "/later"))
			if log, _ := os.ReadFile(filepath.Join(dir, "sync.log")); bytes.Contains(log, []byte("level=ERROR")) {
				t.Errorf("the agent logged an error:\n%s", log)
			}
		})
	}
}

// sameAnswers holds the server on port to the lookup API for each path:
// the same status and Location (a 404 where no rule answers).
func (d *docsProject) sameAnswers(t *testing.T, port int, paths []string) {
	t.Helper()
	for _, p := range paths {
		status, dest := d.lookup(t, p)
		if status == 0 {
			status = 404
		}
		gotStatus, gotDest := answer(t, port, p)
		if gotStatus != status || gotDest != dest {
			t.Errorf("nginx answers %s with %d %q; the lookup API with %d %q", p, gotStatus, gotDest, status, dest)
		}
	}
}

// ciExamples returns the CI examples of docs/plan.md, parsed: the GitHub
// workflow (it has jobs:) and the GitLab file.
func ciExamples(t *testing.T) (github, gitlab *yamlNode) {
	t.Helper()
	for _, b := range docBlocks(t) {
		if b.file != "docs/plan.md" || b.info != "yaml" {
			continue
		}
		n, err := parseYAML(b.text)
		if err != nil {
			t.Fatalf("%s:%d: %v", b.file, b.line, err)
		}
		if n.get("jobs") != nil {
			github = n
		} else {
			gitlab = n
		}
	}
	if github == nil || gitlab == nil {
		t.Fatal("docs/plan.md has no GitHub workflow or no GitLab file")
	}
	return github, gitlab
}

// releaseArchive returns the bytes of a release archive as release/build
// lays it out: redirects_VERSION_OS_ARCH/ holding the binary, the README
// and the licence.
func releaseArchive(t *testing.T) []byte {
	t.Helper()
	script, err := os.ReadFile("../../release/build")
	if err != nil || !bytes.Contains(script, []byte(`name="redirects_${version}_${goos}_${goarch}"`)) {
		t.Fatalf("release/build no longer names its folder redirects_${version}_${goos}_${goarch} (err %v): change the test with it", err)
	}
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	dir := "redirects_v0.0.0-test_linux_amd64/"
	tw.WriteHeader(&tar.Header{Name: dir, Mode: 0o755, Typeflag: tar.TypeDir})
	for name, path := range map[string]string{"redirects": binary(t), "README.md": "../../README.md", "LICENSE": "../../LICENSE"} {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		tw.WriteHeader(&tar.Header{Name: dir + name, Mode: 0o755, Size: int64(len(b)), Typeflag: tar.TypeReg})
		tw.Write(b)
	}
	tw.Close()
	zw.Close()
	return buf.Bytes()
}

// hostileMessage is a commit message that would run as code if a script
// pasted it in.
const hostileMessage = `merge x"; touch pwned; echo "`

// ciSetup is what both CI examples run against: a repository with
// redirects/www.json, a release archive at REDIRECTS_RELEASE_URL, a viewer
// token to plan and an editor token to apply.
type ciSetup struct {
	d                 *docsProject
	repo              string
	releaseURL        string
	planTok, applyTok string
}

func newCISetup(t *testing.T) *ciSetup {
	d := newDocsProject(t)
	archive := releaseArchive(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write(archive) }))
	t.Cleanup(srv.Close)
	s := &ciSetup{d: d, repo: filepath.Join(d.dir, "repo"), releaseURL: srv.URL + "/redirects_v0.0.0-test_linux_amd64.tar.gz",
		planTok:  d.c.ok("token", "create", "--org", d.org, "--role", "viewer", "--name", "ci-plan"),
		applyTok: d.c.ok("token", "create", "--org", d.org, "--role", "editor", "--name", "ci-apply")}
	os.MkdirAll(filepath.Join(s.repo, "redirects"), 0o755)
	return s
}

// writeFile writes the repository's project file with the given rules.
func (s *ciSetup) writeFile(t *testing.T, rules string) {
	t.Helper()
	servertest.WriteFile(t, filepath.Join(s.repo, "redirects", "www.json"), []byte(`{"project": "`+s.d.project+`", "rules": [`+rules+`]}`))
}

// checkApplied holds the live version to what the file asks for, and the
// deployment's message to the commit's, which ran as no code.
func (s *ciSetup) checkApplied(t *testing.T, path, dest string) {
	t.Helper()
	// The edge learns of a deploy within a second or so.
	status, got := 0, ""
	waitMinute(t, "the edge to answer the applied version", func() bool {
		status, got = s.d.lookup(t, path)
		return status == 301 && got == dest
	})
	if _, err := os.Stat(filepath.Join(s.repo, "pwned")); err == nil {
		t.Error("the commit message ran as code")
	}
	var deps []struct{ Message string }
	json.Unmarshal([]byte(s.d.c.ok("deployments", "--project", s.d.project, "--json")), &deps)
	found := false
	for _, dep := range deps {
		found = found || dep.Message == hostileMessage
	}
	if !found {
		t.Errorf("no deployment has the commit's message %q: %+v", hostileMessage, deps)
	}
}

var ghExpr = regexp.MustCompile(`\$\{\{\s*([^}]*?)\s*\}\}`)

// TestDocsGitHubWorkflow runs the GitHub Actions example of docs/plan.md:
// a pull request's run (download, plan with a viewer token) and a push's
// (download, apply with an editor token), each step's run: with the job's
// and the step's env:, as GitHub runs it.
func TestDocsGitHubWorkflow(t *testing.T) {
	github, _ := ciExamples(t)
	s := newCISetup(t)
	vals := map[string]string{
		"vars.REDIRECTS_API": s.d.api, "vars.REDIRECTS_RELEASE_URL": s.releaseURL,
		"secrets.REDIRECTS_PLAN_TOKEN": s.planTok, "secrets.REDIRECTS_APPLY_TOKEN": s.applyTok,
		"github.event.head_commit.message": hostileMessage,
	}
	expand := func(v string) string {
		return ghExpr.ReplaceAllStringFunc(v, func(e string) string {
			key := ghExpr.FindStringSubmatch(e)[1]
			val, ok := vals[key]
			if !ok {
				t.Fatalf("the workflow uses %s, which the test does not know", e)
			}
			return val
		})
	}
	jobs := github.get("jobs")
	if jobs == nil || len(jobs.keys) != 1 {
		t.Fatal("the workflow has not one job")
	}
	job := jobs.get(jobs.keys[0])
	// run runs the job for event: the steps it ran, and the first that
	// failed with its output.
	run := func(event string) (ran int, failed, out string) {
		vars := map[string]string{}
		if e := job.get("env"); e != nil {
			for _, k := range e.keys {
				vars[k] = expand(e.get(k).str())
			}
		}
		steps := job.get("steps")
		if steps == nil || len(steps.items) == 0 {
			t.Fatal("the job has no steps")
		}
		for i, st := range steps.items {
			if cond := st.get("if").str(); cond != "" {
				m := regexp.MustCompile(`^github\.event_name == '(\w+)'$`).FindStringSubmatch(cond)
				if m == nil {
					t.Fatalf("step %d: the test cannot evaluate if: %s", i, cond)
				}
				if m[1] != event {
					continue
				}
			}
			script := st.get("run").str()
			if script == "" {
				continue // uses: actions/checkout: the repository is there
			}
			env := map[string]string{}
			for k, v := range vars {
				env[k] = v
			}
			if e := st.get("env"); e != nil {
				for _, k := range e.keys {
					env[k] = expand(e.get(k).str())
				}
			}
			if ghExpr.MatchString(script) {
				script = expand(script)
			}
			out, err := runShell(t, s.repo, s.d.env(env), script)
			ran++
			if err != nil {
				return ran, st.get("name").str(), out
			}
		}
		return ran, "", ""
	}
	// A pull request that would need an owner's token fails its plan, not
	// its merge.
	servertest.WriteFile(t, filepath.Join(s.repo, "redirects", "www.json"),
		[]byte(`{"project": "`+s.d.project+`", "hosts": ["www.example.com"], "rules": [{"source": "/old", "destination": "/hosts"}]}`))
	if _, failed, out := run("pull_request"); failed != "plan" || !strings.Contains(out, "hosts needs the owner role") {
		t.Errorf("a pull request setting hosts: step %q failed, want the plan naming hosts and the owner role:\n%s", failed, out)
	}
	for _, event := range []string{"pull_request", "push"} {
		s.writeFile(t, `{"source": "/old", "destination": "/`+event+`"}`)
		ran, failed, out := run(event)
		if failed != "" {
			t.Fatalf("%s: step %q failed:\n%s", event, failed, out)
		}
		if ran < 2 {
			t.Fatalf("%s: %d steps ran; want the download, then the plan or the apply", event, ran)
		}
	}
	s.checkApplied(t, "/old", "/push")
}

// TestDocsGitLabPipeline runs the GitLab CI example of docs/plan.md: a
// merge request pipeline (the plan job) and a default branch pipeline (the
// apply job), each job's before_script (from extends:) and script lines
// with its variables, as a GitLab runner does.
func TestDocsGitLabPipeline(t *testing.T) {
	_, gitlab := ciExamples(t)
	s := newCISetup(t)
	project := map[string]string{"REDIRECTS_API": s.d.api, "REDIRECTS_RELEASE_URL": s.releaseURL,
		"REDIRECTS_PLAN_TOKEN": s.planTok, "REDIRECTS_APPLY_TOKEN": s.applyTok}
	pipelines := []map[string]string{
		{"CI_PIPELINE_SOURCE": "merge_request_event", "CI_DEFAULT_BRANCH": "main"},
		{"CI_PIPELINE_SOURCE": "push", "CI_COMMIT_BRANCH": "main", "CI_DEFAULT_BRANCH": "main", "CI_COMMIT_TITLE": hostileMessage},
	}
	rule := regexp.MustCompile(`^\[\{if: '(\$\w+) == ("(\w+)"|\$(\w+))'\}\]$`)
	// run runs the jobs of a pipeline: how many ran, and the first that
	// failed with its output.
	run := func(pipe map[string]string) (ran int, failed, out string) {
		for _, name := range gitlab.keys {
			job := gitlab.get(name)
			if strings.HasPrefix(name, ".") || job.get("script") == nil {
				continue
			}
			vars := map[string]string{}
			for k, v := range project {
				vars[k] = v
			}
			for k, v := range pipe {
				vars[k] = v
			}
			if r := job.get("rules").str(); r != "" {
				m := rule.FindStringSubmatch(r)
				if m == nil {
					t.Fatalf("job %s: the test cannot evaluate rules: %s", name, r)
				}
				want := m[3]
				if m[4] != "" {
					want = vars[m[4]]
				}
				if vars[strings.TrimPrefix(m[1], "$")] != want {
					continue
				}
			}
			var lines []string
			if ext := job.get("extends").str(); ext != "" {
				base := gitlab.get(ext)
				if base == nil {
					t.Fatalf("job %s extends %s, which is not in the file", name, ext)
				}
				lines = append(lines, base.get("before_script").strs()...)
			}
			lines = append(lines, job.get("before_script").strs()...)
			lines = append(lines, job.get("script").strs()...)
			if v := job.get("variables"); v != nil {
				for _, k := range v.keys {
					vars[k] = os.Expand(v.get(k).str(), func(n string) string { return vars[n] })
				}
			}
			out, err := runShell(t, s.repo, s.d.env(vars), strings.Join(lines, "\n"))
			ran++
			if err != nil {
				return ran, name, out
			}
		}
		return ran, "", ""
	}
	// A merge request that would need an owner's token fails its plan.
	servertest.WriteFile(t, filepath.Join(s.repo, "redirects", "www.json"),
		[]byte(`{"project": "`+s.d.project+`", "hosts": ["www.example.com"], "rules": [{"source": "/old", "destination": "/hosts"}]}`))
	if _, failed, out := run(pipelines[0]); failed != "redirects-plan" || !strings.Contains(out, "hosts needs the owner role") {
		t.Errorf("a merge request setting hosts: job %q failed, want the plan naming hosts and the owner role:\n%s", failed, out)
	}
	for i, pipe := range pipelines {
		s.writeFile(t, `{"source": "/old", "destination": "/mr`+strconv.Itoa(i)+`"}`)
		ran, failed, out := run(pipe)
		if failed != "" {
			t.Fatalf("pipeline %d: job %s failed:\n%s", i, failed, out)
		}
		if ran != 1 {
			t.Fatalf("pipeline %d: %d jobs ran, want 1 (the plan in a merge request, the apply on the default branch)", i, ran)
		}
	}
	s.checkApplied(t, "/old", "/mr1")
}
