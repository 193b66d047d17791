package ui

import (
	"context"
	"html"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"redirects/importer"
)

// TestImportApplyDeclaresHosts: a file whose rules answer on hosts the
// project does not declare gets a hosts suggestion, and "Apply these
// settings" declares them (beside the settings when those differ too, or
// alone); the file checked again suggests neither.
func TestImportApplyDeclaresHosts(t *testing.T) {
	const file = "https://old.example.org/* https://www.example.org/:splat 301!\n" +
		"https://Blog.Example.net/a /b 301\n" +
		"/plain /elsewhere 301\n"
	netlify := *importer.Lookup("netlify").Defaults
	for _, withSettings := range []bool{true, false} {
		e := newEnv(t)
		ctx := context.Background()
		if _, err := e.db.SetProjectHosts(ctx, e.project.ID, []string{"www.example.org"}); err != nil {
			t.Fatal(err)
		}
		if !withSettings {
			if _, err := e.db.SetProjectSettings(ctx, e.project.ID, netlify); err != nil {
				t.Fatal(err)
			}
		}
		res, body := e.postFile(e.cookie, map[string]string{"csrf": e.csrf, "mode": "append", "from": "netlify"}, file)
		body = html.UnescapeString(body)
		m := uploadField.FindStringSubmatch(body)
		const hosts = `<strong>Hosts:</strong> the file's rules answer on 2 hosts the project does not declare (old.example.org, blog.example.net): ` +
			`"redirects project update --host www.example.org --host old.example.org --host blog.example.net" would declare them`
		if res.StatusCode != http.StatusOK || m == nil || !strings.Contains(body, hosts) || !strings.Contains(body, "Apply these settings") ||
			strings.Contains(body, "<strong>Settings:</strong>") != withSettings {
			t.Fatalf("settings differ %t: the check: %d\n%s", withSettings, res.StatusCode, body)
		}
		res = e.postAs(e.cookie, "/projects/"+e.project.ID+"/import/settings", url.Values{"csrf": {e.csrf}, "upload": {m[1]}})
		b, _ := io.ReadAll(res.Body)
		body = html.UnescapeString(string(b))
		saved := "Saved: the project declares the hosts old.example.org, blog.example.net the file's rules answer on. The file was checked again under them."
		if withSettings {
			saved = "Saved: the draft compares paths " + describeSettings(netlify) + ", as the file's platform does; " + strings.TrimPrefix(saved, "Saved: ")
		}
		if res.StatusCode != http.StatusOK || !strings.Contains(body, saved) || strings.Contains(body, "Apply these settings") ||
			strings.Contains(body, `id="import-host-suggestion"`) {
			t.Fatalf("settings differ %t: the apply: %d, want %q\n%s", withSettings, res.StatusCode, saved, body)
		}
		p, err := e.db.FindProjectByID(ctx, e.project.ID)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(p.Hosts, []string{"www.example.org", "old.example.org", "blog.example.net"}) || p.Settings != netlify {
			t.Fatalf("settings differ %t: after the apply the project has hosts %v, settings %v", withSettings, p.Hosts, p.Settings)
		}
		if n := e.ruleCount(t); n != 0 {
			t.Fatalf("the apply of the suggestion wrote %d rules", n)
		}
	}
}
