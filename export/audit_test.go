package export

import (
	"bytes"
	"encoding/json"
	"slices"
	"testing"
	"time"

	"redirects"
)

func TestSafeCells(t *testing.T) {
	got := SafeCells("=SUM(A1)", "+1", "-2", "@x", "\tx", "\rx", "{\"a\":1}", "", "plain", "org_1")
	want := []string{"'=SUM(A1)", "'+1", "'-2", "'@x", "'\tx", "'\rx", "{\"a\":1}", "", "plain", "org_1"}
	if !slices.Equal(got, want) {
		t.Errorf("SafeCells = %q, want %q", got, want)
	}
}

func TestWriteAuditCSV(t *testing.T) {
	e := &redirects.AuditEntry{ID: 7, Time: time.Date(2026, 3, 14, 15, 9, 26, 0, time.UTC), OrgID: "org_1",
		Actor: redirects.Actor{Kind: redirects.ActorToken, ID: "tok_1", Label: "=cmd()"}, Action: "rule.create",
		ObjectType: "rule", ObjectID: "3", After: json.RawMessage(`{"source":"/a,b"}`)}
	var b bytes.Buffer
	if err := WriteAuditCSV(&b, []*redirects.AuditEntry{e}); err != nil {
		t.Fatal(err)
	}
	want := "id,time,orgId,projectId,actorKind,actorId,actorLabel,remoteAddr,action,objectType,objectId,before,after\r\n" +
		"7,2026-03-14T15:09:26Z,org_1,,token,tok_1,'=cmd(),,rule.create,rule,3,,\"{\"\"source\"\":\"\"/a,b\"\"}\"\r\n"
	if b.String() != want {
		t.Errorf("WriteAuditCSV =\n%q\nwant\n%q", b.String(), want)
	}
}
