package importer

import (
	"context"
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"testing"

	"redirects"
)

// TestSuggestHostsModel checks the hosts suggestion against a model
// written from docs/migrate.md on random Netlify files of domain lines:
// the hosts the lines use (host keys: lower-case), in first-use order,
// less the declared ones, at most redirects.MaxProjectHosts; declare is the
// declared hosts then those, empty past the limit; none, no suggestion.
func TestSuggestHostsModel(t *testing.T) {
	rng := rand.New(rand.NewSource(36))
	for iter := range 300 {
		pool := 1 + rng.Intn(70)
		var declared []string
		for i := range pool {
			if rng.Intn(4) == 0 {
				declared = append(declared, fmt.Sprintf("h%d.example.org", i))
			}
		}
		declared = declared[:min(len(declared), redirects.MaxProjectHosts)]
		var b strings.Builder
		var want []string
		isDeclared := func(h string) bool { return slices.Contains(declared, h) }
		for i := range rng.Intn(120) {
			switch rng.Intn(3) {
			case 0:
				fmt.Fprintf(&b, "/plain%d /x 301\n", i)
			default:
				h := fmt.Sprintf("h%d.example.org", rng.Intn(pool))
				written := h
				if rng.Intn(2) == 0 {
					written = strings.ToUpper(h)
				}
				fmt.Fprintf(&b, "https://%s/p%d /x 301\n", written, i)
				if !isDeclared(h) && !slices.Contains(want, h) {
					want = append(want, h)
				}
			}
		}
		res, err := Read(context.Background(), strings.NewReader(b.String()), "netlify", Options{Hosts: declared})
		if err != nil {
			t.Fatal(err)
		}
		got := res.SuggestHosts
		if len(want) == 0 {
			if got != nil {
				t.Fatalf("iter %d: no undeclared host, suggestion %+v\n%s", iter, got, b.String())
			}
			continue
		}
		more := len(want) > redirects.MaxProjectHosts
		wantHosts := want[:min(len(want), redirects.MaxProjectHosts)]
		var wantDeclare []string
		if !more && len(declared)+len(want) <= redirects.MaxProjectHosts {
			wantDeclare = append(append(wantDeclare, declared...), want...)
		}
		if got == nil || !slices.Equal(got.Hosts, wantHosts) || !slices.Equal(got.Declare, wantDeclare) || got.Declare == nil {
			t.Fatalf("iter %d (declared %v): suggestion %+v, want hosts %v declare %v", iter, declared, got, wantHosts, wantDeclare)
		}
		if len(wantDeclare) > 0 && !strings.Contains(got.Why, `"redirects project update --host `+strings.Join(wantDeclare, " --host ")+`"`) {
			t.Fatalf("iter %d: why %q lacks the command", iter, got.Why)
		}
		if len(wantDeclare) == 0 && !strings.Contains(got.Why, "a project declares at most 50 hosts") {
			t.Fatalf("iter %d: why %q does not say why there is no command", iter, got.Why)
		}
	}
}

// TestSuggestHostsExceptHosts: the hosts a default server's rules leave to
// the other server blocks (their exceptHosts) are the site's too, and are
// suggested with the hosts rules are scoped to; wildcards are not.
func TestSuggestHostsExceptHosts(t *testing.T) {
	file := "server {\n listen 443 ssl;\n server_name www.example.com;\n return 301 https://example.com$request_uri;\n}\n" +
		"server {\n listen 443 ssl;\n server_name example.com *.example.org;\n}\n"
	res, err := Read(context.Background(), strings.NewReader(file), "nginx", Options{Hosts: []string{"www.example.com"}})
	if err != nil {
		t.Fatal(err)
	}
	got := res.SuggestHosts
	if got == nil || !slices.Equal(got.Hosts, []string{"example.com"}) || !strings.Contains(got.Why, "leave to other rules") {
		t.Fatalf("suggestion %+v, want example.com, which the default server's rule leaves to another", got)
	}
}
