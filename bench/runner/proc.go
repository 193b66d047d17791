//go:build linux

package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// proc is a long-running child process (a server) started by the runner.
type proc struct {
	name string
	cmd  *exec.Cmd
	log  string // file holding its stdout and stderr
	done chan struct{}
	err  error // set before done is closed
}

// procs remembers every running child, so that cleanup can stop them all
// whatever went wrong.
type procs struct {
	mu  sync.Mutex
	set map[*proc]struct{}
}

// childAttr puts a child in its own process group (so a terminal's Ctrl-C
// reaches only the runner, which then stops it in order) and has the kernel
// kill it should the runner die without cleaning up.
func childAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// start runs argv in the background with its output in logPath.
func (ps *procs) start(name, logPath string, env []string, argv ...string) (*proc, error) {
	f, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdout, cmd.Stderr = f, f
	cmd.Env = append(os.Environ(), env...)
	cmd.SysProcAttr = childAttr()
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	p := &proc{name: name, cmd: cmd, log: logPath, done: make(chan struct{})}
	ps.mu.Lock()
	if ps.set == nil {
		ps.set = map[*proc]struct{}{}
	}
	ps.set[p] = struct{}{}
	ps.mu.Unlock()
	go func() {
		p.err = cmd.Wait()
		close(p.done)
	}()
	return p, nil
}

func (p *proc) pid() int { return p.cmd.Process.Pid }

// exited reports whether the process has ended.
func (p *proc) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// tail returns the last lines of the process's log, for error messages.
func (p *proc) tail() string {
	b, _ := os.ReadFile(p.log)
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > 15 {
		lines = lines[len(lines)-15:]
	}
	return "    " + strings.Join(lines, "\n    ")
}

// stop ends the process: SIGTERM to its group, SIGKILL after 5 s; it
// waits at most 7 s in all.
func (ps *procs) stop(p *proc) {
	if p == nil {
		return
	}
	if !p.exited() {
		_ = syscall.Kill(-p.pid(), syscall.SIGTERM)
		select {
		case <-p.done:
		case <-time.After(5 * time.Second):
			_ = syscall.Kill(-p.pid(), syscall.SIGKILL)
			select {
			case <-p.done:
			case <-time.After(2 * time.Second):
			}
		}
	}
	ps.mu.Lock()
	delete(ps.set, p)
	ps.mu.Unlock()
}

// stopAll stops every process still running, all at once.
func (ps *procs) stopAll() {
	ps.mu.Lock()
	var all []*proc
	for p := range ps.set {
		all = append(all, p)
	}
	ps.mu.Unlock()
	var wg sync.WaitGroup
	for _, p := range all {
		wg.Add(1)
		go func() { defer wg.Done(); ps.stop(p) }()
	}
	wg.Wait()
}

// command runs argv to completion within timeout (and ctx), returning its
// stdout and stderr and how long it took.
func command(ctx context.Context, timeout time.Duration, env []string, argv ...string) (stdout, stderr string, took time.Duration, err error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), env...)
	cmd.SysProcAttr = childAttr()
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	t0 := time.Now()
	err = cmd.Run()
	took = time.Since(t0)
	if err != nil {
		msg := strings.TrimSpace(e.String())
		if ctx.Err() == context.DeadlineExceeded {
			err = fmt.Errorf("%s: no answer within %s", strings.Join(argv, " "), timeout)
		} else if ctx.Err() != nil {
			err = ctx.Err()
		} else {
			err = fmt.Errorf("%s: %w: %s", strings.Join(argv, " "), err, msg)
		}
	}
	return o.String(), e.String(), took, err
}

// cpuTicks returns utime+stime of a process, in clock ticks, from
// /proc/PID/stat.
func cpuTicks(pid int) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The command name (field 2) is in parentheses and may hold spaces.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, errors.New("unreadable /proc stat")
	}
	f := strings.Fields(string(b[i+1:]))
	// f[0] is field 3 (state); utime and stime are fields 14 and 15.
	if len(f) < 13 {
		return 0, errors.New("short /proc stat")
	}
	u, err1 := strconv.ParseInt(f[11], 10, 64)
	s, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, errors.New("bad /proc stat")
	}
	return u + s, nil
}

// treeTicks returns utime+stime of a process and of its children (nginx's
// workers under its master), in clock ticks.
func treeTicks(pid int) (int64, error) {
	t, err := cpuTicks(pid)
	if err != nil {
		return 0, err
	}
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/children", pid))
	for _, f := range tasks {
		b, _ := os.ReadFile(f)
		for _, c := range strings.Fields(string(b)) {
			if child, err := strconv.Atoi(c); err == nil {
				if ct, err := treeTicks(child); err == nil {
					t += ct
				}
			}
		}
	}
	return t, nil
}

// peakRSS returns VmHWM from /proc/PID/status, in bytes.
func peakRSS(pid int) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			f := strings.Fields(v)
			if len(f) == 2 && f[1] == "kB" {
				n, err := strconv.ParseInt(f[0], 10, 64)
				return n * 1024, err
			}
		}
	}
	return 0, errors.New("no VmHWM")
}
