// Package servertest runs real nginx and haproxy processes on 127.0.0.1 for
// tests: the configuration skeletons, a start that waits until every port
// listens and kills the process when the test ends, and free ports. The
// export package's differential tests and the safety package's tests share it.
package servertest

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"redirects/internal/testreport"
)

// LookPath returns the path of the named server binary, or skips the test
// with a message saying how to install it.
func LookPath(t testing.TB, name string) string {
	t.Helper()
	suite := map[string]string{"nginx": testreport.Nginx, "haproxy": testreport.HAProxy, "apache2": testreport.Apache}[name]
	if suite == "" {
		suite = name
	}
	bin, err := exec.LookPath(name)
	if err != nil {
		testreport.Skip(t, suite, fmt.Sprintf("%s is not on PATH: skipping the test against a real %s (apt-get install nginx-light haproxy apache2)", name, name))
	}
	testreport.Ran(t, suite)
	return bin
}

// Check runs a configuration test (nginx -t, haproxy -c) and fails with its
// output unless it passes.
func Check(t testing.TB, bin string, args ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, bin, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", bin, strings.Join(args, " "), err, out)
	}
}

// Start runs a server in the foreground until the test ends, waits until it
// accepts connections on every port and returns its process id.
func Start(t testing.TB, ports []int, bin string, args ...string) int {
	t.Helper()
	// The output goes to a file, read only once the server has exited or
	// the test fails, so no reader races the process's writes.
	log := filepath.Join(t.TempDir(), filepath.Base(bin)+".log")
	out, err := os.Create(log)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	output := func() string { b, _ := os.ReadFile(log); return string(b) }
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	// The server is stopped by its process id: SIGTERM (nginx's master, or
	// its one process with master_process off, stops its workers and
	// exits; haproxy stops), then SIGKILL if it has not exited in ten
	// seconds.
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-exited
		}
	})
	deadline := time.Now().Add(2 * time.Minute)
	for _, port := range ports {
		for {
			c, err := net.DialTimeout("tcp", "127.0.0.1:"+strconv.Itoa(port), time.Second)
			if err == nil {
				c.Close()
				break
			}
			select {
			case <-exited:
				t.Fatalf("%s exited: %s", bin, output())
			default:
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s does not listen on %d after 2 minutes: %s", bin, port, output())
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	return cmd.Process.Pid
}

// FreePort returns a TCP port on 127.0.0.1 that was free a moment ago and
// that no other caller holds until the test ends: not this process (two
// binds to port 0 may return the same port once the first is closed), and
// not another test process of the same machine (go test runs packages in
// parallel), through a lock file per port in the temporary directory, held
// until the test's cleanup, which runs after the servers it started have
// stopped. Before this, two haproxy processes of two packages could both
// listen on one port (haproxy sets SO_REUSEPORT) and the kernel shared the
// connections between them, so half of one test's requests were answered by
// the other test's configuration.
func FreePort(t testing.TB) int {
	t.Helper()
	dir := filepath.Join(os.TempDir(), "redirects-test-ports")
	if err := os.MkdirAll(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	for range 1000 {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		port := l.Addr().(*net.TCPAddr).Port
		l.Close()
		portsMu.Lock()
		taken := portsHeld[port]
		portsHeld[port] = true
		portsMu.Unlock()
		if taken {
			continue
		}
		f, err := os.OpenFile(filepath.Join(dir, strconv.Itoa(port)), os.O_CREATE|os.O_RDWR, 0o666)
		if err != nil {
			t.Fatal(err)
		}
		if err := lockFile(f); err != nil {
			f.Close()
			release(port)
			continue
		}
		t.Cleanup(func() {
			f.Close() // closing the file releases its lock
			release(port)
		})
		return port
	}
	t.Fatal("no free port on 127.0.0.1 after 1000 tries")
	return 0
}

var (
	portsMu   sync.Mutex
	portsHeld = map[int]bool{}
)

func release(port int) {
	portsMu.Lock()
	delete(portsHeld, port)
	portsMu.Unlock()
}

// WriteFile writes body to path or fails the test.
func WriteFile(t testing.TB, path string, body []byte) {
	t.Helper()
	if err := os.WriteFile(path, body, 0o644); err != nil {
		t.Fatal(err)
	}
}

// NginxConf returns a minimal nginx configuration that keeps every file in
// dir, with httpLines in the http block and one server per port, each with
// the lines of servers[i]. "/etc/nginx/" in the lines becomes dir. A path no
// location takes gets a 404.
func NginxConf(dir, httpLines string, servers []string, ports []int) string {
	var b strings.Builder
	fmt.Fprintf(&b, `daemon off;
master_process off;
worker_processes 1;
error_log %[1]s/error.log;
pid %[1]s/nginx.pid;
events { worker_connections 512; }
http {
    access_log off;
    client_body_temp_path %[1]s/client_body;
    proxy_temp_path %[1]s/proxy;
    fastcgi_temp_path %[1]s/fastcgi;
    uwsgi_temp_path %[1]s/uwsgi;
    scgi_temp_path %[1]s/scgi;
`, dir)
	indent(&b, strings.ReplaceAll(httpLines, "/etc/nginx/", dir+"/"), "    ")
	for i, s := range servers {
		fmt.Fprintf(&b, "    server {\n        listen 127.0.0.1:%d;\n        root %s/no-root;\n", ports[i], dir)
		indent(&b, strings.ReplaceAll(s, "/etc/nginx/", dir+"/"), "        ")
		b.WriteString("    }\n")
	}
	b.WriteString("}\n")
	return b.String()
}

// HAProxyHead is the minimal global and defaults sections of a test
// configuration; the frontends follow. noreuseport: a port another process
// listens on makes haproxy fail to start, saying so, where SO_REUSEPORT
// would have let both listen and share the connections.
const HAProxyHead = `global
    maxconn 512
    noreuseport
defaults
    mode http
    timeout connect 5s
    timeout client 30s
    timeout server 30s
`

// HAProxyFrontend returns a frontend listening on port with the lines of
// body, "/etc/haproxy/" in them made dir, answering 204 to what they leave.
func HAProxyFrontend(name string, port int, dir, body string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "frontend %s\n    bind 127.0.0.1:%d\n", name, port)
	indent(&b, strings.ReplaceAll(body, "/etc/haproxy/", dir+"/"), "    ")
	b.WriteString("    http-request return status 204\n")
	return b.String()
}

func indent(b *strings.Builder, s, prefix string) {
	for line := range strings.SplitSeq(strings.TrimSuffix(s, "\n"), "\n") {
		b.WriteString(prefix + line + "\n")
	}
}

// ApacheModules is where Debian's apache2 keeps its modules.
const ApacheModules = "/usr/lib/apache2/modules"

// ApacheConf returns a minimal Apache httpd configuration that keeps every
// file in dir (the ServerRoot, the pid file, the error log and the document
// root dir/htdocs, where an .htaccess file is read), listens on 127.0.0.1:port,
// loads mod_alias and mod_rewrite, and has the lines of body in the main
// server. Start it with Start(t, []int{port}, bin, "-DFOREGROUND", "-f", conf):
// SIGTERM to that process stops it and its children.
func ApacheConf(dir string, port int, body string) string {
	var b strings.Builder
	fmt.Fprintf(&b, `ServerRoot %[1]s
DefaultRuntimeDir %[1]s
Listen 127.0.0.1:%[2]d
LoadModule mpm_event_module %[3]s/mod_mpm_event.so
LoadModule authz_core_module %[3]s/mod_authz_core.so
LoadModule alias_module %[3]s/mod_alias.so
LoadModule rewrite_module %[3]s/mod_rewrite.so
PidFile %[1]s/httpd.pid
ErrorLog %[1]s/error.log
ServerName 127.0.0.1
DocumentRoot %[1]s/htdocs
<Directory %[1]s/htdocs>
    AllowOverride All
    Require all granted
</Directory>
`, dir, port, ApacheModules)
	b.WriteString(body)
	if !strings.HasSuffix(body, "\n") {
		b.WriteString("\n")
	}
	return b.String()
}
