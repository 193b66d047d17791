// Package testproxy forwards TCP connections to a server, so that a test can
// cut the server off (Close drops every connection and refuses new ones) and
// bring it back on the same address (Start again), slow its answers down
// (SetDelay) or replace one (ReplaceNextReply), without touching a server
// that other tests share.
package testproxy

import (
	"io"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Proxy listens on one address and forwards each connection to a target.
type Proxy struct {
	ln     net.Listener
	mu     sync.Mutex
	conns  []net.Conn
	closed bool
	delay  atomic.Int64 // ns before each chunk of the server's answers
	inject atomic.Pointer[[]byte]
}

// Start listens on addr ("127.0.0.1:0" for any free port) and forwards every
// connection it accepts to target; a connection whose target cannot be
// dialled is closed. The proxy is closed when the test ends, if not before.
func Start(t testing.TB, addr, target string) *Proxy {
	t.Helper()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatalf("testproxy: listen on %s: %v", addr, err)
	}
	p := &Proxy{ln: ln}
	t.Cleanup(p.Close)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s, err := net.Dial("tcp", target)
			if err != nil {
				c.Close()
				continue
			}
			if !p.track(c, s) {
				c.Close()
				s.Close()
				return
			}
			go func() { io.Copy(s, c); s.Close() }()
			go p.replies(c, s)
		}
	}()
	return p
}

// replies copies the server's answers to the client, delayed or replaced
// as the test asks.
func (p *Proxy) replies(c, s net.Conn) {
	defer c.Close()
	buf := make([]byte, 64<<10)
	for {
		n, err := s.Read(buf)
		if n > 0 {
			if d := p.delay.Load(); d > 0 {
				time.Sleep(time.Duration(d))
			}
			out := buf[:n]
			if b := p.inject.Swap(nil); b != nil {
				out = *b
			}
			if _, err := c.Write(out); err != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// SetDelay holds every chunk of the server's answers back for d (0: none)
// before it is forwarded.
func (p *Proxy) SetDelay(d time.Duration) { p.delay.Store(int64(d)) }

// ReplaceNextReply has the proxy forward b instead of the next chunk the
// server sends, on whichever connection it comes; nil forgets a
// replacement not made yet.
func (p *Proxy) ReplaceNextReply(b []byte) {
	if b == nil {
		p.inject.Store(nil)
		return
	}
	p.inject.Store(&b)
}

// Addr returns the address the proxy listens on.
func (p *Proxy) Addr() string { return p.ln.Addr().String() }

// Close stops listening and closes every forwarded connection, both ends.
// Closing a closed proxy does nothing.
func (p *Proxy) Close() {
	p.ln.Close()
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closed = true
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
}

// track records a forwarded connection's two ends for Close, unless Close
// came first (between Accept and Dial), in which case it reports false.
func (p *Proxy) track(c, s net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return false
	}
	p.conns = append(p.conns, c, s)
	return true
}
