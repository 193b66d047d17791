package engine_test

import (
	"math/rand/v2"
	"reflect"
	"testing"

	"redirects"
	"redirects/engine"
	"redirects/internal/rulemodel"
)

// TestEncodeRulesOptions round-trips random rules that use every option and
// status, and holds the snapshots of rules without option flags to the
// first format, byte for byte, so that deployments stored before options
// existed and new ones without options are read and written alike.
func TestEncodeRulesOptions(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	sawV1, sawV2 := false, false
	for round := 0; round < 200; round++ {
		_, rules := rulemodel.Project(rng, 1+rng.IntN(20))
		for i := range rules {
			rules[i].ProjectID = "prj_x"
		}
		b := engine.EncodeRules(rules)
		flags := false
		for _, r := range rules {
			flags = flags || r.PreservePath || r.PreserveQuery
		}
		switch {
		case flags && b[0] != 2, !flags && b[0] != 1:
			t.Fatalf("format %d for rules with option flags %v", b[0], flags)
		}
		sawV1, sawV2 = sawV1 || !flags, sawV2 || flags
		got, err := engine.DecodeRules("prj_x", b)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, rules) {
			t.Fatalf("round trip changed the rules:\n got %+v\nwant %+v", got, rules)
		}
		// A flag byte with unknown bits is corruption, not a rule.
		if flags {
			bad := append([]byte(nil), b...)
			bad[len(bad)-1] |= 0x80
			if _, err := engine.DecodeRules("prj_x", bad); redirects.ErrorCode(err) != redirects.EINTERNAL {
				t.Fatalf("DecodeRules of unknown flags = %v, want EINTERNAL", err)
			}
		}
	}
	if !sawV1 || !sawV2 {
		t.Fatalf("the random rules did not exercise both formats (v1 %v, v2 %v)", sawV1, sawV2)
	}
}
