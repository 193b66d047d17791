package safety

import (
	"fmt"

	"redirects"
)

// Kinds of findings about where destinations lead, from the project's
// last destination check (docs/contract.md#destination-checks). Both are
// warnings: the web changes without a deploy, and a deploy is not the
// place to learn of it.
const (
	// KindBrokenDestination: the rule's destination was last seen broken
	// (an answer of 400 or more, no answer in time, a redirect loop, a
	// failed request).
	KindBrokenDestination Kind = "broken-destination"
	// KindOffsiteDestination: the rule's destination redirects again, to
	// another host.
	KindOffsiteDestination Kind = "offsite-destination"
)

// lintDestinations warns of each rule whose destination checks holds as
// broken or leading off-site.
func lintDestinations(rules []redirects.Rule, checks map[string]redirects.DestinationCheck) []Finding {
	if len(checks) == 0 {
		return nil
	}
	var out []Finding
	for i := range rules {
		r := &rules[i]
		d, ok := checks[r.Destination]
		if !ok || r.Destination == "" {
			continue
		}
		path := []string{r.Source, d.URL}
		if d.FinalURL != "" && d.FinalURL != d.URL {
			path = append(path, d.FinalURL)
		}
		switch {
		case d.Broken():
			what := fmt.Sprintf("answered %d", d.Status)
			if d.Error != "" {
				what = d.Error
			}
			if d.Status != 0 && d.Hops > 0 {
				what = fmt.Sprintf("answered %d after %d redirects", d.Status, d.Hops)
			}
			out = append(out, Finding{Severity: SeverityWarning, Kind: KindBrokenDestination,
				Message: fmt.Sprintf("%s leads to a broken destination: %s %s when checked at %s", Ref(r), d.URL, what, d.CheckedAt.UTC().Format("2006-01-02 15:04 UTC")),
				Rules:   []RuleRef{Ref(r)}, Path: path, Hops: d.Hops})
		case d.Outcome == redirects.CheckOffsite:
			out = append(out, Finding{Severity: SeverityWarning, Kind: KindOffsiteDestination,
				Message: fmt.Sprintf("%s leads through %d more redirects to another site: %s ends at %s", Ref(r), d.Hops, d.URL, d.FinalURL),
				Rules:   []RuleRef{Ref(r)}, Path: path, Hops: d.Hops, FinalDestination: d.FinalURL})
		}
	}
	return out
}
