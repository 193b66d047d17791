package provider

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"redirects"
	"redirects/engine"
	"redirects/export"
)

// A rule set is planned as one string, the draft CSV of "redirects rule
// import". Two texts that read as the same rules are the same value
// (semantic equality): the column order, separators, spacing, quoting,
// case of headers and match types, an omitted priority, the rules' order
// and line ends make no difference.

// canonical is a parsed rule set: its canonical text, digest and rules.
type canonical struct {
	Text   string
	Digest string
	Rules  []redirects.Rule
}

// MaxRules is the most rules a rule set may hold (the API's import limit).
const MaxRules = 1_000_000

var (
	canonMu    sync.Mutex
	canonCache = map[[32]byte]*canonical{}
)

// canonicalize parses a rule set's text: the rules ordered as the store
// orders a draft (engine.SortRules), written back with export.WriteCSV
// with LF line ends. Results are cached by the text's hash, since a plan
// compares the same large texts several times. A set with pattern, regex,
// host-scoped or conditioned rules (redirects.Rule.Extended) is then put
// in canonicalOrder, which the draft's order does not fix for them; a set
// without is written as it always was, so its digest does not change.
func canonicalize(text string) (*canonical, error) {
	key := sha256.Sum256([]byte(text))
	canonMu.Lock()
	c, ok := canonCache[key]
	canonMu.Unlock()
	if ok {
		return c, nil
	}
	rules, _, bad, err := export.ReadRules(strings.NewReader(text), export.ReadOptions{MaxRows: MaxRules})
	if err != nil {
		return nil, err
	}
	if len(bad) > 0 {
		return nil, export.LineErrors(bad)
	}
	engine.SortRules(rules)
	if slices.ContainsFunc(rules, func(r redirects.Rule) bool { return r.Extended() }) {
		slices.SortStableFunc(rules, canonicalOrder)
	}
	var buf bytes.Buffer
	if err := export.WriteCSV(&buf, rules); err != nil {
		return nil, err
	}
	out := strings.ReplaceAll(buf.String(), "\r\n", "\n")
	sum := sha256.Sum256([]byte(out))
	c = &canonical{Text: out, Digest: hex.EncodeToString(sum[:]), Rules: rules}
	canonMu.Lock()
	if len(canonCache) > 16 {
		clear(canonCache)
	}
	canonCache[key] = c
	canonMu.Unlock()
	return c, nil
}

// canonicalOrder orders rules by match type, host and source, which a set
// holds one rule of (docs/contract.md#keys), and then by the rest of what
// the CSV holds of them.
func canonicalOrder(a, b redirects.Rule) int {
	return cmp.Or(cmp.Compare(a.MatchType, b.MatchType), strings.Compare(a.Host, b.Host), strings.Compare(a.Source, b.Source),
		cmp.Compare(a.Priority, b.Priority), cmp.Compare(a.StatusCode, b.StatusCode), strings.Compare(a.Destination, b.Destination),
		cmpBool(a.PreservePath, b.PreservePath), cmpBool(a.PreserveQuery, b.PreserveQuery), cmpBool(a.QueryAfterFragment, b.QueryAfterFragment),
		cmpBool(a.MergeQuery, b.MergeQuery),
		slices.Compare(a.ExceptHosts, b.ExceptHosts))
}

func cmpBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}

// canonicalOf returns the canonical form of rules that the service
// answers: written as the draft's rules.csv is, then read as a configured
// text is, so that the draft and the configuration are compared in the same
// form.
func canonicalOf(rules []redirects.Rule) (*canonical, error) {
	var buf bytes.Buffer
	if err := export.WriteDraftCSV(&buf, rules); err != nil {
		return nil, err
	}
	return canonicalize(buf.String())
}

// rulesCSVType is the string type of rules_csv.
type rulesCSVType struct{ basetypes.StringType }

var _ basetypes.StringTypable = rulesCSVType{}

func (t rulesCSVType) Equal(o attr.Type) bool { _, ok := o.(rulesCSVType); return ok }
func (t rulesCSVType) String() string         { return "rulesCSVType" }
func (t rulesCSVType) ValueType(context.Context) attr.Value {
	return rulesCSV{}
}
func (t rulesCSVType) ValueFromString(_ context.Context, in basetypes.StringValue) (basetypes.StringValuable, diag.Diagnostics) {
	return rulesCSV{StringValue: in}, nil
}
func (t rulesCSVType) ValueFromTerraform(ctx context.Context, in tftypes.Value) (attr.Value, error) {
	v, err := t.StringType.ValueFromTerraform(ctx, in)
	if err != nil {
		return nil, err
	}
	sv, ok := v.(basetypes.StringValue)
	if !ok {
		return nil, fmt.Errorf("unexpected value type %T", v)
	}
	return rulesCSV{StringValue: sv}, nil
}

// rulesCSV is a rules_csv value.
type rulesCSV struct{ basetypes.StringValue }

var _ basetypes.StringValuableWithSemanticEquals = rulesCSV{}

func (v rulesCSV) Type(context.Context) attr.Type { return rulesCSVType{} }
func (v rulesCSV) Equal(o attr.Value) bool {
	ov, ok := o.(rulesCSV)
	return ok && v.StringValue.Equal(ov.StringValue)
}

// StringSemanticEquals reports whether the two texts hold the same rules.
func (v rulesCSV) StringSemanticEquals(_ context.Context, nv basetypes.StringValuable) (bool, diag.Diagnostics) {
	var d diag.Diagnostics
	n, ok := nv.(rulesCSV)
	if !ok {
		return false, d
	}
	a, err := canonicalize(v.ValueString())
	if err != nil {
		return false, d
	}
	b, err := canonicalize(n.ValueString())
	if err != nil {
		return false, d
	}
	return a.Digest == b.Digest, d
}
