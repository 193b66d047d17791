package export_test

import (
	"context"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"redirects"
	"redirects/engine"
	"redirects/export"
	"redirects/internal/servertest"
)

// TestHAProxyLinesOfSPEC: the haproxy format's ACL lines have the format's fixed
// shapes exactly, "acl redirect_<n> path -i <source>" and path_beg for
// prefix rules, with each source as browsers send it.
func TestHAProxyLinesOfSPEC(t *testing.T) {
	rules := []redirects.Rule{
		{ID: 1, Source: "/café", Destination: "/cafe", StatusCode: 301},
		{ID: 2, Source: "/日本/", Destination: "/ja/", StatusCode: 302, MatchType: redirects.StartsWith},
		{ID: 3, Source: "/a|b^c`d<e>[f]!x", Destination: "/x", StatusCode: 301},
	}
	for i := range rules {
		if err := rules[i].Validate(); err != nil {
			t.Fatal(err)
		}
	}
	c, err := export.Render(rules)
	if err != nil {
		t.Fatal(err)
	}
	var body string
	for _, e := range c.Exports {
		if e.Format == "haproxy" {
			body = string(e.Body)
		}
	}
	for _, want := range []string{
		"acl redirect_1 path -i /a%7Cb%5Ec%60d%3Ce%3E[f]!x\n",
		"acl redirect_2 path -i /caf%C3%A9\n",
		"acl redirect_3 path_beg -i /%E6%97%A5%E6%9C%AC/\n",
		"http-request redirect code 302 location /ja/ if redirect_3\n",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the haproxy export lacks %q:\n%s", want, body)
		}
	}
	if strings.Contains(body, "url_dec") || strings.Contains(body, " -m ") {
		t.Errorf("the haproxy export departs from its fixed shapes:\n%s", body)
	}
}

// TestHAProxyAnswersBrowsers loads the haproxy format into a real haproxy
// and sends the requests Chromium sends for non-ASCII and escaped paths
// (as seen on its request lines): each is redirected as the lookup API
// redirects it.
func TestHAProxyAnswersBrowsers(t *testing.T) {
	bin := servertest.LookPath(t, "haproxy")
	rules := []redirects.Rule{
		{Source: "/café", Destination: "/cafe", StatusCode: 301},
		{Source: "/straße/alt", Destination: "/strasse", StatusCode: 302},
		{Source: "/日本/", Destination: "/ja/", StatusCode: 301, MatchType: redirects.StartsWith},
		{Source: "/a|b^c`d<e>[f]", Destination: "/punct", StatusCode: 301},
		{Source: "/✓", Destination: "/check", StatusCode: 301, MatchType: redirects.StartsWith},
	}
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range rules {
		rules[i].ID, rules[i].CreatedAt = int64(i+1), t0
		if err := rules[i].Validate(); err != nil {
			t.Fatal(err)
		}
	}
	c, err := export.Render(rules)
	if err != nil {
		t.Fatal(err)
	}
	var body string
	for _, e := range c.Exports {
		if e.Format == "haproxy" {
			body = string(e.Body)
		}
	}
	dir := t.TempDir()
	port := servertest.FreePort(t)
	cfg := filepath.Join(dir, "haproxy.cfg")
	servertest.WriteFile(t, cfg, []byte(servertest.HAProxyHead+servertest.HAProxyFrontend("f", port, dir, body)))
	servertest.Check(t, bin, "-c", "-f", cfg)
	servertest.Start(t, []int{port}, bin, "-db", "-f", cfg)
	api := engine.Compile(rules)
	client := &http.Transport{}
	defer client.CloseIdleConnections()
	for _, path := range []string{
		"/caf%C3%A9", "/stra%C3%9Fe/alt", "/%E6%97%A5%E6%9C%AC/%E6%9D%B1%E4%BA%AC", "/%E6%97%A5%E6%9C%AC/",
		"/a%7Cb%5Ec%60d%3Ce%3E[f]", "/%E2%9C%93", "/%E2%9C%93/x?q=%C3%A9",
	} {
		m, ok := api.Lookup(path)
		if !ok {
			t.Fatalf("the lookup API has no rule for %s", path)
		}
		got, err := ask(context.Background(), client, port, path, 204)
		if want := (answer{m.StatusCode(), m.Destination()}); err != nil || got != want {
			t.Errorf("haproxy: GET %s answered %v (%v); the lookup API %v", path, got, err, want)
		}
	}
}
