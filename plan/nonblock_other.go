//go:build !unix

package plan

// openNonblock is 0 where opening a named pipe does not wait for a writer
// through os.Root (Windows has no named pipes in its file system).
const openNonblock = 0
