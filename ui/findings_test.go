package ui

import (
	"regexp"
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
