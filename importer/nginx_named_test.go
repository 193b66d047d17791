package importer

import (
	"context"
	"strings"
	"testing"

	"redirects"
)

// TestNginxNamedGroups: a rewrite's named groups are its numbered groups,
// and $name and ${name} in the replacement insert them, as in nginx; the
// line imports as is and answers as nginx does.
func TestNginxNamedGroups(t *testing.T) {
	in := "server {\n" +
		"rewrite ^/docs/(?<ver>v1\\.[12])/cli/(?<a>[^/]+)/(?P<b>[^/]+)$ /docs/$ver/werf_${a}_${b}.html redirect;\n" +
		"location ~ ^/old/(?'n'[0-9]+)$ { return 301 /new/$n; }\n" +
		"}\n"
	res, err := Read(context.Background(), strings.NewReader(in), "nginx", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Lines) != 0 || res.AsIs != 2 {
		t.Fatalf("as is %d, lines %+v; want both lines as is", res.AsIs, res.Lines)
	}
	for wire, want := range map[string]string{
		"/docs/v1.2/cli/helm/get": "/docs/v1.2/werf_helm_get.html",
		"/old/42":                 "/new/42",
		"/docs/v1.3/cli/helm/get": "",
	} {
		a, ok := lookupImported(t, res, redirects.Settings{}, "", wire)
		if got := a.target; !ok && want != "" || ok && got != want {
			t.Errorf("%s answers %q (%v), want %q", wire, got, ok, want)
		}
	}
	// Past nine groups, the expression and the URL stay as written.
	re, dst := numberNamedGroups("^/(a)(b)(c)(d)(e)(f)(g)(h)(i)(?<j>k)$", "/x/$j")
	if dst != "/x/$j" || !strings.Contains(re, "(?<j>") {
		t.Errorf("ten groups: %q %q, want them as written", re, dst)
	}
}
