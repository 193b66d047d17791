package importer

import (
	"strconv"
	"strings"

	"redirects"
	"redirects/engine/pattern"
)

// The writers of extended rules (redirects.Rule.Extended): pattern and
// regex rules, rules with a host and rules with query conditions are
// written in a platform's own syntax where it has one, and listed where it
// has not. Each writer works from the engine's view of every rule
// (pattern.View: the pieces of a pattern, the decoded conditions, the
// destination's captures), in the lookup API's order
// (docs/contract.md#precedence), so that a first-match platform answers
// with the rule the lookup API picks and the file and the API cannot read
// a source differently.

// hasExtended reports whether some rule is extended.
func hasExtended(rules []redirects.Rule) bool {
	for i := range rules {
		if rules[i].Extended() {
			return true
		}
	}
	return false
}

// writerViews compiles rules with the pattern engine and returns their
// views in the lookup API's order; ok is false when the engine refuses
// them (rules stored before validation knew patterns).
func writerViews(rules []redirects.Rule, s redirects.Settings) ([]pattern.View, bool) {
	prs := make([]pattern.Rule, len(rules))
	for i := range rules {
		prs[i] = rules[i].PatternRule()
	}
	set, err := pattern.Compile(prs, s.PatternSettings())
	if err != nil {
		return nil, false
	}
	return set.Views(), true
}

// viewNames returns the capture names a rule's view defines: its
// placeholders' and its query captures'.
func viewNames(v *pattern.View) map[string]bool {
	names := map[string]bool{}
	for _, p := range v.Pieces {
		if p.Name != "" {
			names[p.Name] = true
		}
	}
	for _, c := range v.Conds {
		if c.Name != "" {
			names[c.Name] = true
		}
	}
	return names
}

// freshName returns a capture name that names does not hold, and adds it.
func freshName(names map[string]bool, base string) string {
	for i := 1; ; i++ {
		n := base + strconv.Itoa(i)
		if !names[n] {
			names[n] = true
			return n
		}
	}
}

// destWithCaptures writes a view's destination with each capture as
// ":name" (rename maps a capture to the name the platform gives it).
// Text after a capture that starts with a name byte would lengthen the
// name: the destination was written so that it does not (the same rule
// reads it), but a renamed capture is checked again by the caller.
func destWithCaptures(v *pattern.View, rename map[string]string) string {
	var b strings.Builder
	for _, d := range v.Dest {
		if d.Capture == "" {
			b.WriteString(d.Text)
			continue
		}
		n := d.Capture
		if r, ok := rename[n]; ok {
			n = r
		}
		b.WriteString(":" + n)
	}
	return b.String()
}

// queryEscape percent-encodes a decoded query key or value for a file:
// every byte but ASCII letters, digits and "-._~".
func queryEscape(s string) string {
	const hexd = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'a' <= c|0x20 && c|0x20 <= 'z' || '0' <= c && c <= '9' || strings.IndexByte("-._~", c) >= 0 {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hexd[c>>4])
		b.WriteByte(hexd[c&15])
	}
	return b.String()
}

// wildcardHost reports whether a rule's host key names subdomains.
func wildcardHost(h string) bool { return strings.HasPrefix(h, "*.") }

// ruleKindText names what makes a rule extended, for a reason.
func ruleKindText(r *redirects.Rule) string {
	switch {
	case r.MatchType == redirects.Pattern || r.MatchType == redirects.Regex:
		return "a " + r.MatchType.String() + " rule"
	case r.Host != "":
		return "a rule with a host (" + r.Host + ")"
	}
	return "a rule with query conditions"
}
