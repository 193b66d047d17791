//go:build !unix

package manage

import "time"

// cpuTime returns 0: only Unix systems report the process's CPU time here.
func cpuTime() time.Duration { return 0 }
