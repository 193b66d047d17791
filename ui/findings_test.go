package ui

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
)

// TestImportDefaultsToAppend: the Import tab's mode is append until the
// user picks another, as the CLI's and the API's are.
func TestImportDefaultsToAppend(t *testing.T) {
	e := newEnv(t)
	res, body := e.do("GET", "/projects/"+e.project.ID+"/import", nil, true)
	if res.StatusCode != 200 {
		t.Fatalf("GET import: %d", res.StatusCode)
	}
	checked := regexp.MustCompile(`name="mode" value="(\w+)"[^>]* checked`).FindAllStringSubmatch(body, -1)
	if len(checked) != 1 || checked[0][1] != "append" {
		t.Fatalf("the Import tab checks %v, want append alone", checked)
	}
}

// TestDeployPageLooksBlocked: a draft with a loop shows the blocking
// findings in a danger box above the button, which is a danger button;
// "Nothing to deploy" offers no button.
func TestDeployPageLooksBlocked(t *testing.T) {
	e := newEnv(t)
	for _, r := range [][2]string{{"/loop-a", "/loop-b"}, {"/loop-b", "/loop-a"}} {
		form := url.Values{"csrf": {e.csrf}, "source": {r[0]}, "destination": {r[1]}, "status": {"301"}, "match": {"exact"}}
		if res, body := e.do("POST", "/projects/"+e.project.ID+"/rules", form, true); res.StatusCode != http.StatusSeeOther {
			t.Fatalf("adding %s: %d\n%s", r[0], res.StatusCode, body)
		}
	}
	_, body := e.do("GET", "/projects/"+e.project.ID+"/deploy", nil, true)
	gate, button := strings.Index(body, `class="gate blocked"`), strings.Index(body, `<button type="submit" class="danger">Deploy version 1</button>`)
	if gate < 0 || button < 0 || gate > button {
		t.Fatalf("a blocked deploy: the gate box at %d, the danger button at %d (want both, the box first):\n%s", gate, button, body)
	}
	if i := strings.Index(body, "Errors, which block the deploy"); i < 0 || i > button {
		t.Fatalf("the blocking errors are not above the button:\n%s", body)
	}
	// Deployed (forced), the draft is the live version: nothing to deploy,
	// no button.
	form := url.Values{"csrf": {e.csrf}, "message": {"x"}, "force": {"1"}, "reason": {"test"}}
	if res, body := e.do("POST", "/projects/"+e.project.ID+"/deploy", form, true); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("forced deploy: %d\n%s", res.StatusCode, body)
	}
	_, body = e.do("GET", "/projects/"+e.project.ID+"/deploy", nil, true)
	if !strings.Contains(body, "Nothing to deploy") || strings.Contains(body, "Deploy version") {
		t.Fatalf("nothing to deploy still offers a deploy button:\n%s", body)
	}
}
