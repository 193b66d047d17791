package redirects_test

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"redirects"
)

// TestExceptHostsValidate: exceptHosts goes on a rule without a host only;
// its entries are stored as host keys in the order written; a malformed
// entry, a repeated one (after normalisation) and more than the limit are
// refused naming the field, and the rule is left as it was given.
func TestExceptHostsValidate(t *testing.T) {
	base := redirects.Rule{MatchType: redirects.Exact, Source: "/", Destination: "https://example.com/", StatusCode: 301, Priority: 100}
	r := base
	r.ExceptHosts = []string{"Example.COM.", "*.Bücher.example", "a.example.org:8443"}
	if err := r.Validate(); err != nil {
		t.Fatal(err)
	}
	if want := []string{"example.com", "*.xn--bcher-kva.example", "a.example.org"}; !reflect.DeepEqual(r.ExceptHosts, want) {
		t.Fatalf("stored %q, want %q", r.ExceptHosts, want)
	}
	r = base
	r.ExceptHosts = []string{}
	if err := r.Validate(); err != nil || r.ExceptHosts != nil {
		t.Fatalf("an empty list: %v, %#v; want it stored as none", err, r.ExceptHosts)
	}
	many := make([]string, redirects.MaxExceptHosts+1)
	for i := range many {
		many[i] = fmt.Sprintf("h%d.example", i)
	}
	for _, c := range []struct {
		host   string
		except []string
		want   string
	}{
		{"example.org", []string{"example.com"}, "exceptHosts applies to a rule without a host only"},
		{"", []string{"example.com", "bad host"}, `exceptHosts[1] "bad host" is not a host name`},
		{"", []string{""}, `exceptHosts[0] "" is not a host name`},
		{"", []string{"a*.example.com"}, `exceptHosts[0] "a*.example.com" is not a host name`},
		{"", []string{"Example.com", "example.com."}, `exceptHosts[1] "example.com." is exceptHosts[0] again`},
		{"", many, "exceptHosts holds 101 hosts, more than the limit of 100"},
	} {
		r := base
		r.Host, r.ExceptHosts = c.host, append([]string(nil), c.except...)
		err := r.Validate()
		if redirects.ErrorCode(err) != redirects.EINVALID || !strings.Contains(err.Error(), c.want) {
			t.Errorf("host %q exceptHosts %q: %v, want EINVALID %q", c.host, c.except, err, c.want)
		}
		if !reflect.DeepEqual(r.ExceptHosts, c.except) {
			t.Errorf("host %q exceptHosts %q: refused, but changed to %q", c.host, c.except, r.ExceptHosts)
		}
	}
	r = base
	r.ExceptHosts = many[:redirects.MaxExceptHosts]
	if err := r.Validate(); err != nil {
		t.Fatalf("%d hosts: %v", redirects.MaxExceptHosts, err)
	}
}

// TestExceptHostsUpdate: an update that gives a rule with exceptHosts a
// host is refused naming the field.
func TestExceptHostsUpdate(t *testing.T) {
	r := redirects.Rule{MatchType: redirects.StartsWith, Source: "/", Destination: "https://example.com/", StatusCode: 301, Priority: 100, ExceptHosts: []string{"example.com"}}
	h := "www.example.com"
	u := redirects.RuleUpdate{Host: &h}
	u.Apply(&r)
	if err := r.Validate(); err == nil || !strings.Contains(err.Error(), "exceptHosts") {
		t.Fatalf("an update setting a host on a rule with exceptHosts: %v, want a refusal naming exceptHosts", err)
	}
}

// TestRuleEqualNamesEveryField: Rule.Equal tells apart two rules that
// differ in any one field, so a field added to Rule and not to Equal fails
// here (each field is set, one at a time, by reflection).
func TestRuleEqualNamesEveryField(t *testing.T) {
	typ := reflect.TypeOf(redirects.Rule{})
	for i := range typ.NumField() {
		var a, b redirects.Rule
		f := reflect.ValueOf(&b).Elem().Field(i)
		switch f.Kind() {
		case reflect.String:
			f.SetString("x")
		case reflect.Int, reflect.Int64:
			f.SetInt(1)
		case reflect.Uint8:
			f.SetUint(1)
		case reflect.Bool:
			f.SetBool(true)
		case reflect.Slice:
			f.Set(reflect.ValueOf([]string{"x"}))
		case reflect.Struct: // CreatedAt
			f.Set(reflect.ValueOf(time.Unix(1, 0)))
		default:
			t.Fatalf("field %s of kind %s: teach this test to set it", typ.Field(i).Name, f.Kind())
		}
		if a.Equal(&b) || b.Equal(&a) {
			t.Errorf("Rule.Equal does not compare the field %s: add it", typ.Field(i).Name)
		}
		if !b.Equal(&b) {
			t.Errorf("a rule with %s set is not Equal to itself", typ.Field(i).Name)
		}
	}
	a, b := redirects.Rule{ExceptHosts: []string{}}, redirects.Rule{}
	if !a.Equal(&b) {
		t.Errorf("an empty exceptHosts list and none differ")
	}
}
