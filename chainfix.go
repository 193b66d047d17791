package redirects

// Flattening chains (docs/chains.md): each draft rule whose
// destination the project answers again gets the end of the chain as its
// destination, computed as the lookup answers; the chains that cannot be
// flattened safely are reported and left alone.

// FixChains is the one fix "lint --fix" knows: flatten chains.
const FixChains = "chains"

// ChainFix is one rule that flattening rewrites: the rule as the draft
// holds it, and the destination it gets, where its chain ends.
type ChainFix struct {
	Rule Rule
	// Destination is the end of the rule's chain, its new destination.
	Destination string
	// Hops is how many redirects the chain took before: 2 or more.
	Hops int
}

// ChainLeftReason says why a chain is left alone.
type ChainLeftReason string

// The reasons a chain is left alone.
const (
	// ChainMixed: the chain mixes permanent (301, 308) and temporary
	// (302, 303, 307) answers.
	ChainMixed ChainLeftReason = "mixed_status"
	// ChainGone: the chain ends at a 410.
	ChainGone ChainLeftReason = "gone"
	// ChainInexpressible: where the chain ends depends on the request
	// (the rest of the path, its query, a capture, its host) in a way one
	// rule's destination cannot say.
	ChainInexpressible ChainLeftReason = "inexpressible"
	// ChainLoop: following the chain runs into a redirect loop.
	ChainLoop ChainLeftReason = "loop"
)

// ChainLeft is a rule at the start of a chain that flattening leaves
// alone, and why.
type ChainLeft struct {
	Rule    Rule
	Reason  ChainLeftReason
	Message string
}

// FlattenOptions says what FlattenChains does.
type FlattenOptions struct {
	// Write saves the change in the draft; without it FlattenChains only
	// reports what it would change.
	Write bool
	// Hosts, when set, are the hosts whose absolute destinations lead back
	// into the project, instead of the hosts it declares (as lint's
	// --host).
	Hosts []string
}

// FlattenReport is what flattening the chains of a draft changes, or
// without FlattenOptions.Write would change: the rules it rewrites, in ID
// order, and the chains it leaves alone, in the ID order of their first
// rule.
type FlattenReport struct {
	Fixes []ChainFix
	Left  []ChainLeft
	// Written is set when the change was saved; UndoID then names its undo
	// record, which ImportService.UndoImport takes as an import's (0 when
	// nothing changed).
	Written bool
	UndoID  int64
}
