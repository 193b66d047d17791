//go:build !unix

package servertest

import "os"

// lockFile holds nothing where flock(2) is missing: there FreePort only
// keeps the ports of this process apart. The servers the tests run (nginx,
// haproxy, apache) run on Linux.
func lockFile(*os.File) error { return nil }
