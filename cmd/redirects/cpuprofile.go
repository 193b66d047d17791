//go:build cpuprofile

package main

import (
	"os"
	"runtime/pprof"
)

// Built with -tags cpuprofile, the binary writes a CPU profile of the whole
// command to the file REDIRECTS_CPUPROFILE names, for the benchmarks of
// BENCHMARKS.md (`go tool pprof -top`). Release builds have no such hook.
func init() {
	path := os.Getenv("REDIRECTS_CPUPROFILE")
	if path == "" {
		return
	}
	f, err := os.Create(path)
	if err != nil {
		panic(err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		panic(err)
	}
	profileStop = func() { pprof.StopCPUProfile(); f.Close() }
}
