package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/function"
)

// canonicalRulesFunction is provider::redirects::canonical_rules(text):
// the canonical text of a rule set, so that a configuration whose
// rules_csv is canonical_rules(file("rules.csv")) plans no change when
// only the file's formatting or order changes, and matches the state that
// tofu import writes.
type canonicalRulesFunction struct{}

func newCanonicalRulesFunction() function.Function { return canonicalRulesFunction{} }

func (canonicalRulesFunction) Metadata(_ context.Context, _ function.MetadataRequest, resp *function.MetadataResponse) {
	resp.Name = "canonical_rules"
}

func (canonicalRulesFunction) Definition(_ context.Context, _ function.DefinitionRequest, resp *function.DefinitionResponse) {
	resp.Definition = function.Definition{
		Summary:     "A rule set's canonical text",
		Description: "Reads a draft CSV as \"redirects rule import\" does and writes it back in canonical form: the rules in the draft's order, the columns rules.csv writes, LF line ends.",
		Parameters:  []function.Parameter{function.StringParameter{Name: "rules_csv"}},
		Return:      function.StringReturn{},
	}
}

func (canonicalRulesFunction) Run(ctx context.Context, req function.RunRequest, resp *function.RunResponse) {
	var text string
	resp.Error = req.Arguments.Get(ctx, &text)
	if resp.Error != nil {
		return
	}
	c, err := canonicalize(text)
	if err != nil {
		resp.Error = function.NewArgumentFuncError(0, err.Error())
		return
	}
	resp.Error = resp.Result.Set(ctx, c.Text)
}
