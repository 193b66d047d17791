// Package version tells which build of redirects is running: its semantic
// version, the commit it was built from and when that commit was made.
//
// A release build (release/build) stamps Version, Commit and Date with
// -ldflags -X. A plain "go build" or "go install" leaves them empty, and Get
// falls back to what the Go toolchain records in the binary
// (runtime/debug.ReadBuildInfo): the module version and the VCS revision and
// time, so even a developer's build reports the commit it came from.
//
// The package imports nothing of the project, so that cmd/redirects and the
// http package can both read it without importing upward.
package version

import (
	"runtime"
	"runtime/debug"
)

// Version, Commit and Date are set by the release build:
//
//	-ldflags "-X redirects/internal/version.Version=v0.1.0
//	          -X redirects/internal/version.Commit=<full commit hash>
//	          -X redirects/internal/version.Date=<commit time, RFC 3339 UTC>"
//
// They are variables, not constants, because -X can only set variables.
var (
	Version string
	Commit  string
	Date    string
)

// Unknown stands for a field neither the release build nor the toolchain
// recorded.
const Unknown = "unknown"

// Info is one build's identity.
type Info struct {
	// Version is a semantic version with a leading "v" (v0.1.0), a Go
	// pseudo-version for untagged builds made with "go build", or "devel"
	// when the toolchain recorded none.
	Version string
	// Commit is the full commit hash, with "-dirty" appended when a plain
	// "go build" saw uncommitted changes; Unknown when not recorded.
	Commit string
	// Date is the commit's time (RFC 3339, UTC), never the time of the
	// build, so that two builds of one commit are identical; Unknown when
	// not recorded.
	Date string
	// GoVersion is the toolchain that built the binary (go1.26.8).
	GoVersion string
}

// Get returns the running binary's build identity.
func Get() Info {
	return get(Version, Commit, Date, readBuildInfo)
}

// readBuildInfo is debug.ReadBuildInfo, replaced in tests.
var readBuildInfo = debug.ReadBuildInfo

func get(version, commit, date string, read func() (*debug.BuildInfo, bool)) Info {
	info := Info{Version: version, Commit: commit, Date: date, GoVersion: runtime.Version()}
	if bi, ok := read(); ok {
		if bi.GoVersion != "" {
			info.GoVersion = bi.GoVersion
		}
		if info.Version == "" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			info.Version = bi.Main.Version
		}
		var revision, modified, vcsTime string
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				revision = s.Value
			case "vcs.modified":
				modified = s.Value
			case "vcs.time":
				vcsTime = s.Value
			}
		}
		if info.Commit == "" && revision != "" {
			info.Commit = revision
			if modified == "true" {
				info.Commit += "-dirty"
			}
		}
		if info.Date == "" {
			info.Date = vcsTime
		}
	}
	if info.Version == "" {
		info.Version = "devel"
	}
	if info.Commit == "" {
		info.Commit = Unknown
	}
	if info.Date == "" {
		info.Date = Unknown
	}
	return info
}

// String is the line "redirects --version" prints, the version first and
// the rest as key=value pairs so scripts can read them:
//
//	redirects v0.1.0 commit=2b1635b0... built=2026-11-22T15:00:00Z go=go1.26.8 platform=linux/amd64
//
// built is the commit's time (see Date).
func (i Info) String() string {
	return "redirects " + i.Version + " commit=" + i.Commit + " built=" + i.Date + " go=" + i.GoVersion + " platform=" + runtime.GOOS + "/" + runtime.GOARCH
}
