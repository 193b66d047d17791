package export

import "redirects"

// csvHeader is the first record of the csv export (docs/contract.md).
const csvHeader = "source,destination,statusCode,matchType\r\n"

func (s *sorted) csv() []byte {
	b := make([]byte, 0, len(csvHeader)+textSize(s.all, len(",,301,starts_with\r\n")))
	b = append(b, csvHeader...)
	for _, r := range s.all {
		b = appendCSVFields(b, r.src, r.dst, r.code, r.mt)
		b = append(b, '\r', '\n')
	}
	// The extended rules the four columns can carry: pattern and regex
	// rows with their matchType, query conditions in the source; a rule
	// with a host (or exceptHosts) has no column for it and is left out
	// (the deploy report declares it).
	for _, r := range s.extd {
		if r.rule.Host == "" && len(r.rule.ExceptHosts) == 0 {
			b = appendCSVFields(b, r.src, r.dst, r.code, r.mt)
			b = append(b, '\r', '\n')
		}
	}
	return b
}

// appendCSVFields appends the fields of one record of the csv export, the
// line end left to the caller: the import file adds the priority first.
func appendCSVFields(b []byte, src, dst string, code int32, mt redirects.MatchType) []byte {
	b = appendCSVField(b, src)
	b = append(b, ',')
	b = appendCSVField(b, dst)
	b = append(b, ',')
	b = appendStatus(b, code)
	b = append(b, ',')
	return append(b, mt.String()...)
}

// appendCSVField appends f as an RFC 4180 field: quoted, with its quotes
// doubled, when it holds a comma, a quote or a line break. Validation lets
// only the comma through, but the quoting is complete anyway, so the file
// stays well formed whatever a future validation allows.
func appendCSVField(b []byte, f string) []byte {
	quote := false
	for i := 0; i < len(f); i++ {
		if c := f[i]; c == ',' || c == '"' || c == '\r' || c == '\n' {
			quote = true
			break
		}
	}
	if !quote {
		return append(b, f...)
	}
	b = append(b, '"')
	for i := 0; i < len(f); i++ {
		if f[i] == '"' {
			b = append(b, '"')
		}
		b = append(b, f[i])
	}
	return append(b, '"')
}

// textSize returns the bytes of the records' sources and destinations plus perLine
// bytes per rule: the size of a rendered file, to allocate it once.
func textSize(rules []rec, perLine int) int {
	n := 0
	for _, r := range rules {
		n += len(r.src) + len(r.dst) + perLine
	}
	return n
}
