package redirects

import (
	"strings"

	"redirects/engine/pattern"
)

// ValidLookupHost reports whether h can be a lookup's host
// (docs/contract.md#hosts): a host name, in either form of an IDN, with an
// optional trailing dot and :port. A wildcard names the hosts of rules,
// never the one of a request. The empty host, a lookup without one, is not
// a host: callers treat it before asking.
func ValidLookupHost(h string) bool {
	k, ok := pattern.HostKey(h)
	return ok && !strings.Contains(k, "*")
}
