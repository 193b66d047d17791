package export

import (
	"redirects"
	"redirects/engine/pattern"
)

// The differential tests (package export_test) read the chain's residue
// through these.

// IsPlainPath reports whether the chain matches a request path against
// RE2 expressions (chainregex.go).
var IsPlainPath = isPlainPath

// ChainBoundsConstraints reports whether the nginx and haproxy chains
// answer pattern rule r's constraints (constraintsBounded).
func ChainBoundsConstraints(r redirects.Rule) bool {
	ps, err := pattern.Compile([]pattern.Rule{r.PatternRule()}, pattern.Settings{})
	if err != nil {
		return false
	}
	return constraintsBounded(ps.Views()[0].Pieces)
}

// ChainTooLarge reports whether the nginx and haproxy chains leave rule r
// out for the size of its RE2 expressions (ruleTooLarge).
func ChainTooLarge(r redirects.Rule) bool {
	ps, err := pattern.Compile([]pattern.Rule{r.PatternRule()}, pattern.Settings{})
	if err != nil {
		return false
	}
	return ruleTooLarge(ps.Views()[0], r.Source)
}

// SetHAProxySpecMax sets the bound on the literal rules the haproxy chain
// writes in docs/contract.md's shape (haproxySpecMax) and returns the
// function that restores it.
func SetHAProxySpecMax(n int) func() {
	old := haproxySpecMax
	haproxySpecMax = n
	return func() { haproxySpecMax = old }
}

// ChainTooLong reports whether format's chain (nginx's or, for
// "haproxy", HAProxy's) leaves rule r out for the length of the strings it
// would write (nginxStringsFit, haproxyStringsFit).
func ChainTooLong(r redirects.Rule, set redirects.Settings, format string) bool {
	chain := makeChain([]redirects.Rule{r}, set)
	if len(chain) == 0 || !chainAnswers(chain[0], set) {
		return false
	}
	if format == "haproxy" {
		return !haproxyStringsFit(chain[0], set)
	}
	return !nginxStringsFit(chain[0], set)
}
