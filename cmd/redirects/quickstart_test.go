package main_test

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestQuickstart runs "redirects quickstart" as the README shows and runs
// the curl commands it prints. With no redirects binary on PATH, its last
// line suggests the command by the path it was started by, never a bare
// "redirects" that the shell would not find.
func TestQuickstart(t *testing.T) {
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("curl is not installed (apt-get install curl)")
	}
	dir := t.TempDir()
	run := func() []string {
		cmd := exec.Command(binary(t), "quickstart", "--addr", "127.0.0.1:0", "--admin-addr", "127.0.0.1:0")
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "REDIRECTS_DB=", "PATH="+t.TempDir())
		var logs syncBuffer
		cmd.Stderr = &logs
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		defer func() {
			cmd.Process.Signal(syscall.SIGTERM)
			if err := cmd.Wait(); err != nil {
				t.Errorf("quickstart exited with %v after SIGTERM; logs:\n%s", err, logs.String())
			}
			noDataRace(t, logs.String())
		}()
		lines := make(chan string)
		go func() {
			sc := bufio.NewScanner(out)
			for sc.Scan() {
				lines <- sc.Text()
			}
			close(lines)
		}()
		var curls []string
		deadline := time.After(20 * time.Second)
		for len(curls) < 3 {
			select {
			case l, ok := <-lines:
				if !ok {
					t.Fatalf("quickstart ended early; curl commands seen: %q", curls)
				}
				if strings.HasPrefix(l, "curl ") {
					curls = append(curls, l)
				}
			case <-deadline:
				t.Fatalf("quickstart printed no three curl commands in 20 s")
			}
		}
		for last := ""; !strings.HasPrefix(last, "Press Ctrl-C"); {
			select {
			case l, ok := <-lines:
				if !ok {
					t.Fatal("quickstart ended early, before its last line")
				}
				last = l
			case <-deadline:
				t.Fatal("quickstart printed no last line in 20 s")
			}
			if strings.HasPrefix(last, "Press Ctrl-C") && !strings.Contains(last, "Manage rules with: "+binary(t)+" rule add --project ") {
				t.Errorf("with no redirects on PATH, the last line is %q; want it to name %s", last, binary(t))
			}
		}
		var outs []string
		for _, c := range curls {
			o, err := exec.Command("sh", "-c", c+" --silent --show-error --max-time 5").CombinedOutput()
			if err != nil {
				t.Fatalf("%s: %v\n%s", c, err, o)
			}
			outs = append(outs, strings.ReplaceAll(string(o), "\r\n", "\n"))
		}
		return outs
	}
	outs := run()
	if !strings.Contains(outs[0], "HTTP/1.1 200") || !strings.Contains(outs[0], `{"destination":"https://blog.example.com/archive/2019","statusCode":301,"matchType":"starts_with"}`) {
		t.Fatalf("the lookup hit answered:\n%s", outs[0])
	}
	if !strings.Contains(outs[1], "HTTP/1.1 204") {
		t.Fatalf("the lookup miss answered:\n%s", outs[1])
	}
	if !strings.Contains(outs[2], "location = /about-us { return 301 /about; }") {
		t.Fatalf("the nginx export answered:\n%s", outs[2])
	}
	if _, err := os.Stat(filepath.Join(dir, "redirects.db")); err != nil {
		t.Fatalf("quickstart did not create redirects.db in the working directory: %v", err)
	}
	// A second run reuses the database: same project, a new key.
	again := run()
	if again[0] != outs[0] && !strings.Contains(again[0], "HTTP/1.1 200") {
		t.Fatalf("second quickstart lookup:\n%s", again[0])
	}
}
