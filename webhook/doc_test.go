package webhook_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"redirects"
)

// TestDocsVerifySignature runs the shell lines of docs/delivery.md that
// verify a signature: they accept a body the sender signed (with one
// secret, and with two during a rotation) and refuse a changed body, a
// wrong secret and an old time.
func TestDocsVerifySignature(t *testing.T) {
	if _, err := exec.LookPath("openssl"); err != nil {
		t.Skip("no openssl")
	}
	doc, err := os.ReadFile("../docs/delivery.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(doc), "### Verifying a signature")
	_, rest, ok2 := strings.Cut(rest, "```sh\n")
	script, _, ok3 := strings.Cut(rest, "```")
	if !ok || !ok2 || !ok3 {
		t.Fatal("docs/delivery.md has no sh block under \"Verifying a signature\"")
	}
	body := []byte(`{"deliveryId":"whd_1","action":"rule.create","entry":{"note":"it's \"quoted\" & 100%"}}` + "\n")
	run := func(sig, secret string, sent []byte) error {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "body.json"), sent, 0o600); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command("sh", "-e", "-c", script)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "SIG="+sig, "SECRET="+secret)
		out, err := cmd.CombinedOutput()
		if err != nil {
			return &exec.ExitError{ProcessState: cmd.ProcessState, Stderr: out}
		}
		return nil
	}
	now := time.Now()
	for _, tc := range []struct {
		name   string
		sig    string
		secret string
		sent   []byte
		ok     bool
	}{
		{"signed", redirects.WebhookSignature(now, body, "whsec_a"), "whsec_a", body, true},
		{"new secret of two", redirects.WebhookSignature(now, body, "whsec_new", "whsec_old"), "whsec_new", body, true},
		{"old secret of two", redirects.WebhookSignature(now, body, "whsec_new", "whsec_old"), "whsec_old", body, true},
		{"changed body", redirects.WebhookSignature(now, body, "whsec_a"), "whsec_a", append([]byte(" "), body...), false},
		{"wrong secret", redirects.WebhookSignature(now, body, "whsec_a"), "whsec_b", body, false},
		{"old", redirects.WebhookSignature(now.Add(-time.Hour), body, "whsec_a"), "whsec_a", body, false},
	} {
		err := run(tc.sig, tc.secret, tc.sent)
		if (err == nil) != tc.ok {
			msg := ""
			if ee, ok := err.(*exec.ExitError); ok {
				msg = string(ee.Stderr)
			}
			t.Errorf("%s: verified = %v, want %v (%s)", tc.name, err == nil, tc.ok, msg)
		}
	}
}
