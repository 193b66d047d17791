package pattern

import (
	"strings"
	"unicode/utf8"
)

// maxLabelLen is the most bytes a label of a host key holds (RFC 1035), an
// A-label counted with its "xn--".
const maxLabelLen = 63

// HostKey returns the form a host is compared in (docs/contract.md#hosts):
// ASCII letters lower-cased, a port and a trailing dot removed, each label
// outside ASCII in its A-label (Punycode) form. ok is false for an empty or
// malformed host: an empty label, a label that starts or ends with '-' or is
// longer than 63 bytes, or a key longer than 253 bytes.
func HostKey(h string) (string, bool) {
	b, ok := appendHostKey(nil, h)
	return string(b), ok
}

// AppendHostKey appends HostKey(h) to dst, for a caller that checks or keys
// a request's host on a path that must not allocate; it allocates only for a
// host with a label outside ASCII. A request's host is never a wildcard: a
// key holding '*' is one a caller refuses.
func AppendHostKey(dst []byte, h string) ([]byte, bool) { return appendHostKey(dst, h) }

// appendHostKey appends HostKey(h) to dst; it allocates only for a host
// with a label outside ASCII.
func appendHostKey(dst []byte, h string) ([]byte, bool) {
	if i := strings.LastIndexByte(h, ':'); i >= 0 {
		for _, c := range []byte(h[i+1:]) {
			if c < '0' || c > '9' {
				return dst, false
			}
		}
		h = h[:i]
	}
	h = strings.TrimSuffix(h, ".")
	if h == "" || len(h) > 253*4 {
		return dst, false
	}
	start := len(dst)
	for label := range strings.SplitSeq(h, ".") {
		if len(dst) > start {
			dst = append(dst, '.')
		}
		// A label neither starts nor ends with '-' (RFC 952/1123, and
		// IDNA for a label outside ASCII).
		if label == "" || label[0] == '-' || label[len(label)-1] == '-' {
			return dst, false
		}
		labelStart := len(dst)
		ascii := true
		for i := 0; i < len(label); i++ {
			if label[i] >= 0x80 {
				ascii = false
				break
			}
		}
		if ascii {
			for i := 0; i < len(label); i++ {
				c := label[i]
				if !(isNameByte(c) && c != '_' || c == '-' || c == '*' && len(label) == 1 && len(dst) == start) {
					return dst, false
				}
				if 'A' <= c && c <= 'Z' {
					c += 32
				}
				dst = append(dst, c)
			}
			if len(dst)-labelStart > maxLabelLen {
				return dst, false
			}
			continue
		}
		if !utf8.ValidString(label) {
			return dst, false
		}
		enc, ok := punycode(strings.ToLower(label))
		if !ok {
			return dst, false
		}
		dst = append(dst, "xn--"...)
		dst = append(dst, enc...)
		if len(dst)-labelStart > maxLabelLen {
			return dst, false
		}
	}
	if len(dst)-start > 253 {
		return dst, false
	}
	return dst, true
}

// punycode encodes a label as RFC 3492 says, without the "xn--".
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

// hostMatches says whether the lookup's host key matches a rule's host key
// (a "*." one matches any subdomain at any depth, not the apex).
func hostMatches(rule string, host []byte) bool {
	if suffix, ok := strings.CutPrefix(rule, "*"); ok {
		return len(host) > len(suffix) && string(host[len(host)-len(suffix):]) == suffix
	}
	return string(host) == rule
}

// ExceptsHost reports whether exceptHosts (host keys, as a rule stores
// them) leave out host, a host in any form a lookup takes
// (docs/contract.md#hosts); a host that has no host key (empty or
// malformed) never is.
func ExceptsHost(except []string, host string) bool {
	k, ok := HostKey(host)
	return ok && k != "" && excepted(except, []byte(k), true)
}

// excepted says whether a lookup's host key is one a rule's exceptHosts
// names (docs/contract.md#hosts); a lookup without a host never is.
func excepted(except []string, host []byte, hasHost bool) bool {
	if !hasHost {
		return false
	}
	for _, e := range except {
		if hostMatches(e, host) {
			return true
		}
	}
	return false
}
