//go:build unix

package plan

import "syscall"

// openNonblock opens a named pipe without waiting for a writer.
const openNonblock = syscall.O_NONBLOCK
