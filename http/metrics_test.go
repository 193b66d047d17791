package http

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"redirects/internal/version"
)

// TestMetricsBuildInfo checks that /metrics names the running build, so a
// fleet's dashboards can tell which nodes run which release.
func TestMetricsBuildInfo(t *testing.T) {
	var b bytes.Buffer
	NewMetrics().write(&b, nil)
	bi := version.Get()
	want := fmt.Sprintf("redirects_build_info{version=%q,commit=%q,goversion=%q} 1\n", bi.Version, bi.Commit, bi.GoVersion)
	if !strings.Contains(b.String(), want) {
		t.Fatalf("metrics lack %q:\n%s", want, b.String())
	}
	if !strings.Contains(b.String(), "# TYPE redirects_build_info gauge\n") {
		t.Fatalf("metrics lack the build info's TYPE line:\n%s", b.String())
	}
}
