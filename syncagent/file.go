package syncagent

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// replaceFile writes body to path atomically: a temporary file in the same
// directory, synced, renamed over path. It returns a function that puts the
// previous file back (or removes path when there was none), and one that
// lets the previous file go.
func replaceFile(path string, body []byte) (restore func() error, keep func(), err error) {
	dir, base := filepath.Dir(path), filepath.Base(path)
	mode := os.FileMode(0o644)
	prev := ""
	if fi, err := os.Stat(path); err == nil {
		mode = fi.Mode().Perm()
		// A hard link keeps the previous file whole while the new one is
		// renamed over its name.
		prev = filepath.Join(dir, "."+base+".prev")
		os.Remove(prev)
		if err := os.Link(path, prev); err != nil {
			return nil, nil, fmt.Errorf("keeping the previous file: %w", err)
		}
	}
	tmp, err := os.CreateTemp(dir, "."+base+".new-*")
	if err != nil {
		if prev != "" {
			os.Remove(prev)
		}
		return nil, nil, err
	}
	defer os.Remove(tmp.Name())
	_, err = tmp.Write(body)
	if err == nil {
		err = tmp.Chmod(mode)
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err == nil {
		syncDir(dir)
	}
	if err != nil {
		if prev != "" {
			os.Remove(prev)
		}
		return nil, nil, err
	}
	restore = func() error {
		if prev == "" {
			return os.Remove(path)
		}
		err := os.Rename(prev, path)
		syncDir(dir)
		return err
	}
	keep = func() {
		if prev != "" {
			os.Remove(prev)
		}
	}
	return restore, keep, nil
}

func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}

// commandTimeout bounds a check or a reload. A variable so that tests can
// shorten it.
var commandTimeout = 5 * time.Minute

// commandWaitDelay bounds the wait for the command's output once its
// process group is killed: a child that escaped the group and holds the
// output pipe cannot keep the agent (and the server's lock) waiting.
const commandWaitDelay = 5 * time.Second

// runCommand runs a command line with sh -c, in a process group of its
// own: at the timeout (or when ctx ends) the whole group is killed, so a
// `sleep` or a daemon the line started goes with the shell. Its error
// carries the end of the command's output.
func runCommand(ctx context.Context, line string) error {
	ctx, cancel := context.WithTimeout(ctx, commandTimeout)
	defer cancel()
	var out bytes.Buffer
	cmd := exec.CommandContext(ctx, "sh", "-c", line)
	cmd.Stdout, cmd.Stderr = &out, &out
	killGroupOnCancel(cmd)
	cmd.WaitDelay = commandWaitDelay
	if err := cmd.Run(); err != nil {
		if ctx.Err() == context.DeadlineExceeded {
			err = fmt.Errorf("killed after %v: %w", commandTimeout, err)
		}
		msg := strings.TrimSpace(out.String())
		if len(msg) > 2048 {
			msg = "..." + msg[len(msg)-2048:]
		}
		if msg != "" {
			return fmt.Errorf("%q: %v: %s", line, err, msg)
		}
		return fmt.Errorf("%q: %v", line, err)
	}
	return nil
}
