//go:build linux && !386

package evhttp

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"runtime"
	"strconv"
	"sync"
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

	maxConns, maxPerAddr int
	conns                atomic.Int64
	addrMu               sync.Mutex
	perAddr              map[netip.Addr]int // open connections by peer address, with MaxConnsPerAddr

	accepted, shed, shedPerAddr, outOfFDs atomic.Uint64
	acceptPaused                          atomic.Bool
}

// admission is the accepting loop's decision on a new connection.
type admission int

const (
	admitted admission = iota
	overTotal
	overPerAddr
)

// admit counts a new connection from ip, or reports which limit it would exceed. Only the accepting
// loop calls it; release, its inverse, runs on every loop.
func (s *Server) admit(ip netip.Addr) admission {
	if s.conns.Load() >= int64(s.maxConns) {
		return overTotal
	}
	if s.maxPerAddr > 0 {
		s.addrMu.Lock()
		n := s.perAddr[ip]
		if n >= s.maxPerAddr {
			s.addrMu.Unlock()
			return overPerAddr
		}
		s.perAddr[ip] = n + 1
		s.addrMu.Unlock()
	}
	s.conns.Add(1)
	return admitted
}

// release uncounts a closed connection.
func (s *Server) release(ip netip.Addr) {
	s.conns.Add(-1)
	if s.maxPerAddr > 0 {
		s.addrMu.Lock()
		if n := s.perAddr[ip]; n > 1 {
			s.perAddr[ip] = n - 1
		} else {
			delete(s.perAddr, ip)
		}
		s.addrMu.Unlock()
	}
}

// Stats returns the server's counters and limits.
func (s *Server) Stats() Stats {
	return Stats{
		Conns:            s.conns.Load(),
		Accepted:         s.accepted.Load(),
		Shed:             s.shed.Load(),
		ShedPerAddr:      s.shedPerAddr.Load(),
		OutOfDescriptors: s.outOfFDs.Load(),
		AcceptPaused:     s.acceptPaused.Load(),
		MaxConns:         s.maxConns,
		MaxConnsPerAddr:  s.maxPerAddr,
	}
}

// raiseNofile raises the soft limit on open descriptors to the hard limit (the Go runtime does so
// at start too, but a program may have lowered it since) and returns the soft limit.
func raiseNofile() int {
	var lim syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim) != nil {
		return 0
	}
	if lim.Cur < lim.Max {
		raised := lim
		raised.Cur = raised.Max
		if syscall.Setrlimit(syscall.RLIMIT_NOFILE, &raised) == nil {
			lim = raised
		}
	}
	return int(min(lim.Cur, 1<<30))
}

// nofile returns the soft limit on open descriptors.
func nofile() uint64 {
	var lim syscall.Rlimit
	syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim)
	return lim.Cur
}

// Listen binds cfg.Addr with one listening socket and starts the loops: the first loop accepts and
// deals the connections to all of them in turn. The socket has no SO_REUSEPORT, so that a second
// server on the same address fails with "address already in use" rather than silently taking half
// of the connections. Listen first raises the soft limit on open descriptors to the hard limit,
// which sets the default of Config.MaxConns. It returns once the server accepts connections.
func Listen(cfg Config) (*Server, error) {
	if cfg.Handler == nil {
		return nil, ErrNoHandler
	}
	cfg.setDefaults()
	cfg.setConnLimits(raiseNofile())
	n := cfg.Loops
	if n <= 0 {
		n = runtime.GOMAXPROCS(0)
	}
	hold := n < runtime.GOMAXPROCS(0) // see loop.wait
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

	s := &Server{done: make(chan struct{}), maxConns: cfg.MaxConns, maxPerAddr: cfg.MaxConnsPerAddr}
	if s.maxPerAddr > 0 {
		s.perAddr = make(map[netip.Addr]int)
	}
	lfd, bound, err := listenSocket(ip, port)
	if err != nil {
		return nil, fmt.Errorf("evhttp: listen %s: %w", cfg.Addr, err)
	}
	s.addr = bound.String()
	for i := range n {
		fd := -1
		if i == 0 {
			fd = lfd
		}
		l, err := newLoop(s, &cfg, fd, hold)
		if err != nil {
			for _, l := range s.loops {
				l.closeFDs()
			}
			syscall.Close(lfd)
			return nil, err
		}
		l.req.Loop = i
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

// listenSocket opens a nonblocking listening socket on ip:port (all addresses when
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
	// SO_REUSEADDR (as net/http sets it) lets a restarted server bind while connections of the
	// previous one linger in TIME_WAIT; it does not let two listening sockets share the port.
	if err := syscall.SetsockoptInt(fd, syscall.SOL_SOCKET, syscall.SO_REUSEADDR, 1); err != nil {
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
