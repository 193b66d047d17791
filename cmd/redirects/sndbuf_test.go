package main_test

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestNonReadingExportClientsHoldLittleKernelMemory checks, on each edge
// engine, that what the kernel holds for an export client that never reads
// is capped (SO_SNDBUF, 256 KiB, which Linux doubles for its bookkeeping):
// the server's send queue of such a connection, read with ss(8), stays
// under 768 KiB however large the file. Without the cap Linux grows a
// connection's send buffer up to net.ipv4.tcp_wmem's maximum (4 MiB by
// default), and many such clients took the host's TCP memory (issue #24,
// finding 4).
func TestNonReadingExportClientsHoldLittleKernelMemory(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads the send queue with ss(8), Linux only")
	}
	if _, err := exec.LookPath("ss"); err != nil {
		t.Skip("no ss(8)")
	}
	eachEngine(t, func(t *testing.T, c *cli) {
		org := c.ok("org", "create", "--name", "Acme", "--tier", "enterprise")
		p := c.ok("project", "create", "--org", org, "--name", "www")
		var csv strings.Builder
		csv.WriteString("source,destination,statusCode,matchType\n")
		for i := range 60000 {
			fmt.Fprintf(&csv, "/old/a-rather-long-page-name-%06d,/new/a-rather-long-page-name-%06d,301,exact\n", i, i)
		}
		file := t.TempDir() + "/rules.csv"
		if err := os.WriteFile(file, []byte(csv.String()), 0o600); err != nil {
			t.Fatal(err)
		}
		c.ok("rule", "import", "--project", p, file)
		c.ok("deploy", "--project", p)
		key := c.ok("key", "create", "--project", p)
		s := startServeProcess(t, c)
		addr := strings.TrimPrefix(s.base, "http://")
		_, port, _ := net.SplitHostPort(addr)

		var conns []net.Conn
		defer func() {
			for _, conn := range conns {
				conn.Close()
			}
		}()
		for range 4 {
			conn, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			conns = append(conns, conn)
			fmt.Fprintf(conn, "GET /v1/export?project=%s&format=haproxy HTTP/1.1\r\nHost: x\r\nX-API-Key: %s\r\n\r\n", p, key)
			conn.SetReadDeadline(time.Now().Add(5 * time.Second))
			line, err := bufio.NewReaderSize(conn, 64).ReadString('\n')
			if err != nil || !strings.HasPrefix(line, "HTTP/1.1 200") {
				t.Fatalf("export: %q, %v", line, err)
			}
		}
		// The queue fills within milliseconds on loopback; wait for it
		// to stop growing.
		var most int
		for range 10 {
			time.Sleep(200 * time.Millisecond)
			out, err := exec.Command("ss", "-tnH", "state", "established", "( sport = :"+port+" )").Output()
			if err != nil {
				t.Fatalf("ss: %v", err)
			}
			most = 0
			n := 0
			for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
				f := strings.Fields(line)
				if len(f) < 2 {
					continue
				}
				q, _ := strconv.Atoi(f[1])
				most = max(most, q)
				n++
			}
			if n < len(conns) {
				t.Fatalf("ss saw %d of the %d connections:\n%s", n, len(conns), out)
			}
		}
		t.Logf("largest send queue of a non-reading export client: %d KiB", most>>10)
		if most > 768<<10 {
			t.Errorf("a non-reading export client's send queue holds %d KiB; want the 256 KiB SO_SNDBUF cap to bound it under 768 KiB", most>>10)
		}
	})
}
