package main

import (
	"strings"
	"testing"
)

// TestCommandTables holds the command list, the help texts, the groups and
// the usage text to each other, so a command added to one is not missing
// from another.
func TestCommandTables(t *testing.T) {
	known := map[string]bool{}
	for _, name := range commands {
		known[name] = true
		d, ok := docs[name]
		if !ok || d.summary == "" || d.example == "" {
			t.Errorf("command %q has no help text (summary and example) in docs", name)
		}
		if len(synopses(name)) == 0 {
			t.Errorf("command %q is not in the usage text", name)
		}
		if group, sub, ok := strings.Cut(name, " "); ok && !strings.Contains(" "+strings.Join(groups[group].subs, " ")+" ", " "+sub+" ") {
			t.Errorf("command %q is not among the subcommands of group %q", name, group)
		}
	}
	for name := range docs {
		if !known[name] {
			t.Errorf("docs describes %q, which is not a command", name)
		}
	}
	for group, g := range groups {
		for _, sub := range g.subs {
			if !known[group+" "+sub] {
				t.Errorf("group %q lists %q, which is not a command", group, sub)
			}
		}
	}
}

func TestEditDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"deploy", "deploy", 0}, {"deplyo", "deploy", 1}, {"depoly", "deploy", 1},
		{"deply", "deploy", 1}, {"deployy", "deploy", 1}, {"dxploy", "deploy", 1}, {"lsit", "list", 1},
		{"", "abc", 3}, {"frob", "add", 4}, {"ca", "abc", 3},
	} {
		if got := editDistance(tc.a, tc.b); got != tc.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}

func TestSuggest(t *testing.T) {
	cands := []string{"deploy", "deployments", "lookup", "export", "org", "rule"}
	for _, tc := range []struct{ word, want string }{
		{"deplyo", ` (did you mean "deploy"?)`},
		{"DEPLOY", ` (did you mean "deploy"?)`},
		{"deploymnts", ` (did you mean "deployments"?)`},
		{"rules", ` (did you mean "rule"?)`},
		{"og", ` (did you mean "org"?)`},
		{"xyz", ""},
		{"frobnicate", ""},
		{"exprt", ` (did you mean "export"?)`},
	} {
		if got := suggest(tc.word, cands); got != tc.want {
			t.Errorf("suggest(%q) = %q, want %q", tc.word, got, tc.want)
		}
	}
}
