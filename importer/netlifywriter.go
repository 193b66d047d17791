package importer

import (
	"bufio"
	"fmt"
	"io"
	"sort"
	"strings"

	"redirects"
)

// The netlify writer: a draft as a _redirects file (Netlify and Cloudflare
// Pages). Netlify answers with the first line that matches, so the file
// lists the exact rules first, then the starts_with rules in the order our
// matching prefers them (lower priority, then longer source). Every line
// is forced ("!"): our rules answer whether or not a file exists at the
// path, and an unforced Netlify rule gives way to a file.
func init() {
	RegisterWriter(&Writer{Name: "netlify", FileName: "_redirects", ContentType: "text/plain; charset=utf-8", Write: writeNetlify})
}

// netlifyGonePage is what a 410 rule serves on Netlify, which has no
// status without a destination: the site's own 404 page, with status 410.
const netlifyGonePage = "/404.html"

func writeNetlify(w io.Writer, rules []redirects.Rule, s redirects.Settings, _ []string) ([]Unexpressed, error) {
	order := netlifyOrder(rules)
	bw := bufio.NewWriterSize(w, 64<<10)
	fmt.Fprintf(bw, "# Netlify _redirects written by redirects (%d rules; project settings %s)\n", len(order), s)
	var out []Unexpressed
	seen := map[string]int64{} // exact sources as Netlify compares them -> first rule
	for _, r := range order {
		var why []string
		src := netlifyEscape(r.Source)
		dst := r.Destination
		if r.MatchType == redirects.StartsWith {
			if !strings.HasSuffix(r.Source, "/") {
				why = append(why, fmt.Sprintf("Netlify documents splats after a '/' only: %s* may not redirect %sx there", src, r.Source))
			}
			src += "*"
			if r.PreservePath {
				end := len(dst)
				if i := strings.IndexAny(dst, "?#"); i >= 0 {
					end = i
				}
				p := dst[:end]
				if lower := strings.ToLower(p); (strings.HasPrefix(lower, "http://") || strings.HasPrefix(lower, "https://")) && !strings.Contains(p[strings.Index(p, "//")+2:], "/") {
					p += "/"
				}
				dst = p + ":splat" + dst[end:]
			}
		}
		status := fmt.Sprint(r.StatusCode)
		if r.StatusCode == redirects.StatusGone {
			dst = netlifyGonePage
		}
		if s.CaseInsensitive && hasASCIILetter(r.Source) {
			why = append(why, "Netlify compares paths case sensitively: "+r.Source+" in other case is not redirected there")
		}
		if !s.IgnoreTrailingSlash && r.Source != "/" {
			why = append(why, "Netlify ignores a trailing slash: "+toggleSlash(r.Source)+" is redirected there too")
		}
		if r.StatusCode != redirects.StatusGone && !r.PreserveQuery {
			why = append(why, "Netlify passes the request's query on to the destination")
		}
		if r.StatusCode == 307 {
			why = append(why, "Netlify documents 307 as unsupported")
		}
		if r.StatusCode != redirects.StatusGone && strings.Contains(r.Destination, "#") {
			why = append(why, "the destination has a fragment: where Netlify puts the request's query is not documented")
		}
		if r.MatchType == redirects.Exact {
			key := strings.TrimSuffix(r.Source, "/")
			if first, ok := seen[key]; ok {
				why = append(why, fmt.Sprintf("Netlify ignores a trailing slash: the rule %d for the same path comes first there", first))
			} else {
				seen[key] = r.ID
			}
		}
		fmt.Fprintf(bw, "%s  %s  %s!\n", src, dst, status)
		if len(why) > 0 {
			out = append(out, Unexpressed{RuleID: r.ID, Source: r.Source, Reason: strings.Join(why, "; ")})
		}
	}
	return out, bw.Flush()
}

// netlifyOrder returns rules in the order our matching prefers them: exact
// rules (in the order given) before starts_with rules sorted by the
// contract's precedence.
func netlifyOrder(rules []redirects.Rule) []redirects.Rule {
	order := make([]redirects.Rule, 0, len(rules))
	for _, r := range rules {
		if r.MatchType == redirects.Exact {
			order = append(order, r)
		}
	}
	n := len(order)
	for _, r := range rules {
		if r.MatchType == redirects.StartsWith {
			order = append(order, r)
		}
	}
	sw := order[n:]
	sort.SliceStable(sw, func(i, j int) bool {
		a, b := &sw[i], &sw[j]
		if a.Priority != b.Priority {
			return a.Priority < b.Priority
		}
		if len(a.Source) != len(b.Source) {
			return len(a.Source) > len(b.Source)
		}
		if !a.CreatedAt.Equal(b.CreatedAt) {
			return a.CreatedAt.Before(b.CreatedAt)
		}
		return a.ID < b.ID
	})
	return order
}

// netlifyEscape percent-encodes a decoded source for a _redirects file:
// bytes outside printable ASCII, '%', and ':' and '*' (which Netlify would
// read as a placeholder or a splat).
func netlifyEscape(p string) string {
	const hexd = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		c := p[i]
		if c <= ' ' || c >= 0x7f || c == '%' || c == ':' || c == '*' || c == '#' || c == '?' {
			b.WriteByte('%')
			b.WriteByte(hexd[c>>4])
			b.WriteByte(hexd[c&15])
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

func hasASCIILetter(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i] | 0x20; 'a' <= c && c <= 'z' {
			return true
		}
	}
	return false
}

func toggleSlash(p string) string {
	if strings.HasSuffix(p, "/") {
		return strings.TrimSuffix(p, "/")
	}
	return p + "/"
}
