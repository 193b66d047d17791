package redirects

import "redirects/engine/pattern"

// PatternRule returns what the pattern engine needs of r
// (docs/contract.md#pattern-rules): its identity and age for the order, its
// kind, host, source, destination and priority. The rule options are not
// the engine's: the caller applies them to the destination it expands.
func (r *Rule) PatternRule() pattern.Rule {
	return pattern.Rule{
		ID:          r.ID,
		CreatedAt:   r.CreatedAt,
		Kind:        pattern.Kind(r.MatchType),
		Host:        r.Host,
		Source:      r.Source,
		Destination: r.Destination,
		Priority:    r.Priority,
	}
}

// PatternSettings converts the project's settings to the pattern engine's.
func (s Settings) PatternSettings() pattern.Settings { return pattern.Settings(s) }
