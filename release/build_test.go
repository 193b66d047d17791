package release_test

import (
	"archive/tar"
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"debug/elf"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// root is the repository, seen from this package's directory.
const root = ".."

// target is the one platform the tests build: the machine's own, so the
// binary can run.
const target = "linux/amd64"

// requireBuild skips the test where release/build cannot run or its
// linux/amd64 binary could not be run.
func requireBuild(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the release binary; runs without -short")
	}
	if runtime.GOOS+"/"+runtime.GOARCH != target {
		t.Skipf("the release tests build and run the %s archive; this machine is %s/%s", target, runtime.GOOS, runtime.GOARCH)
	}
	for _, tool := range []string{"bash", "git", "tar", "gzip", "sha256sum"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("release/build needs %s (apt-get install %s)", tool, tool)
		}
	}
	if _, err := os.Stat(filepath.Join(root, ".git")); err != nil {
		t.Skip("release/build needs a git checkout; this tree has no .git")
	}
}

// runBuild runs release/build for the test's target into out and returns
// its exit code and combined output.
func runBuild(t *testing.T, out string, args ...string) (int, string) {
	t.Helper()
	cmd := exec.Command("bash", append([]string{filepath.Join(root, "release", "build"), "--out", out}, args...)...)
	output, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		return ee.ExitCode(), string(output)
	case err != nil:
		t.Fatalf("running release/build: %v", err)
	}
	return 0, string(output)
}

// build runs release/build for the test's target into out and returns the
// one archive's path.
func build(t *testing.T, out string) string {
	t.Helper()
	if code, output := runBuild(t, out, "--targets", target); code != 0 {
		t.Fatalf("release/build --targets %s: exit %d\n%s", target, code, output)
	}
	archives, err := filepath.Glob(filepath.Join(out, "redirects_*_linux_amd64.tar.gz"))
	if err != nil || len(archives) != 1 {
		t.Fatalf("release/build wrote %q into %s, want one linux/amd64 archive", archives, out)
	}
	return archives[0]
}

var first struct {
	once    sync.Once
	dir     string
	archive string
	err     string
}

// firstBuild returns the archive of a build shared by the tests, made once.
func firstBuild(t *testing.T) string {
	t.Helper()
	first.once.Do(func() {
		dir, err := os.MkdirTemp("", "redirects-release-")
		if err != nil {
			first.err = err.Error()
			return
		}
		first.dir = dir
		code, output := runBuild(t, dir, "--targets", target)
		if code != 0 {
			first.err = fmt.Sprintf("release/build --targets %s: exit %d\n%s", target, code, output)
			return
		}
		archives, _ := filepath.Glob(filepath.Join(dir, "redirects_*_linux_amd64.tar.gz"))
		if len(archives) != 1 {
			first.err = fmt.Sprintf("release/build wrote %q, want one linux/amd64 archive", archives)
			return
		}
		first.archive = archives[0]
	})
	if first.err != "" {
		t.Fatal(first.err)
	}
	return first.archive
}

func TestMain(m *testing.M) {
	code := m.Run()
	if first.dir != "" {
		os.RemoveAll(first.dir)
	}
	os.Exit(code)
}

// git runs git in the repository and returns its trimmed output.
func git(t *testing.T, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git %s: %v", strings.Join(args, " "), err)
	}
	return strings.TrimSpace(string(out))
}

// TestReproducible builds the same commit twice, into different
// directories, and requires byte-identical archives and checksums.
func TestReproducible(t *testing.T) {
	requireBuild(t)
	a := firstBuild(t)
	b := build(t, t.TempDir())
	dirA, dirB := filepath.Dir(a), filepath.Dir(b)
	namesA, namesB := listDir(t, dirA), listDir(t, dirB)
	if strings.Join(namesA, " ") != strings.Join(namesB, " ") {
		t.Fatalf("the builds wrote different files: %q and %q", namesA, namesB)
	}
	for _, name := range namesA {
		x, y := readFile(t, filepath.Join(dirA, name)), readFile(t, filepath.Join(dirB, name))
		if !bytes.Equal(x, y) {
			t.Errorf("%s differs between two builds of one commit (%d and %d bytes)", name, len(x), len(y))
		}
	}

	// SHA256SUMS names every archive with its checksum, in the format
	// "sha256sum -c" reads.
	sums := string(readFile(t, filepath.Join(dirA, "SHA256SUMS")))
	sum := sha256.Sum256(readFile(t, a))
	want := hex.EncodeToString(sum[:]) + "  " + filepath.Base(a) + "\n"
	if sums != want {
		t.Fatalf("SHA256SUMS = %q, want %q", sums, want)
	}
	check := exec.Command("sha256sum", "-c", "SHA256SUMS")
	check.Dir = dirA
	if out, err := check.CombinedOutput(); err != nil {
		t.Fatalf("sha256sum -c SHA256SUMS: %v\n%s", err, out)
	}
}

// TestArchive checks what the archive holds and how: the binary, README.md,
// LICENSE, THIRD-PARTY-LICENSES and the pages the README links to (docs/,
// CHANGELOG.md, SECURITY.md, BENCHMARKS.md), every link of theirs resolving
// inside the archive, in one directory named after the archive, in name order, owned
// by 0, with fixed modes and the commit's time; a gzip header without name
// or time; a static binary without build paths.
func TestArchive(t *testing.T) {
	requireBuild(t)
	archive := firstBuild(t)
	dir := strings.TrimSuffix(filepath.Base(archive), ".tar.gz")
	commitTime, err := strconv.ParseInt(git(t, "show", "-s", "--format=%ct", "HEAD"), 10, 64)
	if err != nil {
		t.Fatal(err)
	}

	f, err := os.Open(archive)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	if zr.Name != "" || !zr.ModTime.IsZero() {
		t.Errorf("gzip header holds name %q and time %v; gzip -n leaves both out", zr.Name, zr.ModTime)
	}
	type entry struct {
		name string
		mode int64
	}
	want := []entry{
		{dir + "/", 0o755},
		{dir + "/BENCHMARKS.md", 0o644},
		{dir + "/CHANGELOG.md", 0o644},
		{dir + "/LICENSE", 0o644},
		{dir + "/README.md", 0o644},
		{dir + "/SECURITY.md", 0o644},
		{dir + "/THIRD-PARTY-LICENSES", 0o644},
		{dir + "/docs/", 0o755},
	}
	shipped := []string{"BENCHMARKS.md", "CHANGELOG.md", "README.md", "SECURITY.md", "LICENSE"}
	for _, glob := range []string{"docs/*.md", "docs/screenshots/*.png"} {
		names, err := filepath.Glob(filepath.Join(root, glob))
		if err != nil || len(names) == 0 {
			t.Fatalf("%s: %v, %d files", glob, err, len(names))
		}
		sort.Strings(names)
		if glob == "docs/screenshots/*.png" {
			want = append(want, entry{dir + "/docs/screenshots/", 0o755})
		}
		for _, n := range names {
			rel := filepath.ToSlash(strings.TrimPrefix(n, root+"/"))
			want = append(want, entry{dir + "/" + rel, 0o644})
			shipped = append(shipped, rel)
		}
	}
	want = append(want, entry{dir + "/redirects", 0o755})
	// tar --sort=name: each directory's entries by name, depth first, which
	// for these names is the order of the whole path.
	sort.Slice(want, func(i, j int) bool { return want[i].name < want[j].name })
	var got []entry
	files := map[string][]byte{}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("reading %s: %v", archive, err)
		}
		got = append(got, entry{h.Name, h.Mode & 0o7777})
		if h.Uid != 0 || h.Gid != 0 || h.Uname != "" || h.Gname != "" {
			t.Errorf("%s is owned by %d:%d (%q:%q), want 0:0 without names", h.Name, h.Uid, h.Gid, h.Uname, h.Gname)
		}
		if h.ModTime.Unix() != commitTime {
			t.Errorf("%s has mtime %v, want the commit's time %v", h.Name, h.ModTime.UTC(), time.Unix(commitTime, 0).UTC())
		}
		if h.Typeflag == tar.TypeReg {
			b, err := io.ReadAll(tr)
			if err != nil {
				t.Fatal(err)
			}
			files[strings.TrimPrefix(h.Name, dir+"/")] = b
		}
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("archive entries (name, mode) = %v\nwant %v", got, want)
	}
	for _, name := range shipped {
		if !bytes.Equal(files[name], readFile(t, filepath.Join(root, name))) {
			t.Errorf("the archive's %s is not the repository's", name)
		}
	}
	// The README's links, and the docs' links, work from the unpacked
	// archive: every relative link names a file the archive holds. Only
	// links into the source tree (the provider's page, test data) stay
	// behind: a link to a top-level file or into docs/ must resolve.
	link := regexp.MustCompile(`\]\(([^)#\s]+)(?:#[^)]*)?\)`)
	for name, b := range files {
		if !strings.HasSuffix(name, ".md") {
			continue
		}
		text := string(b)
		for _, m := range link.FindAllStringSubmatchIndex(text, -1) {
			target := text[m[2]:m[3]]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") || inFence(text[:m[0]]) {
				continue
			}
			resolved := filepath.ToSlash(filepath.Clean(filepath.Join(filepath.Dir(name), target)))
			if dir, _, nested := strings.Cut(resolved, "/"); nested && dir != "docs" {
				if _, err := os.Stat(filepath.Join(root, resolved)); err != nil {
					t.Errorf("the archive's %s links to %s, which the source tree does not hold either", name, target)
				}
				continue
			}
			if _, ok := files[resolved]; !ok {
				t.Errorf("the archive's %s links to %s, which the archive does not hold", name, target)
			}
		}
	}
	if !bytes.Contains(files["LICENSE"], []byte("Apache License\n                           Version 2.0, January 2004")) {
		t.Error("LICENSE is not the Apache License 2.0")
	}

	// THIRD-PARTY-LICENSES carries the notices of everything linked in
	// besides the project's code: Go itself and every module of the build.
	list := exec.Command("go", "list", "-deps", "-f", "{{with .Module}}{{if not .Main}}{{.Path}} {{.Version}}{{end}}{{end}}", "./cmd/redirects")
	list.Dir = root
	list.Env = append(os.Environ(), "GOOS=linux", "GOARCH=amd64", "CGO_ENABLED=0")
	mods, err := list.Output()
	if err != nil {
		t.Fatalf("go list -deps ./cmd/redirects: %v", err)
	}
	third := string(files["THIRD-PARTY-LICENSES"])
	need := append([]string{"Go standard library and runtime " + runtime.Version()}, strings.Fields(strings.ReplaceAll(string(mods), " ", "@"))...)
	for _, n := range need {
		heading := "\n" + strings.ReplaceAll(n, "@", " ") + "\n"
		if !strings.Contains(third, heading) {
			t.Errorf("THIRD-PARTY-LICENSES has no section for %s", strings.ReplaceAll(n, "@", " "))
		}
	}
	if !strings.Contains(third, "Redistributions in binary form must reproduce") {
		t.Error("THIRD-PARTY-LICENSES holds no BSD licence text")
	}

	bin := files["redirects"]
	if !bytes.HasPrefix(bin, []byte("\x7fELF")) {
		t.Fatal("redirects in the archive is not an ELF binary")
	}
	ef, err := elf.NewFile(bytes.NewReader(bin))
	if err != nil {
		t.Fatalf("redirects in the archive: %v", err)
	}
	for _, p := range ef.Progs {
		if p.Type == elf.PT_INTERP || p.Type == elf.PT_DYNAMIC {
			t.Errorf("redirects has a %v program header; release binaries are static (CGO_ENABLED=0)", p.Type)
		}
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		t.Fatal(err)
	}
	paths := map[string]string{"the checkout": abs}
	for _, v := range []string{"GOROOT", "GOMODCACHE", "GOCACHE"} {
		out, err := exec.Command("go", "env", v).Output()
		if err == nil && len(bytes.TrimSpace(out)) > 1 {
			paths[v] = string(bytes.TrimSpace(out))
		}
	}
	for what, p := range paths {
		if bytes.Contains(bin, []byte(p)) {
			t.Errorf("redirects holds the build path %s (%s); -trimpath leaves build paths out", p, what)
		}
	}
}

// TestArchiveRunsWithoutGo unpacks the linux/amd64 archive and runs its
// binary as an adopter would, with no Go on PATH: --version names the
// commit, and the quickstart serves a lookup and the build's identity in
// /metrics.
func TestArchiveRunsWithoutGo(t *testing.T) {
	requireBuild(t)
	if _, err := os.Stat("/bin/sh"); err != nil {
		t.Skip("needs /bin/sh to show that go is not on PATH")
	}
	archive := firstBuild(t)
	dir := t.TempDir()
	untar := exec.Command("tar", "-xzf", archive, "-C", dir)
	if out, err := untar.CombinedOutput(); err != nil {
		t.Fatalf("tar -xzf: %v\n%s", err, out)
	}
	name := strings.TrimSuffix(filepath.Base(archive), ".tar.gz")
	version := strings.TrimSuffix(strings.TrimPrefix(name, "redirects_"), "_linux_amd64")
	bin := filepath.Join(dir, name, "redirects")

	// PATH keeps the machine's directories that hold no go command.
	var keep []string
	for _, d := range filepath.SplitList(os.Getenv("PATH") + ":/usr/bin:/bin") {
		if _, err := os.Stat(filepath.Join(d, "go")); d != "" && err != nil {
			keep = append(keep, d)
		}
	}
	env := []string{"PATH=" + strings.Join(keep, ":"), "HOME=" + dir}
	which := exec.Command("/bin/sh", "-c", "command -v go")
	which.Env = env
	if out, err := which.Output(); err == nil {
		t.Fatalf("go is still on the test's PATH at %s", out)
	}

	commit := git(t, "rev-parse", "HEAD")
	if strings.HasSuffix(version, ".dirty") {
		commit += "-dirty"
	}
	built := time.Unix(mustInt(t, git(t, "show", "-s", "--format=%ct", "HEAD")), 0).UTC().Format(time.RFC3339)
	for _, args := range [][]string{{"--version"}, {"version"}} {
		cmd := exec.Command(bin, args...)
		cmd.Env, cmd.Dir = env, dir
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("redirects %s: %v", args[0], err)
		}
		want := fmt.Sprintf("redirects %s commit=%s built=%s go=%s platform=linux/amd64\n", version, commit, built, runtime.Version())
		if string(out) != want {
			t.Fatalf("redirects %s printed %q\nwant %q", args[0], out, want)
		}
	}

	admin := freeAddr(t)
	cmd := exec.Command(bin, "quickstart", "--addr", "127.0.0.1:0", "--admin-addr", admin)
	cmd.Env, cmd.Dir = env, dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	stopped := false
	defer func() {
		if !stopped {
			cmd.Process.Kill()
			<-exited
		}
	}()
	curls := make(chan string, 8)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if strings.HasPrefix(sc.Text(), "curl ") {
				select {
				case curls <- sc.Text():
				default:
				}
			}
		}
		exited <- cmd.Wait()
	}()

	// The first curl command quickstart prints is a lookup that redirects.
	var curl string
	select {
	case curl = <-curls:
	case err := <-exited:
		stopped = true
		t.Fatalf("quickstart exited (%v) before printing its curl commands\nstderr: %s", err, stderr.String())
	case <-time.After(60 * time.Second):
		t.Fatalf("quickstart printed no curl command in 60 s\nstderr: %s", stderr.String())
	}
	m := regexp.MustCompile(`^curl -i -H 'X-API-Key: ([^']+)' '([^']+)'$`).FindStringSubmatch(curl)
	if m == nil {
		t.Fatalf("quickstart's first curl command %q is not curl -i -H 'X-API-Key: KEY' 'URL'", curl)
	}
	req, err := http.NewRequest("GET", m[2], nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("X-API-Key", m[1])
	status, body := get(t, req)
	if want := `{"destination":"https://blog.example.com/archive/2019","statusCode":301,"matchType":"starts_with"}`; status != 200 || body != want {
		t.Fatalf("%s answered %d %q, want 200 %q", curl, status, body, want)
	}

	req, err = http.NewRequest("GET", "http://"+admin+"/metrics", nil)
	if err != nil {
		t.Fatal(err)
	}
	status, body = get(t, req)
	info := fmt.Sprintf("redirects_build_info{version=%q,commit=%q,goversion=%q} 1\n", version, commit, runtime.Version())
	if status != 200 || !strings.Contains(body, info) {
		t.Fatalf("/metrics answered %d without %q:\n%s", status, info, body)
	}

	cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-exited:
		stopped = true
		if err != nil {
			t.Fatalf("quickstart exited with %v after SIGTERM\nstderr: %s", err, stderr.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("quickstart still runs 30 s after SIGTERM\nstderr: %s", stderr.String())
	}
}

// TestBuildRefusesBadArguments checks that release/build names what is
// wrong, exits 2 and writes nothing.
func TestBuildRefusesBadArguments(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("release/build needs bash")
	}
	for _, tc := range []struct {
		args []string // OUT stands for a directory that must stay absent
		want string
	}{
		{[]string{"--out", "OUT", "--version", "1.0"}, `version "1.0" is not a semantic version`},
		{[]string{"--out", "OUT", "--version", "v1.0.0.0"}, `version "v1.0.0.0" is not a semantic version`},
		{[]string{"--out", "OUT", "--targets", "linux"}, `target "linux" is not OS/ARCH`},
		{[]string{"--out", "OUT", "--targets", " "}, `--targets names no platform`},
		{[]string{"--out", "OUT", "--sign"}, `unknown argument --sign`},
		{[]string{"--out"}, `--out needs a directory`},
	} {
		out := filepath.Join(t.TempDir(), "out")
		args := make([]string, len(tc.args))
		for i, a := range tc.args {
			args[i] = strings.ReplaceAll(a, "OUT", out)
		}
		cmd := exec.Command("bash", append([]string{filepath.Join(root, "release", "build")}, args...)...)
		output, err := cmd.CombinedOutput()
		code := 0
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatalf("running release/build: %v", err)
		}
		if code != 2 || !strings.Contains(string(output), tc.want) {
			t.Errorf("release/build %s: exit %d, output %q; want exit 2 saying %q", strings.Join(tc.args, " "), code, output, tc.want)
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Errorf("release/build %s created its output directory", strings.Join(tc.args, " "))
		}
	}
}

// get sends req and returns the status and body.
func get(t *testing.T, req *http.Request) (int, string) {
	t.Helper()
	client := &http.Client{Timeout: 10 * time.Second}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: reading the body: %v", req.Method, req.URL, err)
	}
	return resp.StatusCode, string(body)
}

// freeAddr returns a loopback address with a port nothing listens on now.
func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

func listDir(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	return names
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func mustInt(t *testing.T, s string) int64 {
	t.Helper()
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		t.Fatalf("%q is not a number: %v", s, err)
	}
	return n
}

// inFence reports whether the end of text lies inside a fenced code block,
// where "](" is code, not a link.
func inFence(text string) bool {
	n := 0
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			n++
		}
	}
	return n%2 == 1
}
