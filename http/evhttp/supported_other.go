//go:build !linux || 386

package evhttp

// Supported reports whether this platform has the epoll engine (64-bit or
// ARM Linux). It has not here: Listen fails, so callers serve with net/http.
const Supported = false
