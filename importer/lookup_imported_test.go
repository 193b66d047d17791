package importer

import (
	"testing"

	"redirects"
	"redirects/engine"
	"redirects/internal/rulemodel"
)

// importedAnswer is how the imported rules answer a request: the line of
// the rule that answers (by the contract's model), and the status and
// target the edge's engine answers.
type importedAnswer struct {
	line, status int
	target       string
}

// lookupImported answers wire on host with res's rules, as the edge does
// (engine.CompileChecked, LookupHost) under set; the model
// (rulemodel.LookupPatterns) names the answering rule, and must agree that
// one answers.
func lookupImported(t *testing.T, res *Result, set redirects.Settings, host, wire string) (importedAnswer, bool) {
	t.Helper()
	snap, err := engine.CompileChecked(res.Rules, set)
	if err != nil {
		t.Fatalf("the imported rules do not compile: %v", err)
	}
	m, ok := snap.LookupHost(host, wire)
	prs := make([]rulemodel.PatternRule, len(res.Rules))
	for i, r := range res.Rules {
		prs[i] = rulemodel.PatternRule{ID: int64(i + 1), Kind: r.MatchType.String(), Host: r.Host, ExceptHosts: r.ExceptHosts, Source: r.Source,
			Destination: r.Destination, Priority: r.Priority}
	}
	ma, mok := rulemodel.LookupPatterns(prs, rulemodel.Settings{CaseInsensitive: set.CaseInsensitive, IgnoreTrailingSlash: set.IgnoreTrailingSlash}, host, wire)
	if ok != mok {
		t.Fatalf("%s on %q: the engine answers %v, the model %v", wire, host, ok, mok)
	}
	if !ok {
		return importedAnswer{}, false
	}
	defer m.Release()
	return importedAnswer{line: res.RuleLines[ma.Rule], status: m.StatusCode(), target: string(m.AppendTarget(nil, wire))}, true
}
