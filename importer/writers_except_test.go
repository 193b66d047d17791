package importer

import (
	"bytes"
	"strings"
	"testing"

	"redirects"
)

// TestWritersExceptHosts: every writer either writes a rule with
// exceptHosts so that it does not answer an excepted host, or lists it
// (dropped, or written with what the platform answers otherwise): none
// writes it silently for every host. The cloudflare writer puts it on a
// host it answers, never on an excepted one (a redirect of example.com to
// itself).
func TestWritersExceptHosts(t *testing.T) {
	r := redirects.Rule{ID: 1, MatchType: redirects.StartsWith, Source: "/", Destination: "https://example.com/", StatusCode: 301,
		Priority: 100, PreservePath: true, ExceptHosts: []string{"example.com"}}
	if err := r.Validate(); err != nil {
		t.Fatal(err)
	}
	for _, w := range Writers() {
		for _, hosts := range [][]string{nil, {"example.com", "www.example.com"}, {"example.com"}} {
			var buf bytes.Buffer
			un, err := w.Write(&buf, []redirects.Rule{r}, redirects.Settings{}, hosts)
			if err != nil {
				t.Fatalf("%s: %v", w.Name, err)
			}
			listed := false
			for _, u := range un {
				listed = listed || u.RuleID == r.ID
			}
			out := buf.String()
			switch w.Name {
			case "cloudflare":
				if strings.Contains(out, "\nexample.com/,") || strings.HasPrefix(out, "example.com/,") {
					t.Errorf("cloudflare, hosts %q: the rule is written on example.com, which it excepts:\n%s", hosts, out)
				}
				if len(hosts) == 1 && !listed {
					t.Errorf("cloudflare, hosts %q: no host to write the rule on, and it is not listed:\n%s", hosts, out)
				}
			default:
				if !listed {
					t.Errorf("%s, hosts %q: the rule is not listed as written otherwise or left out:\n%s", w.Name, hosts, out)
				}
			}
		}
	}
}
