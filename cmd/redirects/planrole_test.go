package main

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPlanPredictsApply runs plan and apply through the management API
// with an editor token: a file that sets hosts plans with exit 1 naming
// the field and the owner role, and apply refuses it changing nothing (a
// viewer token's plan predicts it with --apply-role);
// the same file without hosts plans with exit 2 and applies. A loop is
// named by its place in the file (rules[1]), the refusal suggests --force
// --reason TEXT, and apply takes those flags as deploy does.
func TestPlanPredictsApply(t *testing.T) {
	dir := t.TempDir()
	db := "sqlite:" + filepath.Join(dir, "r.db")
	org, _ := runCLI(t, db, 0, "org", "create", "--name", "Acme", "--tier", "pro")
	org = strings.TrimSpace(org)
	p, _ := runCLI(t, db, 0, "project", "create", "--org", org, "--name", "www")
	p = strings.TrimSpace(p)
	editor, _ := runCLI(t, db, 0, "token", "create", "--org", org, "--role", "editor", "--name", "ci")
	editor = strings.TrimSpace(editor)
	viewer, _ := runCLI(t, db, 0, "token", "create", "--org", org, "--role", "viewer", "--name", "ci-plan")
	viewer = strings.TrimSpace(viewer)
	addr, edgeAddr := freeAddr(t), freeAddr(t)
	start(t, db, "serve", "--addr", edgeAddr, "--admin-addr", "", "--engine", "net/http", "--manage-addr", addr)
	api := "http://" + addr
	waitFor(t, "the management API answers", func() bool {
		res, err := http.Get(api + "/manage/v1/orgs")
		if err == nil {
			res.Body.Close()
		}
		return err == nil && res.StatusCode == 401
	})
	as := func(token string, code int, args ...string) (string, string) {
		t.Helper()
		m := &Main{Stdin: strings.NewReader(""), Stdout: &syncBuffer{}, Stderr: &syncBuffer{}, Getenv: func(string) string { return "" }}
		out, errs, got := runMain(t, m, append([]string{"--api", api, "--token", token}, args...))
		if got != code {
			t.Fatalf("redirects %s: exit %d, want %d\nstdout: %s\nstderr: %s", strings.Join(args, " "), got, code, out, errs)
		}
		return out, errs
	}
	file := filepath.Join(dir, "www.json")
	write := func(body string) {
		t.Helper()
		if err := os.WriteFile(file, []byte(`{"project": "`+p+`", `+body+`}`), 0o644); err != nil {
			t.Fatal(err)
		}
	}

	write(`"hosts": ["www.example.com"], "rules": [{"source": "/old", "destination": "/new"}]`)
	out, errs := as(editor, 1, "plan", "-f", file)
	const need = `hosts needs the owner role to apply (the caller is an editor)`
	if !strings.Contains(errs, need) || !strings.Contains(out, "blocked: "+need) {
		t.Errorf("plan of hosts with an editor token:\nstdout: %s\nstderr: %s\nwant %q", out, errs, need)
	}
	_, errs = as(editor, 1, "apply", "-f", file)
	if !strings.Contains(errs, "refused, nothing changed") || !strings.Contains(errs, need) {
		t.Errorf("apply of hosts with an editor token: %s", errs)
	}
	if list, _ := runCLI(t, db, 0, "rule", "list", "--project", p); strings.Contains(list, "/old") {
		t.Errorf("a refused apply changed the draft:\n%s", list)
	}
	// A viewer token plans (CI's plan job) and is told the role apply
	// needs; with --apply-role, the role of apply's token, it predicts
	// apply's refusal.
	out, _ = as(viewer, 2, "plan", "-f", file)
	if want := "role: apply needs owner (hosts), editor (rules, deploy)"; !strings.Contains(out, want) {
		t.Errorf("plan with a viewer token:\n%s\nwant %q", out, want)
	}
	_, errs = as(viewer, 1, "plan", "-f", file, "--apply-role", "editor")
	if want := "hosts needs the owner role to apply (apply runs as an editor (--apply-role))"; !strings.Contains(errs, want) {
		t.Errorf("plan --apply-role editor with a viewer token: %s\nwant %q", errs, want)
	}
	as(viewer, 2, "plan", "-f", file, "--apply-role", "owner")
	as(viewer, 1, "plan", "-f", file, "--apply-role", "boss")

	// Without hosts, what plan says is what apply does.
	write(`"rules": [{"source": "/old", "destination": "/new"}]`)
	as(editor, 2, "plan", "-f", file)
	if out, _ := as(editor, 0, "apply", "-f", file); strings.TrimSpace(out) != "1" && !strings.HasSuffix(strings.TrimSpace(out), "\n1") {
		t.Errorf("apply with an editor token printed %q, want version 1", out)
	}

	// A loop is named by its place in the file; the refusal names flags
	// that exist, and apply takes them.
	write(`"rules": [{"source": "/old", "destination": "/new"}, {"source": "/a", "destination": "/b"}, {"source": "/b", "destination": "/a"}]`)
	out, errs = as(editor, 1, "plan", "-f", file)
	if !strings.Contains(out, "rules[1] (exact /a)") || strings.Contains(out, "rule 0") {
		t.Errorf("plan of a loop does not name rules[1]:\n%s", out)
	}
	if !strings.Contains(errs, "pass --force --reason TEXT to apply anyway") || strings.Contains(errs, "forced with a reason") {
		t.Errorf("plan of a loop: %s\nwant the flags that get past it", errs)
	}
	as(editor, 2, "plan", "-f", file, "--force", "--reason", "the loop is fixed upstream")
	as(editor, 2, "apply", "-f", file, "--force")
	if out, _ := as(editor, 0, "apply", "-f", file, "--force", "--reason", "the loop is fixed upstream"); !strings.Contains(out, "2") {
		t.Errorf("apply --force --reason printed %q, want version 2", out)
	}
	if audit, _ := runCLI(t, db, 0, "audit", "--org", org); !strings.Contains(audit, "the loop is fixed upstream") {
		t.Errorf("the audit log lacks the forced apply's reason:\n%s", audit)
	}

	// A rules file: a loop is named by its line.
	os.WriteFile(filepath.Join(dir, "rules.csv"), []byte("source,destination,statusCode,matchType\n/x,/y,301,exact\n/y,/x,301,exact\n"), 0o644)
	write(`"rulesFile": "rules.csv"`)
	out, _ = as(editor, 1, "plan", "-f", file)
	if !strings.Contains(out, `rulesFile "rules.csv" line 2 (exact /x)`) {
		t.Errorf("plan of a rules file's loop does not name its line:\n%s", out)
	}
}
