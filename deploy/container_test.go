package deploy

import (
	"debug/elf"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// instruction is one instruction of a container file, its continuation
// lines joined.
type instruction struct {
	line int
	cmd  string // upper case: FROM, RUN, ...
	args string
}

// stage is one FROM of a container file and what follows it.
type stage struct {
	image, name string
	instrs      []instruction
}

func parseContainerfile(t *testing.T, path string) (args map[string]string, stages []*stage) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	args = map[string]string{}
	var cur strings.Builder
	start := 0
	lines := strings.Split(string(b), "\n")
	for n, line := range lines {
		trimmed := strings.TrimSpace(line)
		if cur.Len() == 0 && (trimmed == "" || trimmed[0] == '#') {
			continue
		}
		if cur.Len() > 0 && trimmed != "" && trimmed[0] == '#' {
			continue // a comment inside a continued instruction
		}
		if cur.Len() == 0 {
			start = n + 1
		}
		if strings.HasSuffix(trimmed, "\\") {
			cur.WriteString(strings.TrimSuffix(trimmed, "\\") + " ")
			continue
		}
		cur.WriteString(trimmed)
		cmd, rest, _ := strings.Cut(cur.String(), " ")
		in := instruction{line: start, cmd: strings.ToUpper(cmd), args: strings.TrimSpace(rest)}
		cur.Reset()
		switch {
		case in.cmd == "FROM":
			f := strings.Fields(in.args)
			s := &stage{image: f[0]}
			if len(f) == 3 && strings.EqualFold(f[1], "AS") {
				s.name = f[2]
			}
			stages = append(stages, s)
		case in.cmd == "ARG" && len(stages) == 0:
			k, v, _ := strings.Cut(in.args, "=")
			args[k] = v
		case len(stages) == 0:
			t.Fatalf("%s:%d: %s before the first FROM", path, in.line, in.cmd)
		default:
			stages[len(stages)-1].instrs = append(stages[len(stages)-1].instrs, in)
		}
	}
	if cur.Len() > 0 {
		t.Fatalf("%s ends inside a continued instruction", path)
	}
	return args, stages
}

func (s *stage) all(cmd string) []instruction {
	var out []instruction
	for _, in := range s.instrs {
		if in.cmd == cmd {
			out = append(out, in)
		}
	}
	return out
}

// TestContainerfile checks the container file's structure where no
// container engine is needed: a Go builder recent enough for go.mod, a
// static build without build paths, and a final image from scratch that
// runs the binary as a numeric user that is not root, owns the data
// directory, and can run no shell command.
func TestContainerfile(t *testing.T) {
	args, stages := parseContainerfile(t, "Containerfile")
	if len(stages) != 2 {
		t.Fatalf("%d stages, want 2 (build, then the final image)", len(stages))
	}
	build, final := stages[0], stages[1]

	// The builder's Go is at least go.mod's.
	if build.image != "golang:${GO_VERSION}" || build.name == "" {
		t.Errorf("build stage FROM %s AS %q, want golang:${GO_VERSION} with a name", build.image, build.name)
	}
	mod, err := os.ReadFile("../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	want := regexp.MustCompile(`(?m)^go (\d+)\.(\d+)`).FindStringSubmatch(string(mod))
	have := regexp.MustCompile(`^(\d+)\.(\d+)`).FindStringSubmatch(args["GO_VERSION"])
	if want == nil || have == nil {
		t.Fatalf("cannot compare GO_VERSION %q with go.mod's go line", args["GO_VERSION"])
	}
	if version(have[1:]) < version(want[1:]) {
		t.Errorf("GO_VERSION %s is older than go.mod's go %s.%s", args["GO_VERSION"], want[1], want[2])
	}

	// One go build: static, without build paths, of the command.
	var builds []string
	for _, in := range build.all("RUN") {
		if strings.Contains(in.args, "go build") {
			builds = append(builds, in.args)
		}
	}
	if len(builds) != 1 {
		t.Fatalf("%d RUN instructions with go build, want 1", len(builds))
	}
	for _, flag := range []string{"CGO_ENABLED=0", "-trimpath", "./cmd/redirects", "-o /out/redirects", "redirects/internal/version.Version=${VERSION}"} {
		if !strings.Contains(builds[0], flag) {
			t.Errorf("go build lacks %s: %s", flag, builds[0])
		}
	}

	// The final image: scratch, no RUN (no shell), the binary as the
	// entrypoint, a numeric user that is not root.
	if final.image != "scratch" {
		t.Errorf("final image FROM %s, want scratch", final.image)
	}
	if runs := final.all("RUN"); len(runs) > 0 {
		t.Errorf("the final image has RUN at line %d: scratch has no shell to run it", runs[0].line)
	}
	if hc := final.all("HEALTHCHECK"); len(hc) > 0 {
		t.Errorf("HEALTHCHECK at line %d: scratch has no program to run it", hc[0].line)
	}
	users := final.all("USER")
	if len(users) != 1 {
		t.Fatalf("%d USER instructions in the final image, want 1", len(users))
	}
	uid, gid, _ := strings.Cut(users[0].args, ":")
	for _, id := range []string{uid, gid} {
		if n, err := strconv.Atoi(id); err != nil || n == 0 {
			t.Errorf("USER %s: want numeric uid:gid, neither 0 (scratch has no /etc/passwd)", users[0].args)
		}
	}
	dataOwned := false
	for _, in := range final.all("COPY") {
		if !strings.HasPrefix(in.args, "--from="+build.name+" ") && !strings.Contains(in.args, " --from="+build.name+" ") {
			t.Errorf("line %d: COPY %s takes nothing from the build stage", in.line, in.args)
		}
		if strings.Contains(in.args, "--chown="+users[0].args+" ") && strings.HasSuffix(in.args, " /data") {
			dataOwned = true
		}
	}
	if !dataOwned {
		t.Errorf("/data is not copied --chown=%s: the user could not write the SQLite file", users[0].args)
	}
	env := strings.Join(fieldsOf(final.all("ENV")), " ")
	for _, kv := range []string{"REDIRECTS_DB=sqlite:/data/redirects.db", "REDIRECTS_ADDR=:8080", "REDIRECTS_ADMIN_ADDR=:8081"} {
		if !strings.Contains(" "+env+" ", " "+kv+" ") {
			t.Errorf("ENV lacks %s: %s", kv, env)
		}
	}
	if e := strings.Join(fieldsOf(final.all("EXPOSE")), " "); e != "8080 8081" {
		t.Errorf("EXPOSE %s, want 8080 8081", e)
	}
	var entry, cmd []string
	for name, dst := range map[string]*[]string{"ENTRYPOINT": &entry, "CMD": &cmd} {
		in := final.all(name)
		if len(in) != 1 || json.Unmarshal([]byte(in[0].args), dst) != nil {
			t.Errorf("%s is not one instruction in exec form (a JSON array): scratch has no shell for the other form", name)
		}
	}
	if strings.Join(entry, " ") != "/usr/local/bin/redirects" || strings.Join(cmd, " ") != "serve" {
		t.Errorf("ENTRYPOINT %q CMD %q, want the binary and serve", entry, cmd)
	}
}

// TestContainerfileBuild runs the build stage's go build command here, on
// the host, with the build arguments set, and checks what it makes: a
// static binary (no program interpreter, no shared library) that reports
// the version it was stamped with. Only the command is checked, not the
// golang image around it.
func TestContainerfileBuild(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh to run the command with")
	}
	_, stages := parseContainerfile(t, "Containerfile")
	var command string
	for _, in := range stages[0].all("RUN") {
		if strings.Contains(in.args, "go build") {
			command, _, _ = strings.Cut(in.args, "&&")
		}
	}
	if command == "" {
		t.Fatal("no go build in the build stage")
	}
	out := filepath.Join(t.TempDir(), "redirects")
	if !strings.Contains(command, "-o /out/redirects ") {
		t.Fatalf("go build does not write /out/redirects: %s", command)
	}
	command = strings.Replace(command, "-o /out/redirects ", "-o "+out+" ", 1)
	cmd := exec.Command("sh", "-c", command)
	cmd.Dir = ".."
	cmd.Env = append(os.Environ(), "VERSION=v0.0.0-container", "COMMIT=0123456789abcdef0123456789abcdef01234567", "DATE=2026-01-02T03:04:05Z")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", command, err, b)
	}
	f, err := elf.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			t.Error("the binary names a program interpreter: it is not static")
		}
	}
	if libs, _ := f.ImportedLibraries(); len(libs) > 0 {
		t.Errorf("the binary needs shared libraries %v", libs)
	}
	b, err := exec.Command(out, "version").Output()
	if err != nil || !strings.HasPrefix(string(b), "redirects v0.0.0-container commit=0123456789abcdef0123456789abcdef01234567 built=2026-01-02T03:04:05Z ") {
		t.Fatalf("redirects version: %v %q", err, b)
	}
}

func version(majorMinor []string) int {
	major, _ := strconv.Atoi(majorMinor[0])
	minor, _ := strconv.Atoi(majorMinor[1])
	return major*1000 + minor
}

func fieldsOf(ins []instruction) []string {
	var f []string
	for _, in := range ins {
		f = append(f, strings.Fields(in.args)...)
	}
	return f
}

// containerEngine returns a container engine that answers here (docker
// with a running daemon, or podman), or "".
func containerEngine() string {
	for _, name := range []string{"docker", "podman"} {
		if _, err := exec.LookPath(name); err != nil {
			continue
		}
		cmd := exec.Command(name, "info")
		if err := runWithin(cmd, 20*time.Second); err == nil {
			return name
		}
	}
	return ""
}

func runWithin(cmd *exec.Cmd, limit time.Duration) error {
	if err := cmd.Start(); err != nil {
		return err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return err
	case <-time.After(limit):
		cmd.Process.Kill()
		<-done
		return os.ErrDeadlineExceeded
	}
}

// TestContainerBuild builds the image with a container engine, when one
// answers here, and runs "redirects version" in it as its user. Building
// fetches the golang image and the modules, so it runs only when
// REDIRECTS_TEST_CONTAINER is set.
func TestContainerBuild(t *testing.T) {
	if os.Getenv("REDIRECTS_TEST_CONTAINER") == "" {
		t.Skip("set REDIRECTS_TEST_CONTAINER=1 to build the image (needs docker with a daemon, or podman)")
	}
	engine := containerEngine()
	if engine == "" {
		t.Skip("no container engine answers here (docker info and podman info failed): the image is not built")
	}
	tag := "redirects-test:" + strconv.FormatInt(time.Now().UnixNano(), 36)
	build := exec.Command(engine, "build", "-f", "deploy/Containerfile", "-t", tag, "--build-arg", "VERSION=v0.0.0-test", ".")
	build.Dir = ".."
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("%s build: %v\n%s", engine, err, out)
	}
	t.Cleanup(func() { exec.Command(engine, "rmi", "-f", tag).Run() })
	out, err := exec.Command(engine, "run", "--rm", tag, "version").CombinedOutput()
	if err != nil || !strings.HasPrefix(string(out), "redirects v0.0.0-test ") {
		t.Fatalf("%s run %s version: %v\n%s", engine, tag, err, out)
	}
	out, err = exec.Command(engine, "image", "inspect", "-f", "{{.Config.User}}", tag).Output()
	if err != nil || strings.TrimSpace(string(out)) != "65532:65532" {
		t.Fatalf("image user %q (%v), want 65532:65532", out, err)
	}
}
