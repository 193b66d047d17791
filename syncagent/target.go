// Package syncagent is `redirects sync`: an agent that follows a project's
// live deployment through the edge API's change feed (an export long-poll,
// docs/contract.md#the-change-feed) and puts each new file where a web
// server reads it: written atomically, checked, reloaded, and put back when
// the check fails; or, for HAProxy maps, swapped in through the Runtime API
// without a reload. It needs an edge address and a project's API key, and no
// database.
//
// (The package is not named sync: that would shadow the standard library's
// in every file that needs both.)
package syncagent

import (
	"fmt"
	"net/netip"
	"net/url"
	"strings"

	"redirects"
)

// Target is one file the agent keeps current: one project's export in one
// format.
type Target struct {
	// Name labels the target in logs and metrics: the config file's
	// section name, or Out.
	Name    string
	Edge    string // base URL of the edge API, e.g. https://edge.example.com
	Key     string // the project's API key
	Project string
	Format  string
	Out     string // the file the server reads
	// Check and Reload are shell command lines (sh -c): Check runs after
	// the new file is in place (nginx -t), Reload after a passed check.
	Check  string
	Reload string
	// HAProxySocket and HAProxyMap make the target an HAProxy map swapped
	// through the Runtime API (prepare map, add map @VER, commit map): no
	// reload. HAProxyMap names the map as HAProxy knows it (its file path
	// in the configuration); it defaults to Out.
	HAProxySocket string
	HAProxyMap    string
}

// Validate checks a target: every value it needs, a known format, an edge
// URL. The error names the target and what is wrong.
func (t *Target) Validate() error {
	missing := []string{}
	for _, f := range []struct{ name, v string }{{"edge", t.Edge}, {"key", t.Key}, {"project", t.Project}, {"format", t.Format}, {"out", t.Out}} {
		if f.v == "" {
			missing = append(missing, f.name)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("target %s: missing %s", t.label(), strings.Join(missing, ", "))
	}
	if redirects.FormatExtension(t.Format) == "" {
		return fmt.Errorf("target %s: format %q is not one of %s", t.label(), t.Format, strings.Join(redirects.Formats, ", "))
	}
	u, err := url.Parse(t.Edge)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("target %s: edge %q is not an http:// or https:// URL", t.label(), t.Edge)
	}
	if !redirects.WellFormedKey(t.Key) {
		return fmt.Errorf("target %s: key is not an API key (redir_live_... or redir_test_...)", t.label())
	}
	if t.HAProxySocket != "" && t.Format != "haproxy-map-exact" && t.Format != "haproxy-map-prefix" {
		return fmt.Errorf("target %s: haproxy-socket needs the format haproxy-map-exact or haproxy-map-prefix, not %s", t.label(), t.Format)
	}
	if t.HAProxyMap != "" && t.HAProxySocket == "" {
		return fmt.Errorf("target %s: haproxy-map needs haproxy-socket", t.label())
	}
	if t.HAProxySocket != "" && t.Reload != "" {
		return fmt.Errorf("target %s: a Runtime API target is swapped without a reload: drop reload", t.label())
	}
	return nil
}

// CheckEdgeTransport refuses a plain-http edge on another machine unless
// allowInsecure (--allow-insecure-edge): the agent writes what the edge
// sends into a web server's configuration, and over plain HTTP anyone on
// the path could send it. A loopback address (127.0.0.0/8, ::1,
// localhost) is on this machine. The host name is not resolved.
func (t *Target) CheckEdgeTransport(allowInsecure bool) error {
	u, err := url.Parse(t.Edge)
	if err != nil || u.Scheme != "http" || allowInsecure {
		return nil
	}
	host := u.Hostname()
	if ip, err := netip.ParseAddr(host); err == nil && ip.Unmap().IsLoopback() {
		return nil
	}
	if strings.EqualFold(host, "localhost") || strings.HasSuffix(strings.ToLower(host), ".localhost") {
		return nil
	}
	return fmt.Errorf("target %s: edge %s is plain http on another machine: anyone on the way could write the server's configuration; use https://, or --allow-insecure-edge to accept it", t.label(), t.Edge)
}

func (t *Target) label() string {
	if t.Name != "" {
		return t.Name
	}
	if t.Out != "" {
		return t.Out
	}
	return "(unnamed)"
}

func (t *Target) mapName() string {
	if t.HAProxyMap != "" {
		return t.HAProxyMap
	}
	return t.Out
}
