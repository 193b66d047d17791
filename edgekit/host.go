package edgekit

import (
	"strings"
	"unicode/utf8"
)

// hostName returns a request's Host as the lookup API compares it, its
// host key for an ASCII name (lower-cased, without a port or a trailing
// dot), so that one cache entry serves every port and spelling; a name
// outside ASCII goes lower-cased, the API converts it. It returns "" (no
// host: rules without one answer) for what the lookup API would refuse as a
// host (docs/contract.md#hosts), such as an IPv6 literal, a label that
// starts or ends with '-' or is over 63 bytes (an A-label counted), or a
// name over 253 bytes: a lookup without a host still answers host-less
// rules, where one the API refuses would fail.
func hostName(h string) string {
	if i := strings.LastIndexByte(h, ':'); i >= 0 {
		for _, c := range []byte(h[i+1:]) {
			if c < '0' || c > '9' {
				return ""
			}
		}
		h = h[:i]
	}
	h = strings.TrimSuffix(h, ".")
	if h == "" || len(h) > 253*4 {
		return ""
	}
	keyLen := 0
	for label := range strings.SplitSeq(h, ".") {
		if label == "" || label[0] == '-' || label[len(label)-1] == '-' {
			return ""
		}
		n := len(label)
		ascii := true
		for _, c := range []byte(label) {
			switch {
			case c >= 0x80:
				ascii = false
			case !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-'):
				return ""
			}
		}
		if !ascii {
			if !utf8.ValidString(label) {
				return ""
			}
			enc, ok := punycode(strings.ToLower(label))
			if !ok {
				return ""
			}
			n = len("xn--") + len(enc)
		}
		if n > 63 {
			return ""
		}
		if keyLen > 0 {
			keyLen++
		}
		keyLen += n
	}
	if keyLen > 253 {
		return ""
	}
	return strings.ToLower(h)
}

// punycode encodes a label as RFC 3492 says, without the "xn--" (as
// engine/pattern does; TestMiddlewareHostIsTheAPIs holds the two together).
func punycode(s string) (string, bool) {
	const (
		base, tmin, tmax, skew, damp = 36, 1, 26, 38, 700
		initialBias, initialN        = 72, 128
	)
	runes := []rune(s)
	var out []byte
	for _, r := range runes {
		if r < 0x80 {
			out = append(out, byte(r))
		}
	}
	b := len(out)
	h := b
	if b > 0 {
		out = append(out, '-')
	}
	digit := func(d int) byte {
		if d < 26 {
			return byte('a' + d)
		}
		return byte('0' + d - 26)
	}
	adapt := func(delta, numPoints int, first bool) int {
		if first {
			delta /= damp
		} else {
			delta /= 2
		}
		delta += delta / numPoints
		k := 0
		for delta > ((base-tmin)*tmax)/2 {
			delta /= base - tmin
			k += base
		}
		return k + (base-tmin+1)*delta/(delta+skew)
	}
	n, delta, bias := initialN, 0, initialBias
	for h < len(runes) {
		m := int(utf8.MaxRune) + 1
		for _, r := range runes {
			if int(r) >= n && int(r) < m {
				m = int(r)
			}
		}
		if (m-n)*(h+1) > 1<<30 {
			return "", false
		}
		delta += (m - n) * (h + 1)
		n = m
		for _, r := range runes {
			if int(r) < n {
				delta++
			}
			if int(r) == n {
				q := delta
				for k := base; ; k += base {
					t := k - bias
					if t < tmin {
						t = tmin
					} else if t > tmax {
						t = tmax
					}
					if q < t {
						break
					}
					out = append(out, digit(t+(q-t)%(base-t)))
					q = (q - t) / (base - t)
				}
				out = append(out, digit(q))
				bias = adapt(delta, h+1, h == b)
				delta = 0
				h++
			}
		}
		delta++
		n++
	}
	return string(out), true
}
