package main_test

import (
	"runtime"
	"testing"
)

// TestVersion checks "redirects --version" and "redirects version": one line
// on stdout naming the version, commit, build date and platform. The values
// a release build stamps are checked by the release package's tests.
func TestVersion(t *testing.T) {
	c := newCLI(t)
	flag := c.exec("", "--version")
	if flag.code != 0 || flag.stderr != "" {
		t.Fatalf("redirects --version: exit %d, stderr %q", flag.code, flag.stderr)
	}
	mustMatch(t, "redirects --version", `^redirects \S+ commit=\S+ built=\S+ go=go\S+ platform=`+runtime.GOOS+`/`+runtime.GOARCH+`\n$`, flag.stdout)
	if cmd := c.ok("version"); cmd+"\n" != flag.stdout {
		t.Fatalf("redirects version printed %q, --version %q", cmd, flag.stdout)
	}
	c.fail(2, `version takes no arguments, got "now"`, "version", "now")
}
