package importer

import (
	"encoding/csv"
	"fmt"
	"io"
	"strings"

	"redirects"
	"redirects/engine/pattern"
)

// The cloudflare writer: a draft as a Cloudflare Bulk Redirect List CSV
// (no header; source_url,target_url,status,preserve_query_string,
// include_subdomains,subpath_matching,preserve_path_suffix). Cloudflare's
// source and target URLs carry a host: the project's first host, or, for a
// project that declares none, CloudflareHost, to be replaced before the
// upload (docs/migrate.md says so).
//
// Of the extended rules (redirects.Rule.Extended), a Bulk Redirect List
// has the form of one: an exact or starts_with rule on one host is written
// with that host in its source URL (and before a path destination), and
// answers there only, as here. Cloudflare's Bulk Redirects match literal
// URLs: pattern and regex rules, query conditions and hosts that name
// subdomains (include_subdomains takes the host itself too) are left out
// and listed.
func init() {
	RegisterWriter(&Writer{Name: "cloudflare", FileName: "bulk-redirects.csv", ContentType: "text/csv; charset=utf-8", Write: writeCloudflare, Extended: true})
}

// CloudflareHost is the host the cloudflare writer puts in every source
// URL, and before every path destination (Cloudflare's target must be a
// URL), when the project declares no host.
const CloudflareHost = "example.com"

func writeCloudflare(w io.Writer, rules []redirects.Rule, s redirects.Settings, hosts []string) ([]Unexpressed, error) {
	host := CloudflareHost
	if len(hosts) > 0 {
		host = hosts[0]
	}
	cw := csv.NewWriter(w)
	var out []Unexpressed
	if hasExtended(rules) {
		// Rules on a host first: they answer before the rules for every
		// host here, and Cloudflare takes one redirect per source URL.
		var kept []redirects.Rule
		for pass := range 2 {
			for i := range rules {
				r := &rules[i]
				if (r.Host != "") != (pass == 0) {
					continue
				}
				if why := cloudflareExtended(r); why != "" {
					out = append(out, Unexpressed{RuleID: r.ID, Source: r.Source, Dropped: true, Reason: ruleKindText(r) + ": " + why})
					continue
				}
				kept = append(kept, *r)
			}
		}
		rules = kept
	}
	written := map[string]bool{} // source URLs: Cloudflare refuses a repeated one
	var prefixes []*redirects.Rule
	for i := range rules {
		if rules[i].MatchType == redirects.StartsWith {
			prefixes = append(prefixes, &rules[i])
		}
	}
	for i := range rules {
		r := &rules[i]
		host := host
		if r.Host != "" {
			host = r.Host
		}
		if len(r.ExceptHosts) > 0 {
			// A rule for every host is written on one: one its
			// exceptHosts leave to it.
			h, ok := cloudflareHostFor(r, append(hosts, CloudflareHost))
			if !ok {
				out = append(out, Unexpressed{RuleID: r.ID, Source: r.Source, Dropped: true,
					Reason: "its exceptHosts (" + strings.Join(r.ExceptHosts, ", ") + ") leave out every host this file could name in its source URL"})
				continue
			}
			host = h
		}
		var why []string
		if r.StatusCode == redirects.StatusGone {
			out = append(out, Unexpressed{RuleID: r.ID, Source: r.Source, Dropped: true,
				Reason: "Cloudflare Bulk Redirects only redirect (301, 302, 307, 308): a 410 has no equivalent"})
			continue
		}
		if written[host+r.Source] {
			out = append(out, Unexpressed{RuleID: r.ID, Source: r.Source, Dropped: true,
				Reason: "Cloudflare takes one URL redirect per source URL, and another rule has this source"})
			continue
		}
		written[host+r.Source] = true
		status := r.StatusCode
		if status == 303 {
			status = 302
			why = append(why, "Cloudflare has no 303: written as 302")
		}
		target := r.Destination
		if strings.HasPrefix(target, "/") {
			target = "https://" + host + target
		}
		pq := r.PreserveQuery
		_, dq, df := redirects.SplitDestination(r.Destination)
		if pq && dq != "" {
			pq = false
			why = append(why, "Cloudflare cannot keep the request's query with a target that has one: the request's query is dropped")
		}
		if r.PreserveQuery && df != "" {
			why = append(why, "the target has a fragment: where Cloudflare puts the request's query is not documented")
		}
		subpath, suffix := r.MatchType == redirects.StartsWith, r.PreservePath
		if subpath {
			if !strings.HasSuffix(r.Source, "/") {
				why = append(why, "Cloudflare's subpath matching takes whole segments: "+r.Source+"x is not redirected there")
			} else if suffix {
				if p, _, _ := redirects.SplitDestination(r.Destination); !strings.HasSuffix(p, "/") && !isBareOrigin(p) {
					why = append(why, "Cloudflare joins the rest of the path to the target with a '/'")
				}
			}
			for _, a := range prefixes {
				if a != r && a.Host == r.Host && a.Priority < r.Priority && len(a.Source) < len(r.Source) && strings.HasPrefix(s.FoldCase(r.Source), s.FoldCase(a.Source)) {
					why = append(why, fmt.Sprintf("here the rule for %s (a lower priority) answers the paths under %s; Cloudflare picks the longer source", a.Source, r.Source))
					break
				}
			}
		}
		if s.CaseInsensitive && hasASCIILetter(r.Source) {
			why = append(why, "Cloudflare compares paths case sensitively: "+r.Source+" in other case is not redirected there")
		}
		if s.IgnoreTrailingSlash && r.Source != "/" && (r.MatchType == redirects.Exact || strings.HasSuffix(r.Source, "/")) {
			why = append(why, "Cloudflare compares a trailing slash: "+toggleSlash(r.Source)+" is not redirected there")
		}
		rec := []string{host + cloudflareEscape(r.Source), target, fmt.Sprint(status),
			cfBoolText(pq), "FALSE", cfBoolText(subpath), cfBoolText(subpath && suffix)}
		if err := cw.Write(rec); err != nil {
			return out, err
		}
		if len(why) > 0 {
			out = append(out, Unexpressed{RuleID: r.ID, Source: r.Source, Reason: strings.Join(why, "; ")})
		}
	}
	cw.Flush()
	return out, cw.Error()
}

// cloudflareExtended says why an extended rule has no Bulk Redirect, or ""
// for a rule on one host, which its source URL names.
func cloudflareExtended(r *redirects.Rule) string {
	switch {
	case r.MatchType == redirects.Pattern || r.MatchType == redirects.Regex:
		return "Cloudflare's Bulk Redirects match literal URLs (its patterns are Single Redirects' expressions, which a list does not hold)"
	case strings.IndexByte(r.Source, '?') >= 0:
		return "Cloudflare's Bulk Redirects match no query parameters"
	case wildcardHost(r.Host):
		return "Cloudflare's include_subdomains takes the host itself too, which " + r.Host + " does not"
	}
	return ""
}

// cloudflareHostFor returns the first of hosts that rule r, which has
// exceptHosts, answers (docs/contract.md#hosts).
func cloudflareHostFor(r *redirects.Rule, hosts []string) (string, bool) {
	for _, h := range hosts {
		if !pattern.ExceptsHost(r.ExceptHosts, h) {
			return h, true
		}
	}
	return "", false
}

// isBareOrigin reports whether an absolute URL has no path (our
// preservePath then puts the '/' itself).
func isBareOrigin(p string) bool {
	lower := strings.ToLower(p)
	for _, sch := range []string{"http://", "https://"} {
		if strings.HasPrefix(lower, sch) && !strings.Contains(p[len(sch):], "/") {
			return true
		}
	}
	return false
}

func cfBoolText(b bool) string {
	if b {
		return "TRUE"
	}
	return "FALSE"
}

// cloudflareEscape percent-encodes a decoded source path for a source URL:
// bytes outside printable ASCII, and '%'.
func cloudflareEscape(p string) string {
	const hexd = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		c := p[i]
		if c <= ' ' || c >= 0x7f || c == '%' || c == '?' || c == '#' {
			b.WriteByte('%')
			b.WriteByte(hexd[c>>4])
			b.WriteByte(hexd[c&15])
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}
