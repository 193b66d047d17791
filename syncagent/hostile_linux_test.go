package syncagent

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestCheckKilledWhole: a check that outlives the timeout is killed with
// every process it started (its process group), the agent returns with
// the check's failure, and the file in place is put back.
func TestCheckKilledWhole(t *testing.T) {
	defer func(d time.Duration) { commandTimeout = d }(commandTimeout)
	commandTimeout = 300 * time.Millisecond
	body := []byte("/a /b;\n")
	out := oldFile(t)
	pidFile := filepath.Join(t.TempDir(), "pid")
	// The odd duration names the sleep, so that the test can find it.
	const sleep = "sleep 420.0417"
	t.Cleanup(func() { killSleeps(sleep) })
	a := &Agent{Targets: []Target{{Name: "slow", Edge: hostileEdge(t, body, body, false), Key: "redir_live_x", Project: "p", Format: "nginx-map-exact", Out: out,
		Check: "echo $$ > " + pidFile + "; " + sleep + "; true"}}}
	done := make(chan error, 1)
	go func() { _, err := a.Once(context.Background()); done <- err }()
	var err error
	select {
	case err = <-done:
	case <-time.After(time.Minute):
		t.Fatalf("Once did not return a minute after the check's %v timeout", commandTimeout)
	}
	if err == nil || !strings.Contains(err.Error(), "check") || !strings.Contains(err.Error(), "killed after") {
		t.Errorf("Once with a check past its timeout: %v, want the check's failure, killed", err)
	}
	assertKept(t, out)
	b, rerr := os.ReadFile(pidFile)
	pgid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	if rerr != nil || pgid <= 1 {
		t.Fatalf("the check wrote no process ID (%v): %q", rerr, b)
	}
	if pgid == syscall.Getpgrp() {
		t.Fatalf("the check ran in the agent's own process group %d", pgid)
	}
	// The kill is sent before Once returns; the processes are gone once
	// reaped.
	var left []string
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if left = liveProcesses(func(pgrp int, cmdline string) bool { return pgrp == pgid || cmdline == sleep }); len(left) == 0 {
			return
		}
	}
	t.Errorf("processes of the killed check remain: %q", left)
}

// liveProcesses lists the processes (not zombies) for which match holds,
// from /proc, as "PID CMDLINE".
func liveProcesses(match func(pgrp int, cmdline string) bool) []string {
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	var found []string
	for _, d := range dirs {
		stat, err := os.ReadFile(d + "/stat")
		if err != nil {
			continue
		}
		// After the command name, in parentheses: state, ppid, pgrp.
		i := bytes.LastIndexByte(stat, ')')
		f := strings.Fields(string(stat[i+1:]))
		if len(f) < 3 || f[0] == "Z" {
			continue
		}
		pgrp, _ := strconv.Atoi(f[2])
		cmd, _ := os.ReadFile(d + "/cmdline")
		cmdline := strings.TrimSpace(strings.ReplaceAll(string(cmd), "\x00", " "))
		if match(pgrp, cmdline) {
			found = append(found, filepath.Base(d)+" "+cmdline)
		}
	}
	return found
}

// killSleeps kills what is left of the test's check, found by its command
// line, should the test fail.
func killSleeps(cmdline string) {
	for _, p := range liveProcesses(func(_ int, c string) bool { return c == cmdline }) {
		pid, _ := strconv.Atoi(strings.Fields(p)[0])
		syscall.Kill(pid, syscall.SIGKILL)
	}
}
