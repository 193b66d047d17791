//go:build !unix

package storetest

import "time"

// processCPU returns 0 where the process's CPU time is not read: the
// benchmarks' cpu-ns/row then reads 0.
func processCPU() time.Duration { return 0 }
