package redirects_test

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

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
