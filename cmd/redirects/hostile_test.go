package main_test

import (
	"fmt"
	"strings"
	"testing"
)

// TestFlagsWithNULOrInvalidUTF8Refused (issue #31): a flag or argument
// that goes to the store and holds a NUL byte or invalid UTF-8 is refused
// naming it, before anything is changed.
func TestFlagsWithNULOrInvalidUTF8Refused(t *testing.T) {
	c := newCLI(t)
	org, p := c.setup()
	before := c.ok("rule", "list", "--project", p, "--json")
	projects := c.ok("project", "list", "--org", org, "--json")
	for _, tc := range []struct {
		want string
		args []string
	}{
		{"--source holds a NUL byte at byte 2", []string{"rule", "add", "--project", p, "--source", "/a\x00b", "--destination", "/d"}},
		{"--destination is not valid UTF-8: byte 4 is 0xE9", []string{"rule", "add", "--project", p, "--source", "/a", "--destination", "/caf\xe9"}},
		{"--name is not valid UTF-8: byte 2 is 0xFF", []string{"project", "create", "--org", org, "--name", "sh\xffop"}},
		{"--name holds a NUL byte at byte 4", []string{"project", "create", "--org", org, "--name", "shop\x00"}},
		{"--url holds a NUL byte", []string{"webhook", "create", "--org", org, "--url", "https://hooks.example.com/\x00"}},
		{"--message is not valid UTF-8", []string{"deploy", "--project", p, "--message", "\xc3("}},
		{"RULE_ID holds a NUL byte at byte 1", []string{"rule", "delete", "--project", p, "1\x00"}},
	} {
		c.fail(1, tc.want, tc.args...)
	}
	if after := c.ok("rule", "list", "--project", p, "--json"); after != before {
		t.Errorf("refused commands changed the rules:\nbefore %s\nafter %s", before, after)
	}
	if after := c.ok("project", "list", "--org", org, "--json"); after != projects {
		t.Errorf("refused commands changed the projects:\nbefore %s\nafter %s", projects, after)
	}
}

// TestWebhookOtherOrganizationsProjectCLI (issue #31, finding 14): webhook
// create with another organization's project says what it says of an
// unknown project, and creates nothing.
func TestWebhookOtherOrganizationsProjectCLI(t *testing.T) {
	c := newCLI(t)
	org, _ := c.setup()
	other := c.ok("org", "create", "--name", "Other", "--tier", "pro")
	theirs := c.ok("project", "create", "--org", other, "--name", "theirs")
	for _, id := range []string{theirs, "prj_0000000000000000"} {
		c.fail(1, fmt.Sprintf("project %q not found", id), "webhook", "create", "--org", org, "--url", "https://hooks.example.com/in", "--project", id)
	}
	if list := c.ok("webhook", "list", "--org", org); strings.Contains(list, "whk_") {
		t.Errorf("webhook list after refused creates:\n%s", list)
	}
}
