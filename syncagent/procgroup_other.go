//go:build !unix

package syncagent

import "os/exec"

// killGroupOnCancel leaves cmd as exec.CommandContext has it where there
// are no process groups: cancellation kills the shell, and WaitDelay
// bounds the wait for what it started.
func killGroupOnCancel(*exec.Cmd) {}
