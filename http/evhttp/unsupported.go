//go:build !linux || 386

package evhttp

import (
	"context"
	"errors"
)

// Server is a running server. This platform has no epoll engine (it needs 64-bit or ARM Linux), so
// Listen fails.
type Server struct{}

// Listen returns an error wrapping errors.ErrUnsupported on this platform.
func Listen(cfg Config) (*Server, error) {
	return nil, errors.Join(errors.New("evhttp: needs Linux epoll"), errors.ErrUnsupported)
}

// Addr returns "".
func (s *Server) Addr() string { return "" }

// Stats returns zero counters.
func (s *Server) Stats() Stats { return Stats{} }

// Shutdown does nothing.
func (s *Server) Shutdown(ctx context.Context) error { return nil }
