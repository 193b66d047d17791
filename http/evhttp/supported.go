//go:build linux && !386

package evhttp

// Supported reports whether this platform has the epoll engine. Where it
// has not, Listen fails and callers serve with net/http instead.
const Supported = true
