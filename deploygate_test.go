package redirects_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"redirects"
)

func TestDeployOverrideValidate(t *testing.T) {
	for _, tc := range []struct {
		o    redirects.DeployOverride
		want string
	}{
		{redirects.DeployOverride{}, ""},
		{redirects.DeployOverride{AllowShrink: true}, ""},
		{redirects.DeployOverride{Force: true, Reason: "hotfix"}, ""},
		{redirects.DeployOverride{Force: true}, "needs a reason"},
		{redirects.DeployOverride{Force: true, Reason: "  "}, "needs a reason"},
		{redirects.DeployOverride{Reason: "why"}, "only taken with a forced deploy"},
		{redirects.DeployOverride{Force: true, Reason: strings.Repeat("x", redirects.MaxForceReasonLen+1)}, "more than"},
	} {
		err := redirects.DeployOptions{Override: tc.o}.Validate()
		if tc.want == "" && err != nil || tc.want != "" && (redirects.ErrorCode(err) != redirects.EINVALID || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%+v: error %v, want one containing %q", tc.o, err, tc.want)
		}
	}
}

func TestDeployAuditEntryOverride(t *testing.T) {
	p := &redirects.Project{ID: "p1", OrgID: "o1"}
	d := &redirects.Deployment{Version: 3, CreatedAt: time.Unix(0, 0), Override: redirects.DeployOverride{Force: true, Reason: "known loop", AllowShrink: true}}
	e := redirects.DeployAuditEntry(context.Background(), p, d)
	var after map[string]any
	if err := json.Unmarshal(e.After, &after); err != nil {
		t.Fatal(err)
	}
	if after["forced"] != true || after["reason"] != "known loop" || after["allowShrink"] != true {
		t.Fatalf("after = %s, want forced, the reason and allowShrink", e.After)
	}
	d.Override = redirects.DeployOverride{}
	e = redirects.DeployAuditEntry(context.Background(), p, d)
	if strings.Contains(string(e.After), "forced") || strings.Contains(string(e.After), "allowShrink") {
		t.Fatalf("after = %s, want no override fields on a plain deploy", e.After)
	}
}

func TestValidateShrinkLimit(t *testing.T) {
	for _, n := range []int{0, 10, 100} {
		if err := redirects.ValidateShrinkLimit(n); err != nil {
			t.Errorf("%d: %v", n, err)
		}
	}
	for _, n := range []int{-1, 101} {
		if redirects.ErrorCode(redirects.ValidateShrinkLimit(n)) != redirects.EINVALID {
			t.Errorf("%d accepted", n)
		}
	}
}
