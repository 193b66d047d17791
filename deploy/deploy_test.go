package deploy

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// binary is redirects, built once for the tests into a directory every
// user can read.
var binary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "redirects-deploy-")
	if err == nil {
		err = os.Chmod(dir, 0o755)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binary = filepath.Join(dir, "redirects")
	build := exec.Command("go", "build", "-o", binary, "../cmd/redirects")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building redirects:", err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// drain is how long "redirects serve" lets in-flight requests finish after
// SIGTERM (cmd/redirects/serve.go) before it writes counted usage.
const drain = 10 * time.Second

// unit is a parsed systemd unit file: section, then key, then the values
// of every line of that key, in order.
type unit map[string]map[string][]string

func parseUnit(t *testing.T, path string) unit {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	u := unit{}
	section := ""
	for n, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		switch {
		case line == "" || line[0] == '#' || line[0] == ';':
		case line[0] == '[' && line[len(line)-1] == ']':
			section = line[1 : len(line)-1]
			u[section] = map[string][]string{}
		default:
			k, v, ok := strings.Cut(line, "=")
			if !ok || section == "" {
				t.Fatalf("%s:%d: %q is neither a section nor a setting", path, n+1, line)
			}
			u[section][k] = append(u[section][k], v)
		}
	}
	return u
}

// get returns the last value of key in section (the one systemd applies to
// a setting that takes one value), or "".
func (u unit) get(section, key string) string {
	vs := u[section][key]
	if len(vs) == 0 {
		return ""
	}
	return vs[len(vs)-1]
}

// TestUnitSettings checks what the unit promises docs/operations.md: a user
// that is not root, the database in the state directory, the hardening
// options, the descriptor limit, restarts, and a stop timeout longer than
// the server's drain.
func TestUnitSettings(t *testing.T) {
	u := parseUnit(t, "redirects.service")
	for _, c := range []struct{ section, key, want string }{
		{"Service", "Type", "exec"},
		{"Service", "ExecStart", "/usr/local/bin/redirects serve"},
		{"Service", "DynamicUser", "yes"},
		{"Service", "User", "redirects"},
		{"Service", "StateDirectory", "redirects"},
		{"Service", "WorkingDirectory", "/var/lib/redirects"},
		{"Service", "EnvironmentFile", "-/etc/redirects/redirects.env"},
		{"Service", "Restart", "on-failure"},
		{"Service", "KillSignal", "SIGTERM"},
		{"Service", "NoNewPrivileges", "yes"},
		{"Service", "ProtectSystem", "strict"},
		{"Service", "ProtectHome", "yes"},
		{"Service", "PrivateTmp", "yes"},
		{"Service", "PrivateDevices", "yes"},
		{"Service", "CapabilityBoundingSet", ""},
		{"Service", "SystemCallFilter", "~@privileged"},
		{"Install", "WantedBy", "multi-user.target"},
	} {
		if _, ok := u[c.section][c.key]; !ok {
			t.Errorf("[%s] has no %s=", c.section, c.key)
		} else if got := u.get(c.section, c.key); got != c.want {
			t.Errorf("[%s] %s=%s, want %s", c.section, c.key, got, c.want)
		}
	}
	if !slices.Contains(u["Service"]["Environment"], "REDIRECTS_DB=sqlite:/var/lib/redirects/redirects.db") {
		t.Errorf("the SQLite file is not in the state directory: Environment=%q", u["Service"]["Environment"])
	}
	if n, err := strconv.Atoi(u.get("Service", "LimitNOFILE")); err != nil || n < 4096 {
		t.Errorf("LimitNOFILE=%s, want a number of at least 4096", u.get("Service", "LimitNOFILE"))
	}
	stop, err := time.ParseDuration(u.get("Service", "TimeoutStopSec"))
	if err != nil || stop <= drain {
		t.Errorf("TimeoutStopSec=%s, want a duration longer than the %v drain, so that usage is written before SIGKILL", u.get("Service", "TimeoutStopSec"), drain)
	}
}

// verifiableUnit copies the unit into a new directory with ExecStart on
// the built binary: systemd-analyze verify checks that the program exists.
func verifiableUnit(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("redirects.service")
	if err != nil {
		t.Fatal(err)
	}
	const exec = "\nExecStart=/usr/local/bin/redirects "
	if bytes.Count(b, []byte(exec)) != 1 {
		t.Fatalf("the unit has no single %q line", strings.TrimSpace(exec))
	}
	b = bytes.Replace(b, []byte(exec), []byte("\nExecStart="+binary+" "), 1)
	path := filepath.Join(t.TempDir(), "redirects.service")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func needTool(t *testing.T, name, pkg string) {
	t.Helper()
	if _, err := exec.LookPath(name); err != nil {
		t.Skipf("%s is not installed (apt-get install %s): not checked here", name, pkg)
	}
}

// TestUnitVerifies runs systemd-analyze verify on the unit, which must say
// nothing (it warns of an unknown setting or a bad value, and exits 0), and
// holds its exposure level, as systemd-analyze security rates it, at 2.0 or
// below.
func TestUnitVerifies(t *testing.T) {
	needTool(t, "systemd-analyze", "systemd")
	path := verifiableUnit(t)
	out, err := exec.Command("systemd-analyze", "verify", path).CombinedOutput()
	if err != nil || len(bytes.TrimSpace(out)) > 0 {
		t.Fatalf("systemd-analyze verify: %v\n%s", err, out)
	}
	out, err = exec.Command("systemd-analyze", "security", "--offline=true", "--no-pager", "--threshold=20", path).CombinedOutput()
	if bytes.Contains(out, []byte("unrecognized option")) {
		t.Skipf("this systemd-analyze cannot rate a unit file offline: %s", bytes.TrimSpace(out))
	}
	m := regexp.MustCompile(`Overall exposure level for redirects.service: ([0-9.]+)`).FindSubmatch(out)
	if err != nil || m == nil {
		t.Fatalf("systemd-analyze security: %v\n%s", err, out)
	}
	level, _ := strconv.ParseFloat(string(m[1]), 64)
	t.Logf("exposure level %.1f (0 is the most confined, 10 the least)", level)
	if level > 2.0 {
		t.Errorf("exposure level %.1f, want at most 2.0:\n%s", level, out)
	}
}

// syscallSets returns the system calls of each set systemd-analyze knows
// (@system-service and the others), with nested sets expanded.
func syscallSets(t *testing.T) map[string][]string {
	t.Helper()
	out, err := exec.Command("systemd-analyze", "syscall-filter", "--no-pager").Output()
	if err != nil {
		t.Fatalf("systemd-analyze syscall-filter: %v", err)
	}
	raw := map[string][]string{}
	set := ""
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.TrimSpace(line)
		switch {
		case f == "" || f[0] == '#':
		case line[0] == '@':
			set = f
		case set != "":
			raw[set] = append(raw[set], f)
		}
	}
	var expand func(string, map[string]bool) []string
	expand = func(name string, seen map[string]bool) []string {
		if seen[name] {
			return nil
		}
		seen[name] = true
		var calls []string
		for _, c := range raw[name] {
			if c[0] == '@' {
				calls = append(calls, expand(c, seen)...)
			} else {
				calls = append(calls, c)
			}
		}
		return calls
	}
	sets := map[string][]string{}
	for name := range raw {
		sets[name] = expand(name, map[string]bool{})
	}
	return sets
}

// allowedSyscalls returns the system calls the unit's SystemCallFilter=
// lines allow: the first line's sets, less the sets of every line that
// starts with ~.
func allowedSyscalls(t *testing.T, u unit, sets map[string][]string) map[string]bool {
	t.Helper()
	lines := u["Service"]["SystemCallFilter"]
	if len(lines) == 0 || strings.HasPrefix(lines[0], "~") {
		t.Fatalf("SystemCallFilter= is not an allow list: %q", lines)
	}
	allowed := map[string]bool{}
	for _, line := range lines {
		deny := strings.HasPrefix(line, "~")
		for _, name := range strings.Fields(strings.TrimPrefix(line, "~")) {
			calls := []string{name}
			if name[0] == '@' {
				if calls = sets[name]; calls == nil {
					t.Fatalf("SystemCallFilter= names %s, which systemd-analyze does not know", name)
				}
			}
			for _, c := range calls {
				allowed[c] = !deny
			}
		}
	}
	return allowed
}

// TestUnitSyscalls runs "redirects serve" under strace, as a user that is
// not root (as the unit runs it), through a lookup, an export, a scrape of
// /metrics and a shutdown, and checks that every system call it made is one
// the unit's SystemCallFilter= allows: a call outside it would fail with
// EPERM under systemd. Code paths it does not take here (PostgreSQL, Redis)
// make the same kinds of calls (sockets, polling, timers).
func TestUnitSyscalls(t *testing.T) {
	needTool(t, "systemd-analyze", "systemd")
	needTool(t, "strace", "strace")
	allowed := allowedSyscalls(t, parseUnit(t, "redirects.service"), syscallSets(t))

	dir, err := os.MkdirTemp("", "redirects-syscalls-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	db := "sqlite:" + filepath.Join(dir, "redirects.db")
	cli := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(binary, args...)
		cmd.Env = append(os.Environ(), "REDIRECTS_DB="+db)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("redirects %s: %v", strings.Join(args, " "), err)
		}
		return strings.TrimSpace(string(out))
	}
	org := cli("org", "create", "--name", "Acme", "--tier", "pro")
	project := cli("project", "create", "--org", org, "--name", "www")
	cli("rule", "add", "--project", project, "--source", "/old", "--destination", "/new")
	cli("deploy", "--project", project)
	key := cli("key", "create", "--project", project)

	straceArgs := []string{"-f", "-qq", "-c", "-o", filepath.Join(dir, "syscalls.txt")}
	if os.Geteuid() == 0 {
		// As root, SQLite hands the files it creates to the database's
		// owner (fchown), which it does not do as the unit's user.
		nobody, err := user.Lookup("nobody")
		if err != nil {
			t.Skipf("running as root without a user nobody to serve as: %v", err)
		}
		uid, _ := strconv.Atoi(nobody.Uid)
		gid, _ := strconv.Atoi(nobody.Gid)
		if err := os.Chmod(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		err = filepath.Walk(dir, func(p string, _ os.FileInfo, err error) error {
			if err != nil {
				return err
			}
			return os.Chown(p, uid, gid)
		})
		if err != nil {
			t.Fatal(err)
		}
		straceArgs = append(straceArgs, "-u", "nobody")
	}
	cmd := exec.Command("strace", append(straceArgs, "--", binary, "serve")...)
	cmd.Env = append(os.Environ(), "REDIRECTS_DB="+db, "REDIRECTS_ADDR=127.0.0.1:0", "REDIRECTS_ADMIN_ADDR=127.0.0.1:0")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	serving := make(chan []string, 1)
	var logs strings.Builder
	go func() {
		sc := bufio.NewScanner(stderr)
		re := regexp.MustCompile(`msg=serving addr=(\S+) admin=(\S+)`)
		for sc.Scan() {
			logs.WriteString(sc.Text() + "\n")
			if m := re.FindStringSubmatch(sc.Text()); m != nil {
				serving <- m[1:]
			}
		}
		done <- cmd.Wait()
	}()
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			<-done
		}
	})
	var addrs []string
	select {
	case addrs = <-serving:
	case <-time.After(30 * time.Second):
		t.Fatal("redirects serve under strace did not start in 30 s")
	}
	get := func(url, key string) {
		t.Helper()
		req, err := http.NewRequest("GET", url, nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("X-API-Key", key)
		resp, err := (&http.Client{Timeout: 10 * time.Second}).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("GET %s: %d", url, resp.StatusCode)
		}
	}
	get("http://"+addrs[0]+"/v1/lookup?project="+project+"&path=/old", key)
	get("http://"+addrs[0]+"/v1/export?project="+project+"&format=nginx", key)
	get("http://"+addrs[1]+"/metrics", "")
	get("http://"+addrs[1]+"/readyz", "")

	// SIGTERM to the server, strace's child, not to strace.
	children, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/children", cmd.Process.Pid, cmd.Process.Pid))
	pid, perr := strconv.Atoi(strings.TrimSpace(string(children)))
	if err != nil || perr != nil {
		t.Fatalf("cannot find the server under strace (%q): %v %v", children, err, perr)
	}
	if err := syscall.Kill(pid, syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("redirects serve under strace: %v\n%s", err, logs.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("redirects serve did not stop within 30 s of SIGTERM")
	}

	summary, err := os.ReadFile(filepath.Join(dir, "syscalls.txt"))
	if err != nil {
		t.Fatal(err)
	}
	var used, refused []string
	for _, line := range strings.Split(string(summary), "\n") {
		f := strings.Fields(line)
		if len(f) < 5 || f[0] == "%" || strings.HasPrefix(f[0], "---") || f[len(f)-1] == "total" {
			continue
		}
		name := f[len(f)-1]
		used = append(used, name)
		if !allowed[name] {
			refused = append(refused, name)
		}
	}
	if len(used) < 20 {
		t.Fatalf("strace counted %d system calls; its summary:\n%s", len(used), summary)
	}
	t.Logf("%d system calls made, all allowed: %v", len(used), len(refused) == 0)
	if len(refused) > 0 {
		t.Errorf("system calls that SystemCallFilter= refuses: %v\nstrace's summary:\n%s", refused, summary)
	}
}

// TestSyncUnit checks the sync agent's unit: it runs `redirects sync` from
// its config file as the unprivileged user redirects-sync, writes only the
// directories it keeps current, and systemd-analyze verify says nothing of
// it.
func TestSyncUnit(t *testing.T) {
	u := parseUnit(t, "redirects-sync.service")
	for _, c := range []struct{ section, key, want string }{
		{"Service", "ExecStart", "/usr/local/bin/redirects sync --config /etc/redirects/sync.conf --metrics-addr 127.0.0.1:9465"},
		{"Service", "User", "redirects-sync"},
		{"Service", "ProtectSystem", "strict"},
		{"Service", "Restart", "on-failure"},
		{"Install", "WantedBy", "multi-user.target"},
	} {
		if got := u.get(c.section, c.key); got != c.want {
			t.Errorf("[%s] %s=%s, want %s", c.section, c.key, got, c.want)
		}
	}
	if u.get("Service", "User") == "root" || u.get("Service", "DynamicUser") == "yes" {
		t.Error("the agent must run as its own system user (sudoers and file ownership name it)")
	}
	needTool(t, "systemd-analyze", "systemd")
	b, err := os.ReadFile("redirects-sync.service")
	if err != nil {
		t.Fatal(err)
	}
	b = bytes.Replace(b, []byte("ExecStart=/usr/local/bin/redirects "), []byte("ExecStart="+binary+" "), 1)
	path := filepath.Join(t.TempDir(), "redirects-sync.service")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("systemd-analyze", "verify", path).CombinedOutput()
	if err != nil || len(bytes.TrimSpace(out)) > 0 {
		t.Fatalf("systemd-analyze verify: %v\n%s", err, out)
	}
}
