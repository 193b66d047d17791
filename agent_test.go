package redirects

import "testing"

// TestAgentNameReplacesBadBytes: NUL and bytes that are not UTF-8 in an
// agent's name become U+FFFD (a database may refuse them), other control
// characters go, and the result is always valid for the store.
func TestAgentNameReplacesBadBytes(t *testing.T) {
	for _, c := range []struct{ header, want string }{
		{"web-1 /etc/nginx/x.conf", "web-1 /etc/nginx/x.conf"},
		{"web\x00one", "web\uFFFDone"},
		{"web \xff\xfe", "web \uFFFD\uFFFD"},
		{"a\tb\x7fc", "abc"},
		{"ok \uFFFD", "ok \uFFFD"},
	} {
		got := AgentName(c.header, "", "")
		if got != c.want {
			t.Errorf("AgentName(%q) = %q, want %q", c.header, got, c.want)
		}
		if err := ValidateAgentReports([]AgentReport{{ProjectID: "p", Agent: got, Format: "csv", AppliedVersion: 1}}); err != nil {
			t.Errorf("AgentName(%q) = %q, which the store refuses: %v", c.header, got, err)
		}
	}
}
