package manage

import (
	"encoding/json"
	"os"
	"regexp"
	"slices"
	"testing"

	"redirects/safety"
)

// TestDocDeployCheckShrink: the deploy-check example of docs/manage.md
// shows the shrink fields a deploy-check answer has, no more and no fewer
// (a deploy-check is never a rollback, so rollback is left out).
func TestDocDeployCheckShrink(t *testing.T) {
	doc, err := os.ReadFile("../docs/manage.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?s)"shrink": (\{[^}]*\})`).FindSubmatch(doc)
	if m == nil {
		t.Fatal(`docs/manage.md has no "shrink": {...} example`)
	}
	var example map[string]any
	if err := json.Unmarshal(m[1], &example); err != nil {
		t.Fatalf("the shrink example does not parse: %v\n%s", err, m[1])
	}
	b, _ := json.Marshal(safety.Shrink{Live: 100, Deploy: 89, Removed: 11, Percent: 11, Limit: 10, NeedsConfirmation: true})
	var real map[string]any
	json.Unmarshal(b, &real)
	keys := func(m map[string]any) []string {
		var k []string
		for x := range m {
			k = append(k, x)
		}
		slices.Sort(k)
		return k
	}
	if got, want := keys(example), keys(real); !slices.Equal(got, want) {
		t.Fatalf("docs/manage.md's deploy-check shrink has %v, the answer %v", got, want)
	}
}
