//go:build linux && !386

package evhttp

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"runtime"
	"strconv"
	"sync/atomic"
	"syscall"
)

// listenBacklog is the accept queue asked for; the kernel caps it at net.core.somaxconn.
const listenBacklog = 4096

// Server is a running server: Listen starts it, Shutdown stops it.
type Server struct {
	addr     string
	loops    []*loop
	stopping atomic.Bool // Shutdown began: no new connections, close idle ones
	force    atomic.Bool // Shutdown's context ended: close everything
	done     chan struct{}
}

// Listen binds cfg.Addr with one SO_REUSEPORT listening socket per event loop, all on the same port,
// and starts the loops. It returns once the server accepts connections.
func Listen(cfg Config) (*Server, error) {
	if cfg.Handler == nil {
		return nil, ErrNoHandler
	}
	cfg.setDefaults()
	n := cfg.Loops
	if n <= 0 {
		n = runtime.GOMAXPROCS(0)
	}
	host, portStr, err := net.SplitHostPort(cfg.Addr)
	if err != nil {
		return nil, fmt.Errorf("evhttp: %w", err)
	}
	port, err := strconv.Atoi(portStr)
	if err != nil || port < 0 || port > 65535 {
		return nil, fmt.Errorf("evhttp: bad port in %q", cfg.Addr)
	}
	var ip netip.Addr // invalid: all addresses
	if host != "" {
		a, err := net.ResolveTCPAddr("tcp", net.JoinHostPort(host, "0"))
		if err != nil {
			return nil, fmt.Errorf("evhttp: %w", err)
		}
		ip, _ = netip.AddrFromSlice(a.IP)
		ip = ip.Unmap()
	}

	s := &Server{done: make(chan struct{})}
	var fds []int
	fail := func(err error) (*Server, error) {
		for _, l := range s.loops {
			l.closeFDs()
		}
		for _, fd := range fds {
			syscall.Close(fd)
		}
		return nil, err
	}
	for i := range n {
		fd, bound, err := listenSocket(ip, port)
		if err != nil {
			return fail(fmt.Errorf("evhttp: listen %s: %w", cfg.Addr, err))
		}
		fds = append(fds, fd)
		if i == 0 {
			// Port 0 picked a free port: the other loops join the same one.
			port = int(bound.Port())
			s.addr = bound.String()
		}
	}
	for _, fd := range fds {
		l, err := newLoop(s, &cfg, fd)
		if err != nil {
			return fail(err)
		}
		s.loops = append(s.loops, l)
	}
	for _, l := range s.loops {
		go l.run()
	}
	go func() {
		for _, l := range s.loops {
			<-l.exited
		}
		close(s.done)
	}()
	return s, nil
}

// listenSocket opens a nonblocking listening socket with SO_REUSEPORT on ip:port (all addresses when
// ip is invalid: dual-stack IPv6, or IPv4 where IPv6 is unavailable) and returns the bound address.
func listenSocket(ip netip.Addr, port int) (int, netip.AddrPort, error) {
	var sa syscall.Sockaddr
	family := syscall.AF_INET
	switch {
	case !ip.IsValid():
		family = syscall.AF_INET6
		sa = &syscall.SockaddrInet6{Port: port}
	case ip.Is4():
		sa = &syscall.SockaddrInet4{Port: port, Addr: ip.As4()}
	default:
		family = syscall.AF_INET6
		sa = &syscall.SockaddrInet6{Port: port, Addr: ip.As16()}
	}
	fd, err := syscall.Socket(family, syscall.SOCK_STREAM|syscall.SOCK_NONBLOCK|syscall.SOCK_CLOEXEC, syscall.IPPROTO_TCP)
	if err == syscall.EAFNOSUPPORT && !ip.IsValid() {
		family = syscall.AF_INET
		sa = &syscall.SockaddrInet4{Port: port}
		fd, err = syscall.Socket(family, syscall.SOCK_STREAM|syscall.SOCK_NONBLOCK|syscall.SOCK_CLOEXEC, syscall.IPPROTO_TCP)
	}
	if err != nil {
		return -1, netip.AddrPort{}, err
	}
	err = setListenOpts(fd, family == syscall.AF_INET6 && !ip.IsValid())
	if err == nil {
		err = syscall.Bind(fd, sa)
	}
	if err == nil {
		err = syscall.Listen(fd, listenBacklog)
	}
	var bound netip.AddrPort
	if err == nil {
		var got syscall.Sockaddr
		got, err = syscall.Getsockname(fd)
		switch a := got.(type) {
		case *syscall.SockaddrInet4:
			bound = netip.AddrPortFrom(netip.AddrFrom4(a.Addr), uint16(a.Port))
		case *syscall.SockaddrInet6:
			bound = netip.AddrPortFrom(netip.AddrFrom16(a.Addr), uint16(a.Port))
		}
	}
	if err != nil {
		syscall.Close(fd)
		return -1, netip.AddrPort{}, err
	}
	return fd, bound, nil
}

func setListenOpts(fd int, dualStack bool) error {
	if err := syscall.SetsockoptInt(fd, syscall.SOL_SOCKET, syscall.SO_REUSEADDR, 1); err != nil {
		return err
	}
	if err := syscall.SetsockoptInt(fd, syscall.SOL_SOCKET, soReusePort, 1); err != nil {
		return err
	}
	if dualStack {
		return syscall.SetsockoptInt(fd, syscall.IPPROTO_IPV6, syscall.IPV6_V6ONLY, 0)
	}
	return nil
}

// Addr returns the bound address, e.g. "127.0.0.1:43215".
func (s *Server) Addr() string { return s.addr }

// Shutdown stops accepting, closes idle connections, lets responses in progress (including slow
// handlers and pending writes) finish until ctx ends, then closes everything. Responses written after
// Shutdown began carry "Connection: close". It returns ctx.Err() if it had to cut connections short,
// and nil once every connection ended by itself. It may be called more than once.
func (s *Server) Shutdown(ctx context.Context) error {
	s.stopping.Store(true)
	for _, l := range s.loops {
		l.wake()
	}
	select {
	case <-s.done:
		return nil
	case <-ctx.Done():
	}
	s.force.Store(true)
	for _, l := range s.loops {
		l.wake()
	}
	<-s.done
	return ctx.Err()
}
