package safety

import (
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"testing"

	"redirects"
	"redirects/export"
	"redirects/internal/servertest"
)

// nonASCIIRules are rules whose sources hold characters a request line
// cannot carry raw, as MDN's redirects do.
func nonASCIIRules() []redirects.Rule {
	return rs(
		"exact /café /cafe",
		"exact /docs/straße /docs/strasse 302",
		"exact /a|b^c /pipe",
		"prefix /日本/ /ja/",
		"prefix /✓ /check",
		"exact /plain /plain-target",
	)
}

// TestVerifySendsPercentEncodedPaths: verify puts each path on the request
// line as browsers do, non-ASCII bytes and | ^ percent-encoded in
// upper-case hex, and the server's decoded path is the source.
func TestVerifySendsPercentEncodedPaths(t *testing.T) {
	var mu sync.Mutex
	var sent []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		sent = append(sent, r.RequestURI)
		mu.Unlock()
		w.WriteHeader(204)
	}))
	defer srv.Close()
	if _, err := Verify(context.Background(), srv.URL, nonASCIIRules(), VerifyOptions{}); err != nil {
		t.Fatal(err)
	}
	slices.Sort(sent)
	want := []string{"/%E2%9C%93/_", "/%E6%97%A5%E6%9C%AC/_", "/a%7Cb%5Ec", "/caf%C3%A9", "/docs/stra%C3%9Fe", "/plain"}
	if !slices.Equal(sent, want) {
		t.Fatalf("verify sent %q, want %q", sent, want)
	}
}

// TestVerifyNonASCIIHAProxy runs verify against a real haproxy loaded with
// the haproxy export and, in another frontend, the two map exports with
// their snippets: rules with non-ASCII sources give no mismatch (sent raw,
// haproxy answered them 400, reported as mismatches).
func TestVerifyNonASCIIHAProxy(t *testing.T) {
	bin := servertest.LookPath(t, "haproxy")
	rules := nonASCIIRules()
	for i := range rules {
		rules[i].StatusCode = 301 // the two-column exact map serves 301 only
	}
	files := exports(t, rules)
	dir := t.TempDir()
	servertest.WriteFile(t, filepath.Join(dir, "redirects-exact.map"), files["haproxy-map-exact"])
	servertest.WriteFile(t, filepath.Join(dir, "redirects-prefix.map"), files["haproxy-map-prefix"])
	ports := []int{servertest.FreePort(t), servertest.FreePort(t)}
	cfg := servertest.HAProxyHead +
		servertest.HAProxyFrontend("acls", ports[0], dir, string(files["haproxy"])) +
		servertest.HAProxyFrontend("maps", ports[1], dir, export.HAProxyMapExactSnippet+"\n"+export.HAProxyMapPrefixSnippet)
	path := filepath.Join(dir, "haproxy.cfg")
	servertest.WriteFile(t, path, []byte(cfg))
	servertest.Check(t, bin, "-c", "-f", path)
	servertest.Start(t, ports, bin, "-db", "-f", path)
	for _, port := range ports {
		m, err := Verify(context.Background(), "http://127.0.0.1:"+strconv.Itoa(port), rules, VerifyOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if len(m) != 0 {
			t.Errorf("port %d: %d mismatches for the project's own export: %v", port, len(m), m)
		}
	}
}
