package export

// csvHeader is the first record of the csv export (SPEC.md).
const csvHeader = "source,destination,statusCode,matchType\r\n"

func (s *sorted) csv() []byte {
	b := make([]byte, 0, len(csvHeader)+textSize(s.all, len(",,301,starts_with\r\n")))
	b = append(b, csvHeader...)
	for _, r := range s.all {
		b = appendCSVField(b, r.src)
		b = append(b, ',')
		b = appendCSVField(b, r.dst)
		b = append(b, ',')
		b = appendStatus(b, r.code)
		b = append(b, ',')
		b = append(b, r.mt.String()...)
		b = append(b, '\r', '\n')
	}
	return b
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
