package ui

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"redirects"
)

// TestHistoryServers renders the History tab's Servers table from the
// sync agents' reports in a real store: each agent with its format,
// applied version and last report, and "behind" on exactly the rows older
// than the live version, with the count of them above the table.
func TestHistoryServers(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	history := "/projects/" + e.project.ID + "/history"
	_, body := e.do("GET", history, nil, true)
	if !strings.Contains(body, `id="servers-none"`) || strings.Contains(body, `id="servers-table"`) {
		t.Fatalf("history without reports shows no empty Servers section:\n%s", body)
	}
	for i, src := range []string{"/a", "/b"} {
		if err := e.db.AddRule(ctx, &redirects.Rule{ProjectID: e.project.ID, Source: src, Destination: "/to", StatusCode: 301, Priority: 100}); err != nil {
			t.Fatal(err)
		}
		if res, body := e.do("POST", "/projects/"+e.project.ID+"/deploy", url.Values{"csrf": {e.csrf}, "message": {"v"}}, true); res.StatusCode != http.StatusSeeOther {
			t.Fatalf("deploy %d: %d\n%s", i+1, res.StatusCode, body)
		}
	}
	now := time.Now()
	if err := e.db.RecordAgents(ctx, []redirects.AgentReport{
		{ProjectID: e.project.ID, Agent: "web-1 /etc/nginx/redirects.conf", Format: "nginx", AppliedVersion: 2, SeenAt: now.Add(-time.Minute)},
		{ProjectID: e.project.ID, Agent: "web-2 <b>/etc/nginx/redirects.conf", Format: "nginx-map-exact", AppliedVersion: 1, SeenAt: now.Add(-3 * time.Hour)},
	}); err != nil {
		t.Fatal(err)
	}
	_, body = e.do("GET", history, nil, true)
	table := regexp.MustCompile(`(?s)<table id="servers-table">.*?</table>`).FindString(body)
	if table == "" {
		t.Fatalf("no Servers table:\n%s", body)
	}
	rows := regexp.MustCompile(`(?s)<tr( class="behind")?>\s*<td>([^<]*)</td>\s*<td>([^<]*)</td>\s*<td class="num">(\d+)</td>\s*<td><time[^>]*>([^<]*)</time></td>\s*<td class="state">(.*?)</td>`).FindAllStringSubmatch(table, -1)
	var got []string
	for _, r := range rows {
		got = append(got, strings.Join([]string{r[1], r[2], r[3], r[4], r[5], r[6]}, " | "))
	}
	want := []string{
		` | web-1 /etc/nginx/redirects.conf | nginx | 2 | 1 minute ago | <span class="chip">current</span>`,
		` class="behind" | web-2 &lt;b&gt;/etc/nginx/redirects.conf | nginx-map-exact | 1 | 3 hours ago | <span class="warning">behind</span>`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("Servers rows:\n%s\nwant\n%s\ntable:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"), table)
	}
	if !strings.Contains(body, `<span class="warning" id="servers-behind">1 server behind</span>`) || !strings.Contains(body, "version 2 is live") {
		t.Errorf("the Servers section does not say one server is behind version 2:\n%s", body)
	}
}

// TestHistoryServersStaged holds the Servers section to the live version
// after a staged deploy: version 2 staged while version 1 is live leaves
// the servers on version 1 current, and the page never says version 2 is
// live.
func TestHistoryServersStaged(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	history := "/projects/" + e.project.ID + "/history"
	for i, stage := range []string{"", "on"} {
		if err := e.db.AddRule(ctx, &redirects.Rule{ProjectID: e.project.ID, Source: "/s" + itoa(i), Destination: "/to", StatusCode: 301, Priority: 100}); err != nil {
			t.Fatal(err)
		}
		form := url.Values{"csrf": {e.csrf}, "message": {"v"}}
		if stage != "" {
			form.Set("stage", stage)
		}
		if res, body := e.do("POST", "/projects/"+e.project.ID+"/deploy", form, true); res.StatusCode != http.StatusSeeOther {
			t.Fatalf("deploy %d: %d\n%s", i+1, res.StatusCode, body)
		}
	}
	if err := e.db.RecordAgents(ctx, []redirects.AgentReport{
		{ProjectID: e.project.ID, Agent: "web-1", Format: "nginx", AppliedVersion: 1, SeenAt: time.Now().Add(-time.Minute)},
	}); err != nil {
		t.Fatal(err)
	}
	_, body := e.do("GET", history, nil, true)
	if strings.Contains(body, "version 2 is live") || !strings.Contains(body, "version 1 is live") {
		t.Errorf("with version 2 staged, the Servers section does not say version 1 is live:\n%s", body)
	}
	if strings.Contains(body, `id="servers-behind"`) || strings.Contains(body, `class="behind"`) {
		t.Errorf("a server on the live version 1 is shown behind a staged version:\n%s", body)
	}
}

// TestHistoryForgetServers: the Servers section's buttons forget one
// server's report, or every one; a form without the session's CSRF token
// and a bad format change nothing.
func TestHistoryForgetServers(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	history := "/projects/" + e.project.ID + "/history"
	forget := history + "/servers/forget"
	now := time.Now()
	if err := e.db.RecordAgents(ctx, []redirects.AgentReport{
		{ProjectID: e.project.ID, Agent: "web-1", Format: "nginx", AppliedVersion: 1, SeenAt: now},
		{ProjectID: e.project.ID, Agent: "web-1", Format: "csv", AppliedVersion: 1, SeenAt: now},
		{ProjectID: e.project.ID, Agent: "web-2", Format: "nginx", AppliedVersion: 1, SeenAt: now},
	}); err != nil {
		t.Fatal(err)
	}
	left := func() string {
		t.Helper()
		rs, err := e.db.FindAgents(ctx, e.project.ID)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, r := range rs {
			names = append(names, r.Agent+"/"+r.Format)
		}
		return strings.Join(names, " ")
	}
	_, body := e.do("GET", history, nil, true)
	if strings.Count(body, `action="`+forget+`"`) != 4 || !strings.Contains(body, `aria-label="Forget web-1 (csv)"`) {
		t.Fatalf("the Servers section has no Forget button per row and one for all:\n%s", body)
	}
	if res, _ := e.do("POST", forget, url.Values{"agent": {"web-1"}, "format": {"nginx"}}, true); res.StatusCode != http.StatusForbidden || left() != "web-1/csv web-1/nginx web-2/nginx" {
		t.Errorf("a form without the CSRF token: %d, left %q; want 403 and nothing forgotten", res.StatusCode, left())
	}
	if page := e.postFollow(t, forget, url.Values{"agent": {"web-1"}, "format": {"gif"}}); !strings.Contains(flashText(page), "Nothing was forgotten") || !strings.Contains(flashText(page), "gif") || left() != "web-1/csv web-1/nginx web-2/nginx" {
		t.Errorf("a bad format: flash %q, left %q; want nothing forgotten, naming the format", flashText(page), left())
	}
	if page := e.postFollow(t, forget, url.Values{"agent": {"web-1"}, "format": {"nginx"}}); !strings.Contains(flashText(page), "Forgot 1 server report of web-1") || left() != "web-1/csv web-2/nginx" {
		t.Errorf("Forget web-1 (nginx): flash %q, left %q; want web-1/csv web-2/nginx", flashText(page), left())
	}
	if res, _ := e.do("POST", forget, url.Values{"csrf": {e.csrf}}, true); res.StatusCode != http.StatusSeeOther || left() != "" {
		t.Errorf("Forget every server: %d, left %q; want none", res.StatusCode, left())
	}
}
