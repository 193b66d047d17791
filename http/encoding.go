package http

import (
	"strings"

	"redirects"
)

// varyExport is the Vary of every export 200 and 304: the answer depends on
// the API key, as every cacheable answer does, and on Accept-Encoding, which
// picks the file's content coding.
const varyExport = varyKey + ", Accept-Encoding"

// negotiateEncoding picks, from Accept-Encoding header accept (RFC 9110
// 12.5.3), the encoding of ex to answer with, or nil for the identity bytes.
// A coding the header names with a q-value above 0, or that "*" covers, is
// acceptable; the highest q wins, and at equal q the first of ex.Encodings
// (zstd, then gzip, as deploys make them) wins over those after it and over
// identity, which wins only when the header ranks it above every acceptable
// coding. An absent or empty header, or one that accepts none of ex's
// codings, gets the identity bytes, even when it excludes identity: a 406
// would only leave the client without its file. "x-gzip" is gzip (RFC 9110
// 8.4.1.3). It does not allocate.
func negotiateEncoding(accept string, ex *redirects.Export) *redirects.Encoding {
	if accept == "" || len(ex.Encodings) == 0 {
		return nil
	}
	const unnamed = -1
	var named [4]int // q in thousandths of ex.Encodings[i], if named
	for i := range named {
		named[i] = unnamed
	}
	star, identity := unnamed, unnamed
	for rest := accept; rest != ""; {
		var item string
		item, rest, _ = strings.Cut(rest, ",")
		name, params, _ := strings.Cut(item, ";")
		name = strings.TrimSpace(name)
		q := qValue(params)
		switch {
		case name == "*":
			star = q
		case strings.EqualFold(name, "identity"):
			identity = q
		default:
			if strings.EqualFold(name, "x-gzip") {
				name = "gzip"
			}
			for i := range min(len(ex.Encodings), len(named)) {
				if strings.EqualFold(name, ex.Encodings[i].Coding) {
					named[i] = q
				}
			}
		}
	}
	var best *redirects.Encoding
	bestQ := 0
	for i := range min(len(ex.Encodings), len(named)) {
		q := named[i]
		if q == unnamed {
			q = max(star, 0)
		}
		if q > bestQ {
			best, bestQ = &ex.Encodings[i], q
		}
	}
	if identity == unnamed {
		identity = star // "*" covers identity too; unnamed, it ranks last
	}
	if best == nil || identity > bestQ {
		return nil
	}
	return best
}

// qValue returns the q parameter of one Accept-Encoding item's parameters
// (what follows its first ';') in thousandths: 1000 when there is none, 0
// when it is not a valid qvalue (RFC 9110 12.4.2), so a malformed item
// accepts nothing.
func qValue(params string) int {
	for params != "" {
		var p string
		p, params, _ = strings.Cut(params, ";")
		p = strings.TrimSpace(p)
		if len(p) < 2 || (p[0] != 'q' && p[0] != 'Q') || p[1] != '=' {
			continue
		}
		v := p[2:]
		if v == "" || (v[0] != '0' && v[0] != '1') {
			return 0
		}
		q := int(v[0]-'0') * 1000
		v = v[1:]
		if v == "" {
			return q
		}
		if v[0] != '.' || len(v) > 4 {
			return 0
		}
		scale := 100
		for _, c := range []byte(v[1:]) {
			if c < '0' || c > '9' {
				return 0
			}
			q += int(c-'0') * scale
			scale /= 10
		}
		return min(q, 1000)
	}
	return 1000
}
