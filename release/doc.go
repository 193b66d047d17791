// Package release holds the tests of the release build, release/build: that
// two builds of one commit are byte-identical, that the archives hold what
// they should with fixed owners, modes and times, and that the binary from
// the linux/amd64 archive serves the quickstart on a machine without Go.
//
// The tests run the linux/amd64 target only (on a linux/amd64 machine), so
// they stay cheap; .ci/run runs the whole script for every platform.
package release
