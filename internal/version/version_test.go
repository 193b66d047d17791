package version

import (
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
)

func buildInfo(version string, settings ...string) func() (*debug.BuildInfo, bool) {
	return func() (*debug.BuildInfo, bool) {
		bi := &debug.BuildInfo{GoVersion: "go1.99.1", Main: debug.Module{Path: "redirects", Version: version}}
		for i := 0; i+1 < len(settings); i += 2 {
			bi.Settings = append(bi.Settings, debug.BuildSetting{Key: settings[i], Value: settings[i+1]})
		}
		return bi, true
	}
}

func TestGet(t *testing.T) {
	const rev = "2b1635b0c0ffee0123456789abcdef0123456789"
	for _, tc := range []struct {
		name                  string
		version, commit, date string
		read                  func() (*debug.BuildInfo, bool)
		want                  Info
	}{
		{
			name:    "stamped by the release build",
			version: "v0.1.0", commit: rev, date: "2026-11-22T15:00:00Z",
			read: buildInfo("(devel)"),
			want: Info{Version: "v0.1.0", Commit: rev, Date: "2026-11-22T15:00:00Z", GoVersion: "go1.99.1"},
		},
		{
			name:    "stamps win over what the toolchain recorded",
			version: "v0.2.0", commit: rev, date: "2026-11-22T15:00:00Z",
			read: buildInfo("v0.0.0-20260101000000-000000000000", "vcs.revision", "0000", "vcs.time", "2026-01-01T00:00:00Z"),
			want: Info{Version: "v0.2.0", Commit: rev, Date: "2026-11-22T15:00:00Z", GoVersion: "go1.99.1"},
		},
		{
			name: "plain go build of a tagged commit",
			read: buildInfo("v0.1.0", "vcs", "git", "vcs.revision", rev, "vcs.time", "2026-11-22T15:00:00Z", "vcs.modified", "false"),
			want: Info{Version: "v0.1.0", Commit: rev, Date: "2026-11-22T15:00:00Z", GoVersion: "go1.99.1"},
		},
		{
			name: "plain go build with uncommitted changes",
			read: buildInfo("v0.1.1-0.20261122150000-2b1635b0c0ff+dirty", "vcs.revision", rev, "vcs.time", "2026-11-22T15:00:00Z", "vcs.modified", "true"),
			want: Info{Version: "v0.1.1-0.20261122150000-2b1635b0c0ff+dirty", Commit: rev + "-dirty", Date: "2026-11-22T15:00:00Z", GoVersion: "go1.99.1"},
		},
		{
			name: "build outside version control",
			read: buildInfo("(devel)"),
			want: Info{Version: "devel", Commit: Unknown, Date: Unknown, GoVersion: "go1.99.1"},
		},
		{
			name: "no build information at all",
			read: func() (*debug.BuildInfo, bool) { return nil, false },
			want: Info{Version: "devel", Commit: Unknown, Date: Unknown, GoVersion: runtime.Version()},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := get(tc.version, tc.commit, tc.date, tc.read); got != tc.want {
				t.Fatalf("get = %+v\nwant  %+v", got, tc.want)
			}
		})
	}
}

func TestString(t *testing.T) {
	i := Info{Version: "v0.1.0", Commit: "abc", Date: "2026-11-22T15:00:00Z", GoVersion: "go1.99.1"}
	want := "redirects v0.1.0 commit=abc built=2026-11-22T15:00:00Z go=go1.99.1 platform=" + runtime.GOOS + "/" + runtime.GOARCH
	if got := i.String(); got != want {
		t.Fatalf("String = %q, want %q", got, want)
	}
	if strings.Contains(i.String(), "\n") {
		t.Fatal("String holds a newline; it is one line")
	}
}
