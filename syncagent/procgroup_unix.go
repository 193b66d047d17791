//go:build unix

package syncagent

import (
	"os/exec"
	"syscall"
)

// killGroupOnCancel starts cmd in a process group of its own and has its
// cancellation kill the whole group: the shell and whatever it started.
func killGroupOnCancel(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		// The group's ID is the shell's process ID (Setpgid).
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
