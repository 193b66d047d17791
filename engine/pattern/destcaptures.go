package pattern

// DestinationCaptures reports whether rule r's destination inserts a
// capture (docs/contract.md#captures-in-destinations): such a destination
// is a different URL for each request and cannot be requested as written.
// A rule the engine refuses inserts none.
func DestinationCaptures(r Rule) bool {
	c, err := compileRule(&r, Settings{})
	if err != nil {
		return false
	}
	for _, p := range c.dest {
		if p.slot >= 0 {
			return true
		}
	}
	return false
}
