package plan

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"redirects"
	"redirects/safety"
)

// refuseImports is an import service that fails the test when it is used.
type refuseImports struct {
	redirects.ImportService
	t *testing.T
}

func (r refuseImports) Import(context.Context, string, []redirects.Rule, redirects.ImportOptions) (*redirects.ImportReport, error) {
	r.t.Fatal("apply imported a draft of more regex rules than a project holds")
	return nil, nil
}

// TestApplyRefusesTooManyRegexRules: a file of more regex rules than a
// project holds is refused before apply changes anything, naming the limit.
func TestApplyRefusesTooManyRegexRules(t *testing.T) {
	rules := make([]redirects.Rule, redirects.MaxRegexRules+1)
	for i := range rules {
		rules[i] = redirects.Rule{MatchType: redirects.Regex, Source: fmt.Sprintf(`/r%d/(\d+)`, i), Destination: "/n/$1", StatusCode: 301}
	}
	hosts := []string{"example.com"}
	pl := &Plan{ProjectID: "prj_x", desired: &Desired{Rules: rules, Hosts: hosts, HostsSet: true},
		Hosts: &Change[[]string]{To: hosts}, Draft: safety.DiffResult{Added: make([]redirects.RuleRef, len(rules))}, Gate: &safety.GateResult{}}
	a, err := Apply(context.Background(), Services{Imports: refuseImports{t: t}}, pl, "")
	if redirects.ErrorCode(err) != redirects.EINVALID || !strings.Contains(err.Error(), "nothing applied") ||
		!strings.Contains(err.Error(), "at most 10000 regex rules") {
		t.Fatalf("Apply = %v, %v; want an EINVALID that applies nothing and names the limit", a, err)
	}
}
