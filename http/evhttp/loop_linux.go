//go:build linux && !386

package evhttp

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/netip"
	"sync"
	"syscall"
	"time"
	"unsafe"
)

const (
	// bufSize is the size of the pooled read and write buffers. A read buffer grows past it only
	// for a request head larger than bufSize (up to MaxHeaderBytes); a write buffer only when a
	// batch of pipelined responses does not fit.
	bufSize = 16 << 10
	// maxPooledBuf is the largest buffer returned to the pool; larger ones are left to the GC so
	// that one unusual connection does not pin memory for good.
	maxPooledBuf = 4 * bufSize
	// maxPool bounds the buffers and connections a loop keeps for reuse.
	maxPool = 1024
	// highWater is the pending output (copied bytes and referenced bodies) after which a loop stops
	// answering a connection's pipelined requests and writes what it has: a client that pipelines
	// requests for large files must not make the loop queue all of them.
	highWater = 64 << 10
	// maxWrite bounds one write: a large body goes out in pieces, one per
	// writable event, so a loop with many large answers to write spends
	// little time in each.
	maxWrite = 256 << 10
	// sndBufCap is the SO_SNDBUF of a connection once it is sent a large
	// (referenced) body (the kernel doubles it for its bookkeeping): enough
	// for a fast client on a LAN, and a bound on what a client that never
	// reads holds of the host's TCP memory.
	sndBufCap = 256 << 10
	// lingerTime is how long a connection closed after an unread body or a refused request keeps
	// discarding input, and lingerMax how much it discards: closing a socket with unread input
	// sends a reset that can destroy the response before the client has read it.
	lingerTime = time.Second
	lingerMax  = 256 << 10
	// maxReadsPerEvent bounds the reads for one readable event (level-triggered epoll reports
	// the rest).
	maxReadsPerEvent = 4
	// maxAcceptsPerEvent keeps one busy listener from starving the loop's connections.
	maxAcceptsPerEvent = 64
	// maxSweepInterval is the longest time between two timeout sweeps.
	maxSweepInterval = 250 * time.Millisecond
	// heldWait is how long, in milliseconds, a loop that may keep its P waits for events before
	// it waits through the scheduler (see loop.wait).
	heldWait = 1
)

// connState is where a connection is in its life.
type connState uint8

const (
	// stReading: parsing buffered requests, reading when no output is pending.
	stReading connState = iota
	// stSlow: a slow function runs for the current request; nothing is read meanwhile.
	stSlow
	// stLinger: the last response is out and the write side shut; input is discarded until EOF.
	stLinger
)

// seg is one piece of a connection's pending output: a referenced body, or a range of its out buffer
// (offsets rather than a slice, because out may be reallocated while it grows).
type seg struct {
	body       []byte
	start, end int
	// st, for a streamed body (Response.Stream), holds its current piece.
	st *stream
	// done, for a referenced or streamed body, is its Response.Done:
	// called once the body is written or the connection closed.
	done func()
}

// streamPiece is the most of a streamed body read at once: each piece is
// written before the next is read, so a stream holds one piece whatever
// its length.
const streamPiece = 64 << 10

// streamBufs holds the pieces' buffers of ended streams.
var streamBufs = sync.Pool{New: func() any { b := make([]byte, streamPiece); return &b }}

// stream is a body read from an io.Reader piece by piece.
type stream struct {
	r    io.Reader
	left int64   // bytes still to read from r
	buf  *[]byte // from streamBufs
	cur  []byte  // the piece being written
}

// fill reads the next piece; an error (a short stream included) means the
// body cannot be completed.
func (st *stream) fill() error {
	if st.buf == nil {
		st.buf = streamBufs.Get().(*[]byte)
	}
	n := int(min(st.left, int64(len(*st.buf))))
	st.cur = (*st.buf)[:n]
	if _, err := io.ReadFull(st.r, st.cur); err != nil {
		st.cur = nil
		return err
	}
	st.left -= int64(n)
	return nil
}

// free gives the piece's buffer back.
func (st *stream) free() {
	if st.buf != nil {
		streamBufs.Put(st.buf)
		st.buf, st.cur, st.r = nil, nil, nil
	}
}

// conn is one client connection, owned by one loop.
type conn struct {
	fd       int
	remote   string
	ip       netip.Addr // the peer's address, for Config.MaxConnsPerAddr
	state    connState
	closed   bool
	interest uint32 // the epoll events registered
	idx      int    // position in loop.active

	in      []byte // read buffer (nil when nothing is buffered); in[rpos:] is not parsed yet
	rpos    int
	scanned int  // when the head at rpos was found incomplete: len(in) at that time, else 0
	parsed  int  // when the head at rpos was found incomplete: its length at the last full parse
	served  bool // a request head has been read: from now on, waiting for the next one is idling

	out          []byte // response heads and small bodies (nil when nothing is pending)
	segs         []seg  // pending output in order; segs[segHead:] is unwritten
	segHead      int
	segOff       int // bytes of segs[segHead] already written
	pendingBytes int

	// What the current request asked for, kept for a response that is written after a slow function.
	head        bool // HEAD: no body
	keepAlive10 bool // HTTP/1.0 keep-alive: say so
	reqClose    bool // close after the response
	linger      bool // the request may have left unread input behind
	closeAfter  bool // the last queued response closes the connection
	slowFailed  bool // the slow function panicked

	// reqStart is the loop clock when the header clock started: at the accept, and then when the
	// first byte of a further request arrived; 0 while the connection idles between requests.
	reqStart    int64
	lastActive  int64 // loop clock of the last response (or of the accept)
	writeStart  int64 // loop clock when output stopped fitting into the socket; 0 if none
	lingerUntil int64
	lingered    int

	resp Response
	// sndCapped: SO_SNDBUF was set to sndBufCap for a large body.
	sndCapped bool
}

func (c *conn) pending() bool { return c.segHead < len(c.segs) }

func (c *conn) segBytes(s *seg) []byte {
	if s.st != nil {
		return s.st.cur
	}
	if s.body != nil {
		return s.body
	}
	return c.out[s.start:s.end]
}

// addOut records out[start:] as pending output, extending the last range when it is adjacent.
func (c *conn) addOut(start int) {
	end := len(c.out)
	if end == start {
		return
	}
	c.pendingBytes += end - start
	if n := len(c.segs); n > c.segHead {
		if last := &c.segs[n-1]; last.body == nil && last.st == nil && last.end == start {
			last.end = end
			return
		}
	}
	c.segs = append(c.segs, seg{start: start, end: end})
}

func (c *conn) addBody(b []byte, done func()) {
	c.pendingBytes += len(b)
	c.segs = append(c.segs, seg{body: b, done: done})
}

// finishSegs calls the done functions of the bodies not yet written: the
// connection is closing.
func (c *conn) finishSegs() {
	for i := c.segHead; i < len(c.segs); i++ {
		if st := c.segs[i].st; st != nil {
			st.free()
			c.segs[i].st = nil
		}
		if d := c.segs[i].done; d != nil {
			c.segs[i].done = nil
			d()
		}
	}
	if d := c.resp.Done; d != nil {
		c.resp.Done = nil
		d()
	}
}

// consume drops n written bytes from the front of the pending output, and
// reads the next piece of a streamed body whose piece was written. It
// returns an error when a stream failed: the connection cannot go on.
func (c *conn) consume(n int) error {
	c.pendingBytes -= n
	for n > 0 {
		s := &c.segs[c.segHead]
		rem := len(c.segBytes(s)) - c.segOff
		if n < rem {
			c.segOff += n
			return nil
		}
		n -= rem
		if st := s.st; st != nil {
			if st.left > 0 {
				c.segOff = 0
				if err := st.fill(); err != nil {
					return err
				}
				continue
			}
			st.free()
			s.st = nil
		}
		s.body = nil // let the GC have a body as soon as it is sent
		if d := s.done; d != nil {
			s.done = nil
			d()
		}
		c.segHead++
		c.segOff = 0
	}
	return nil
}

// loop is one event loop: a goroutine, an epoll instance and its connections (the first loop also has
// the listening socket). Everything but the completion and hand-over lists is touched by the loop's
// goroutine only.
type loop struct {
	srv     *Server
	handler Handler
	errLog  func(error)

	epfd, lfd, efd int  // lfd is the listening socket on the first loop, -1 on the others
	acceptPaused   bool // the listener is out of the epoll set after running out of descriptors
	stopping       bool
	next           int // the loop the next accepted connection goes to

	// What the accepting loop has logged, so that it logs a change of state once rather than
	// every connection or every retry.
	outOfFDs   bool  // accept failed for lack of descriptors, and has not succeeded since
	shedding   bool  // connections are being closed at once: MaxConns is reached
	shedCount  int   // connections closed at once since shedding began
	addrLogged int64 // loop clock of the last line about MaxConnsPerAddr
	addrShed   int   // connections closed at once for MaxConnsPerAddr since that line

	maxHeader                             int
	readHeaderTimeout, writeTimeout, idle int64
	sweepEvery                            int64
	base                                  time.Time
	now, lastSweep                        int64
	// hold: the loop keeps its P through waits of up to heldWait (there are fewer loops than
	// Ps, so the rest of the program has one).
	hold    bool
	dateSec int64
	date    []byte // "Date: ...\r\n", backed by dateBuf
	dateBuf [64]byte

	byFD      []*conn // connections by descriptor, to map epoll events
	active    []*conn // every open connection, for sweeps
	freeConns []*conn
	bufs      [][]byte

	req     Request
	events  [256]syscall.EpollEvent
	iov     [64]syscall.Iovec
	rsa     syscall.RawSockaddrAny
	scratch [4096]byte // where lingering input goes

	mu       sync.Mutex
	done     []*conn // connections whose slow function returned
	spare    []*conn
	incoming []handoff // connections the accepting loop handed to this one
	dead     bool      // the loop has exited: efd is closed

	exited chan struct{}
}

// handoff is a connection accepted by the first loop for another one.
type handoff struct {
	fd     int
	ip     netip.Addr
	remote string
}

func newLoop(s *Server, cfg *Config, lfd int, hold bool) (*loop, error) {
	l := &loop{
		hold:              hold,
		srv:               s,
		handler:           cfg.Handler,
		errLog:            cfg.ErrorLog,
		lfd:               lfd,
		efd:               -1,
		maxHeader:         cfg.MaxHeaderBytes,
		readHeaderTimeout: int64(cfg.ReadHeaderTimeout),
		writeTimeout:      int64(cfg.WriteTimeout),
		idle:              int64(cfg.IdleTimeout),
		base:              time.Now(),
		exited:            make(chan struct{}),
	}
	// Sweep often enough that a timeout fires at most a quarter late.
	every := min(cfg.ReadHeaderTimeout, cfg.WriteTimeout, cfg.IdleTimeout) / 4
	l.sweepEvery = int64(max(10*time.Millisecond, min(every, maxSweepInterval)))
	var err error
	if l.epfd, err = syscall.EpollCreate1(syscall.EPOLL_CLOEXEC); err != nil {
		return nil, fmt.Errorf("evhttp: epoll_create1: %w", err)
	}
	if l.efd, err = sysEventfd(); err != nil {
		syscall.Close(l.epfd)
		return nil, fmt.Errorf("evhttp: eventfd: %w", err)
	}
	if e := epollCtl(l.epfd, syscall.EPOLL_CTL_ADD, l.efd, syscall.EPOLLIN); e != 0 {
		l.closeFDs()
		return nil, fmt.Errorf("evhttp: epoll_ctl: %w", e)
	}
	if l.lfd >= 0 {
		if e := epollCtl(l.epfd, syscall.EPOLL_CTL_ADD, l.lfd, syscall.EPOLLIN); e != 0 {
			l.closeFDs()
			return nil, fmt.Errorf("evhttp: epoll_ctl: %w", e)
		}
	}
	l.tick()
	return l, nil
}

// closeFDs closes the loop's own descriptors (not the listener, which Listen owns until run starts).
func (l *loop) closeFDs() {
	syscall.Close(l.epfd)
	syscall.Close(l.efd)
}

func (l *loop) report(err error) {
	if l.errLog != nil {
		l.errLog(err)
	}
}

// wake interrupts the loop's epoll_wait (after a slow function or for Shutdown).
func (l *loop) wake() {
	l.mu.Lock()
	if !l.dead {
		eventfdAdd(l.efd)
	}
	l.mu.Unlock()
}

// complete hands a connection whose slow function returned back to its loop.
func (l *loop) complete(c *conn) {
	l.mu.Lock()
	if !l.dead {
		l.done = append(l.done, c)
		// Only the first completion needs a wake-up: the loop drains the eventfd before it takes
		// the list, so a completion that finds the list non-empty is picked up with the others.
		if len(l.done) == 1 {
			eventfdAdd(l.efd)
		}
	}
	l.mu.Unlock()
}

// tick reads the clock once per wake-up and refreshes the cached Date line when the second changes.
func (l *loop) tick() {
	now := time.Now()
	l.now = int64(now.Sub(l.base))
	l.req.Woke = now
	if sec := now.Unix(); sec != l.dateSec || l.date == nil {
		l.dateSec = sec
		b := append(l.dateBuf[:0], "Date: "...)
		b = now.UTC().AppendFormat(b, http.TimeFormat)
		l.date = append(b, "\r\n"...)
	}
}

func (l *loop) run() {
	defer l.exit()
	for {
		timeout := int((l.sweepEvery + int64(time.Millisecond) - 1) / int64(time.Millisecond))
		if len(l.active) == 0 && !l.acceptPaused && !l.stopping {
			timeout = -1 // nothing to sweep: sleep until a connection or a wake-up
		}
		n, e := l.wait(timeout)
		if e != 0 && e != syscall.EINTR {
			l.report(fmt.Errorf("evhttp: epoll_wait: %w", e))
			return
		}
		l.tick()
		if timeout < 0 {
			l.lastSweep = l.now // nothing was waiting: the next sweep is due a full interval from now
		}
		if !l.stopping && l.srv.stopping.Load() {
			l.stopping = true
		}
		for i := 0; i < n; i++ {
			ev := &l.events[i]
			fd := int(ev.Fd)
			switch {
			case fd == l.efd:
				l.wakeup()
			case fd == l.lfd:
				l.accept()
			case fd < len(l.byFD) && l.byFD[fd] != nil:
				l.event(l.byFD[fd], ev.Events)
			}
		}
		if l.now-l.lastSweep >= l.sweepEvery {
			l.sweep()
		}
		if l.stopping && l.stop() {
			return
		}
	}
}

// wait waits for events, as epoll_wait with the timeout given (-1: none). A loop that may hold its
// P (l.hold: there are fewer loops than Ps) waits in two steps. The first waits at most heldWait
// without telling the Go scheduler (a raw system call): the loop keeps its thread and its P, and
// under load, when the next events come within microseconds, it goes from one batch to the next
// like a C event loop. Waiting through the scheduler (syscall.EpollWait) costs more than the wait
// itself on a busy machine: the P, left in a system call, is taken by the runtime's monitor
// thread after 20 us whenever no other P is idle, the monitor then keeps waking every 20 us, and
// the loop, its events in, must get a P back. Only when nothing arrived within heldWait does the
// loop wait through the scheduler, which lets the runtime have its P while it sleeps.
//
// Holding the P is safe only because a P is left for everything else (the goroutines of slow
// functions, timers, the network poller, the garbage collector's workers): with as many loops as
// Ps, network I/O elsewhere in the program (a Redis round trip, the management API) would wait
// for the monitor's network poll, up to 10 ms. The runtime still preempts a loop that runs for
// 10 ms, as it does any goroutine, and stops it for a garbage collection: its signal ends the raw
// wait with EINTR, and should it come just before the wait begins, the wait's bound (heldWait) is
// how long the collection waits for the loop.
func (l *loop) wait(timeout int) (int, syscall.Errno) {
	if l.hold && timeout != 0 {
		held := heldWait
		if timeout > 0 {
			held = min(held, timeout)
		}
		n, e := sysEpollWait(l.epfd, l.events[:], held)
		if n > 0 || e != 0 || held == timeout {
			return n, e
		}
		if timeout > 0 {
			timeout -= held
		}
	}
	n, err := syscall.EpollWait(l.epfd, l.events[:], timeout)
	if err != nil {
		if e, ok := err.(syscall.Errno); ok {
			return 0, e
		}
		return 0, syscall.EINVAL // cannot happen: the syscall package returns an Errno
	}
	return n, 0
}

// stop is called on each wake-up once Shutdown has begun: it closes the listener and the idle
// connections (all of them once Shutdown's context ends) and reports whether none is left.
func (l *loop) stop() bool {
	if l.lfd >= 0 {
		syscall.Close(l.lfd)
		l.lfd = -1
	}
	force := l.srv.force.Load()
	for i := 0; i < len(l.active); {
		c := l.active[i]
		if force || c.state == stReading && !c.pending() && c.rpos == len(c.in) {
			l.closeConn(c) // moves the last connection to index i
			continue
		}
		i++
	}
	return len(l.active) == 0
}

func (l *loop) exit() {
	l.mu.Lock()
	l.dead = true
	incoming := l.incoming
	l.incoming = nil
	l.mu.Unlock()
	for _, h := range incoming {
		syscall.Close(h.fd)
		l.srv.release(h.ip)
	}
	for len(l.active) > 0 {
		l.closeConn(l.active[len(l.active)-1])
	}
	if l.lfd >= 0 {
		syscall.Close(l.lfd)
		l.lfd = -1
	}
	l.closeFDs()
	l.bufs, l.freeConns, l.byFD = nil, nil, nil
	close(l.exited)
}

func (l *loop) getBuf() []byte {
	if n := len(l.bufs); n > 0 {
		b := l.bufs[n-1]
		l.bufs[n-1] = nil
		l.bufs = l.bufs[:n-1]
		return b[:0]
	}
	return make([]byte, 0, bufSize)
}

func (l *loop) putBuf(b []byte) {
	if cap(b) >= bufSize && cap(b) <= maxPooledBuf && len(l.bufs) < maxPool {
		l.bufs = append(l.bufs, b[:0])
	}
}

// accept takes the connections waiting on the listener (first loop only) and deals them to the loops
// in turn, closing at once those over Config.MaxConns or Config.MaxConnsPerAddr.
func (l *loop) accept() {
	srv := l.srv
	for range maxAcceptsPerEvent {
		fd, e := sysAccept(l.lfd, &l.rsa)
		switch e {
		case 0:
		case syscall.EAGAIN:
			return
		case syscall.EINTR, syscall.ECONNABORTED:
			continue
		case syscall.EMFILE, syscall.ENFILE, syscall.ENOBUFS, syscall.ENOMEM:
			// Level-triggered epoll would report the listener again at once: leave it out of the
			// set until the next sweep, when descriptors may have been freed. The connections
			// wait in the kernel's queue meanwhile.
			epollCtl(l.epfd, syscall.EPOLL_CTL_DEL, l.lfd, 0)
			l.acceptPaused = true
			srv.outOfFDs.Add(1)
			if !l.outOfFDs {
				l.outOfFDs = true
				srv.acceptPaused.Store(true)
				l.report(fmt.Errorf("evhttp: accept: %w: new connections wait until descriptors are freed "+
					"(%d connections open, RLIMIT_NOFILE %d)", e, srv.conns.Load(), nofile()))
			}
			return
		default:
			l.report(fmt.Errorf("evhttp: accept: %w", e))
			return
		}
		if l.outOfFDs {
			l.outOfFDs = false
			srv.acceptPaused.Store(false)
			l.report(fmt.Errorf("evhttp: accepting again: descriptors were freed (%d connections open)", srv.conns.Load()))
		}
		ip := peerIP(&l.rsa)
		if why := srv.admit(ip); why != admitted {
			l.shed(why, ip) // counted and logged before the client can see the close
			syscall.Close(fd)
			continue
		}
		if l.shedding {
			l.shedding = false
			l.report(fmt.Errorf("evhttp: accepting connections again: %d connections open, below MaxConns %d; "+
				"%d were closed at once meanwhile", srv.conns.Load(), srv.maxConns, l.shedCount))
			l.shedCount = 0
		}
		srv.accepted.Add(1)
		h := handoff{fd: fd, ip: ip, remote: formatAddr(&l.rsa)}
		to := srv.loops[l.next]
		l.next = (l.next + 1) % len(srv.loops)
		if to == l {
			l.add(h)
		} else {
			to.handOver(h)
		}
	}
}

// shed logs and counts a connection closed at once; a log line when shedding for MaxConns begins
// (and one when it ends, see accept), and at most one every ten seconds for MaxConnsPerAddr.
func (l *loop) shed(why admission, ip netip.Addr) {
	srv := l.srv
	if why == overTotal {
		srv.shed.Add(1)
		l.shedCount++
		if !l.shedding {
			l.shedding = true
			l.report(fmt.Errorf("evhttp: %d connections open, the limit (MaxConns): closing new connections at once until some end",
				srv.conns.Load()))
		}
		return
	}
	srv.shedPerAddr.Add(1)
	if l.addrLogged != 0 && l.now-l.addrLogged < int64(10*time.Second) {
		l.addrShed++
		return
	}
	var since string
	if l.addrShed > 0 {
		since = fmt.Sprintf(" (and %d more of any address since the last such line)", l.addrShed)
	}
	l.report(fmt.Errorf("evhttp: %s has %d connections open, the limit per client address (MaxConnsPerAddr): "+
		"closing its new connection at once%s", ip, srv.maxPerAddr, since))
	l.addrLogged = max(l.now, 1)
	l.addrShed = 0
}

// add registers an accepted connection with this loop.
func (l *loop) add(h handoff) {
	setNoDelay(h.fd)
	if e := epollCtl(l.epfd, syscall.EPOLL_CTL_ADD, h.fd, syscall.EPOLLIN); e != 0 {
		syscall.Close(h.fd)
		l.srv.release(h.ip)
		l.report(fmt.Errorf("evhttp: epoll_ctl: %w", e))
		return
	}
	c := l.newConn()
	c.fd = h.fd
	c.ip = h.ip
	c.interest = syscall.EPOLLIN
	c.remote = h.remote
	c.lastActive = l.now
	c.reqStart = max(l.now, 1) // the first request's head is due ReadHeaderTimeout after the accept
	c.idx = len(l.active)
	l.active = append(l.active, c)
	for h.fd >= len(l.byFD) {
		l.byFD = append(l.byFD, nil)
	}
	l.byFD[h.fd] = c
}

// handOver passes an accepted connection to this loop from the accepting one.
func (l *loop) handOver(h handoff) {
	l.mu.Lock()
	if l.dead {
		l.mu.Unlock()
		syscall.Close(h.fd)
		l.srv.release(h.ip)
		return
	}
	l.incoming = append(l.incoming, h)
	if len(l.incoming) == 1 {
		eventfdAdd(l.efd)
	}
	l.mu.Unlock()
}

func (l *loop) newConn() *conn {
	if n := len(l.freeConns); n > 0 {
		c := l.freeConns[n-1]
		l.freeConns[n-1] = nil
		l.freeConns = l.freeConns[:n-1]
		c.closed = false
		return c
	}
	return &conn{}
}

// putConn clears a closed connection for reuse, keeping its segs array. It stays marked closed
// (callers up the stack test that after serving) until newConn hands it out again.
func (l *loop) putConn(c *conn) {
	c.resp.Reset()
	segs := c.segs[:0]
	*c = conn{segs: segs, resp: c.resp, closed: true, fd: -1}
	if len(l.freeConns) < maxPool {
		l.freeConns = append(l.freeConns, c)
	}
}

// setNoDelay disables Nagle's algorithm: a response is written in one piece and must leave at once.
func setNoDelay(fd int) {
	syscall.SetsockoptInt(fd, syscall.IPPROTO_TCP, syscall.TCP_NODELAY, 1)
}

// peerIP returns the peer's IP address accept4 stored, IPv4-mapped addresses as IPv4.
func peerIP(rsa *syscall.RawSockaddrAny) netip.Addr {
	switch rsa.Addr.Family {
	case syscall.AF_INET:
		return netip.AddrFrom4((*syscall.RawSockaddrInet4)(unsafe.Pointer(rsa)).Addr)
	case syscall.AF_INET6:
		return netip.AddrFrom16((*syscall.RawSockaddrInet6)(unsafe.Pointer(rsa)).Addr).Unmap()
	}
	return netip.Addr{}
}

// formatAddr renders the peer address accept4 stored ("1.2.3.4:5", "[::1]:5"); IPv4-mapped IPv6
// addresses of a dual-stack listener are shown as IPv4.
func formatAddr(rsa *syscall.RawSockaddrAny) string {
	switch rsa.Addr.Family {
	case syscall.AF_INET:
		sa := (*syscall.RawSockaddrInet4)(unsafe.Pointer(rsa))
		p := (*[2]byte)(unsafe.Pointer(&sa.Port))
		return netip.AddrPortFrom(netip.AddrFrom4(sa.Addr), uint16(p[0])<<8|uint16(p[1])).String()
	case syscall.AF_INET6:
		sa := (*syscall.RawSockaddrInet6)(unsafe.Pointer(rsa))
		p := (*[2]byte)(unsafe.Pointer(&sa.Port))
		return netip.AddrPortFrom(netip.AddrFrom16(sa.Addr).Unmap(), uint16(p[0])<<8|uint16(p[1])).String()
	}
	return ""
}

// event handles epoll's report for a connection.
func (l *loop) event(c *conn, events uint32) {
	switch {
	case c.state == stLinger:
		l.lingerRead(c)
	case c.pending():
		// Also while a slow function runs: the responses before its request go out meanwhile.
		if events&(syscall.EPOLLOUT|syscall.EPOLLERR|syscall.EPOLLHUP) != 0 {
			l.serve(c)
		}
	case c.state == stSlow:
		// Nothing is registered but errors: the peer is gone. The slow function finishes anyway
		// and its completion finds the connection closed.
		if events&(syscall.EPOLLERR|syscall.EPOLLHUP) != 0 {
			l.closeConn(c)
		}
	default:
		l.readable(c)
	}
}

// readable reads once into the connection's buffer and answers what arrived; it reads again only
// when the read filled the buffer (more is probably waiting) and the connection can take more, a few
// times at most so that one fast client cannot starve the loop's other connections.
func (l *loop) readable(c *conn) {
	for range maxReadsPerEvent {
		if c.in == nil {
			c.in = l.getBuf()
		}
		if len(c.in) == cap(c.in) && !l.makeRoom(c) {
			l.closeConn(c)
			return
		}
		room := cap(c.in) - len(c.in)
		n, e := sysRead(c.fd, c.in[len(c.in):cap(c.in)])
		if e == syscall.EINTR {
			continue
		}
		if e == syscall.EAGAIN {
			l.settle(c) // a stale event
			return
		}
		if e == 0 && n == 0 && l.refuseUnfinished(c) {
			// The peer closed its side after a head already known to be bad: it gets the
			// answer it would have got had the bytes arrived in one piece.
			return
		}
		if e != 0 || n == 0 {
			// The peer closed (or reset) the connection; an unfinished request dies with it.
			l.closeConn(c)
			return
		}
		c.in = c.in[:len(c.in)+n]
		l.serve(c)
		if n < room || c.closed || c.state != stReading || c.pending() || c.closeAfter {
			return
		}
	}
}

// makeRoom frees space in a full read buffer: it moves the unparsed bytes to the front or, for a head
// larger than the buffer, grows it up to MaxHeaderBytes.
func (l *loop) makeRoom(c *conn) bool {
	if c.rpos > 0 {
		n := copy(c.in, c.in[c.rpos:])
		if c.scanned > 0 {
			c.scanned -= c.rpos
		}
		c.in = c.in[:n]
		c.rpos = 0
		return true
	}
	if cap(c.in) >= l.maxHeader {
		return false // cannot happen: the parser answers 431 first
	}
	b := make([]byte, len(c.in), min(2*cap(c.in), l.maxHeader+bufSize))
	copy(b, c.in)
	l.putBuf(c.in)
	c.in = b
	return true
}

// serve answers the complete requests buffered for c and writes the output, one write per batch.
func (l *loop) serve(c *conn) {
	for {
		if c.state == stReading && !c.closeAfter && !c.pending() && c.rpos < len(c.in) {
			l.answer(c)
		}
		if !c.pending() {
			break
		}
		if !l.flush(c) {
			return
		}
		if c.pending() {
			break
		}
		// Everything went out: answer what answer left for the next batch (high water).
	}
	if c.closeAfter && !c.pending() && c.state == stReading {
		l.finishClose(c)
		return
	}
	l.settle(c)
}

// answer parses and answers the buffered requests until one is incomplete, needs a slow function or
// closes the connection, or the output reaches highWater.
func (l *loop) answer(c *conn) {
	for c.rpos < len(c.in) {
		if c.scanned > 0 {
			// The head was incomplete last time: look for its end in the new bytes only, so that a
			// client sending a byte at a time costs linear, not quadratic, work. The head is parsed
			// again without an end only each time it doubled, and once it reaches the limit: a
			// malformed head is refused at the latest then, or when the client stops sending (see
			// refuseUnfinished), with the answer it gets when its bytes arrive at once.
			from := max(c.rpos, c.scanned-3)
			c.scanned = len(c.in)
			if size := len(c.in) - c.rpos; !hasHeadEnd(c.in[from:]) && size < 2*c.parsed && size < l.maxHeader {
				return
			}
		}
		req := &l.req
		n, code := parseRequest(c.in[c.rpos:], req, l.maxHeader)
		if code != 0 {
			l.refuse(c, code)
			return
		}
		if n == 0 {
			c.scanned = len(c.in)
			c.parsed = len(c.in) - c.rpos
			return
		}
		c.scanned, c.parsed = 0, 0
		c.rpos += n
		c.reqStart = 0
		c.served = true
		c.head = req.Method == "HEAD"
		c.keepAlive10 = req.keepAlive10
		c.reqClose = req.close
		c.linger = req.hasBody
		req.RemoteAddr = c.remote
		slow, ok := l.call(c)
		if !ok {
			setError(&c.resp, codeInternalError)
		} else if slow != nil {
			c.state = stSlow
			go l.runSlow(c, slow)
			return
		}
		l.respond(c)
		if c.closeAfter || c.pendingBytes >= highWater {
			return
		}
	}
}

// refuseUnfinished answers the unfinished head buffered for c if it is already known to be bad (the
// client stopped sending or its header time ran out before the head ended). It reports whether it
// did; the connection then closes after the answer.
func (l *loop) refuseUnfinished(c *conn) bool {
	if c.state != stReading || c.closeAfter || c.pending() || c.rpos == len(c.in) {
		return false
	}
	n, code := parseRequest(c.in[c.rpos:], &l.req, l.maxHeader)
	if n != 0 || code == 0 {
		return false
	}
	l.refuse(c, code)
	l.serve(c)
	return true
}

// hasHeadEnd reports whether b holds an empty line ending a head ("\n\n" or "\n\r\n").
func hasHeadEnd(b []byte) bool {
	for {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			return false
		}
		b = b[i+1:]
		if len(b) > 0 && b[0] == '\n' || len(b) > 1 && b[0] == '\r' && b[1] == '\n' {
			return true
		}
	}
}

// call runs the handler, recovering a panic (ok false).
func (l *loop) call(c *conn) (slow func(*Response), ok bool) {
	defer func() {
		if v := recover(); v != nil {
			slow, ok = nil, false
			l.report(fmt.Errorf("evhttp: handler panic: %v", v))
		}
	}()
	return l.handler(&l.req, &c.resp), true
}

// runSlow is the goroutine of a slow function. The loop does not touch c until complete hands it
// back (the mutex orders the goroutine's writes to c.resp before the loop's reads).
func (l *loop) runSlow(c *conn, slow func(*Response)) {
	defer l.complete(c)
	defer func() {
		if v := recover(); v != nil {
			c.slowFailed = true
			l.report(fmt.Errorf("evhttp: slow handler panic: %v", v))
		}
	}()
	slow(&c.resp)
}

// wakeup registers the connections handed over by the accepting loop, writes the responses of the
// slow functions that returned and resumes their connections.
func (l *loop) wakeup() {
	// Drain first, then take the lists: a completion added after the drain wakes the loop again.
	eventfdDrain(l.efd)
	l.mu.Lock()
	list := l.done
	l.done = l.spare[:0]
	incoming := l.incoming
	l.incoming = nil
	l.mu.Unlock()
	for _, h := range incoming {
		l.add(h)
	}
	for i, c := range list {
		list[i] = nil
		c.state = stReading
		if c.closed {
			// Closed while the function ran (peer gone, forced shutdown): now it can be reused.
			c.finishSegs()
			l.releaseBufs(c)
			l.putConn(c)
			continue
		}
		if c.slowFailed {
			c.slowFailed = false
			setError(&c.resp, codeInternalError)
		}
		l.respond(c)
		c.reqStart = 0
		l.serve(c)
	}
	l.spare = list[:0]
}

// refuse answers a request the parser rejected and closes the connection after the answer.
func (l *loop) refuse(c *conn, code int) {
	c.rpos = len(c.in) // whatever follows cannot be trusted to be a request
	c.scanned, c.parsed = 0, 0
	c.head, c.keepAlive10 = false, false
	c.reqClose, c.linger = true, true
	setError(&c.resp, code)
	l.respond(c)
}

// respond queues c.resp: the head is copied into the output buffer, a small body too, a large body is
// referenced. The response is then reset for the next request.
func (l *loop) respond(c *conn) {
	resp := &c.resp
	if resp.Status == 0 {
		resp.Status = 200
	} else if resp.Status < 100 || resp.Status > 999 {
		setError(resp, codeInternalError)
	}
	closing := resp.Close || c.reqClose || l.stopping
	if c.out == nil {
		c.out = l.getBuf()
	}
	if resp.Stream != nil {
		l.respondStream(c, resp, closing)
		return
	}
	start := len(c.out)
	c.out = appendHead(c.out, resp, l.date, c.keepAlive10, closing)
	body := resp.Body
	if c.head || !bodyAllowed(resp.Status) {
		body = nil
	}
	done := resp.Done
	if len(body) <= copyBodyMax {
		c.out = append(c.out, body...)
		c.addOut(start)
		if done != nil {
			done()
		}
	} else {
		c.addOut(start)
		c.addBody(body, done)
		if inScratch(resp.Scratch, body) {
			// The body is written later from the scratch buffer: the
			// next request must not render over it.
			resp.Scratch = nil
		}
		c.capSndBuf()
	}
	l.queued(c, closing)
}

// inScratch reports whether body lies in scratch's memory (a handler may
// render a body after other values it put in the scratch buffer).
func inScratch(scratch, body []byte) bool {
	if cap(scratch) == 0 || cap(body) == 0 {
		return false
	}
	base, p := uintptr(unsafe.Pointer(&scratch[:1][0])), uintptr(unsafe.Pointer(&body[:1][0]))
	return p >= base && p < base+uintptr(cap(scratch))
}

// queued ends respond once c.resp is queued: the response is reset for the
// next request (its Done now belongs to the queued output).
func (l *loop) queued(c *conn, closing bool) {
	c.resp.Done = nil
	c.resp.Reset()
	if closing {
		c.closeAfter = true
	}
	c.lastActive = l.now
}

// capSndBuf caps what the kernel may hold for c, once it is sent a large
// body: many clients that never read cannot take the host's TCP memory;
// the body is written from its one copy as the client reads.
func (c *conn) capSndBuf() {
	if !c.sndCapped {
		c.sndCapped = true
		syscall.SetsockoptInt(c.fd, syscall.SOL_SOCKET, syscall.SO_SNDBUF, sndBufCap)
	}
}

// respondStream is respond for a body read from resp.Stream: its first
// piece is read before the head is queued, so a stream that fails at once
// is answered 500 instead.
func (l *loop) respondStream(c *conn, resp *Response, closing bool) {
	var st *stream
	if !c.head && bodyAllowed(resp.Status) && resp.StreamLen > 0 {
		st = &stream{r: resp.Stream, left: resp.StreamLen}
		if err := st.fill(); err != nil {
			st.free()
			l.report(fmt.Errorf("evhttp: reading a streamed body: %w", err))
			setError(resp, codeInternalError) // calls resp.Done
			l.respond(c)
			return
		}
	}
	start := len(c.out)
	c.out = appendHead(c.out, resp, l.date, c.keepAlive10, closing)
	c.addOut(start)
	done := resp.Done
	if st == nil {
		if done != nil {
			done()
		}
	} else {
		c.pendingBytes += int(resp.StreamLen)
		c.segs = append(c.segs, seg{st: st, done: done})
		c.capSndBuf()
	}
	l.queued(c, closing)
}

// flush writes the pending output with one write (writev when bodies are referenced). It returns
// false when the connection failed and was closed.
func (l *loop) flush(c *conn) bool {
	for {
		var n int
		var e syscall.Errno
		segs := c.segs[c.segHead:]
		if len(segs) == 1 {
			b := c.segBytes(&segs[0])[c.segOff:]
			n, e = sysWrite(c.fd, b[:min(len(b), maxWrite)])
		} else {
			iov := l.iov[:0]
			total := 0
			for i := range segs {
				if len(iov) == cap(iov) || total >= maxWrite {
					break
				}
				b := c.segBytes(&segs[i])
				if i == 0 {
					b = b[c.segOff:]
				}
				b = b[:min(len(b), maxWrite-total)]
				total += len(b)
				v := syscall.Iovec{Base: &b[0]}
				v.SetLen(len(b))
				iov = append(iov, v)
				if st := segs[i].st; st != nil && st.left > 0 {
					// What follows a stream goes out after its last piece.
					break
				}
			}
			n, e = sysWritev(c.fd, iov)
			clear(iov) // do not keep bodies alive from here
		}
		if e == syscall.EINTR {
			continue
		}
		if e != 0 && e != syscall.EAGAIN {
			l.closeConn(c) // EPIPE, ECONNRESET: the peer is gone
			return false
		}
		if err := c.consume(n); err != nil {
			l.report(fmt.Errorf("evhttp: a streamed body failed: %w", err))
			l.closeConn(c)
			return false
		}
		break
	}
	if c.pending() {
		if c.writeStart == 0 {
			c.writeStart = l.now
		}
		return true
	}
	clear(c.segs)
	c.segs = c.segs[:0]
	c.segHead, c.segOff, c.pendingBytes = 0, 0, 0
	c.out = c.out[:0]
	if c.writeStart != 0 {
		c.writeStart = 0
		c.reqStart = 0 // a head that waited behind the output starts its clock now
	}
	return true
}

// settle returns unneeded buffers to the pool, starts the header clock for an unfinished request and
// registers the events the connection now waits for.
func (l *loop) settle(c *conn) {
	if c.in != nil && c.rpos == len(c.in) && c.state != stSlow {
		// The slow state keeps the buffer: response headers set before the slow function may
		// point into it.
		l.putBuf(c.in)
		c.in, c.rpos, c.scanned, c.parsed = nil, 0, 0, 0
	}
	if c.out != nil && !c.pending() {
		l.putBuf(c.out)
		c.out = nil
	}
	if c.rpos < len(c.in) {
		if c.reqStart == 0 {
			c.reqStart = max(l.now, 1)
		}
	} else if c.served {
		c.reqStart = 0 // idle between requests: IdleTimeout applies
	}
	var want uint32
	switch {
	case c.state == stLinger:
		want = syscall.EPOLLIN
	case c.pending():
		want = syscall.EPOLLOUT // and not EPOLLIN: no new requests until the output drains
	case c.state == stSlow:
		want = 0
	default:
		want = syscall.EPOLLIN
	}
	if want != c.interest {
		if e := epollCtl(l.epfd, syscall.EPOLL_CTL_MOD, c.fd, want); e != 0 {
			l.closeConn(c)
			return
		}
		c.interest = want
	}
}

// finishClose ends a connection whose last response is written: at once, or after lingering when
// unread input may be left (a body, a refused request) so that the client reads the response
// rather than a reset.
func (l *loop) finishClose(c *conn) {
	if !c.linger {
		l.closeConn(c)
		return
	}
	syscall.Shutdown(c.fd, syscall.SHUT_WR)
	c.state = stLinger
	c.lingerUntil = l.now + int64(lingerTime)
	c.rpos = len(c.in)
	l.settle(c)
}

func (l *loop) lingerRead(c *conn) {
	for {
		n, e := sysRead(c.fd, l.scratch[:])
		if e == syscall.EINTR {
			continue
		}
		if e == syscall.EAGAIN {
			return
		}
		c.lingered += n
		if e != 0 || n == 0 || c.lingered > lingerMax {
			l.closeConn(c)
		}
		return
	}
}

// releaseBufs returns a connection's buffers to the pool and drops its body references.
func (l *loop) releaseBufs(c *conn) {
	if c.in != nil {
		l.putBuf(c.in)
		c.in = nil
	}
	if c.out != nil {
		l.putBuf(c.out)
		c.out = nil
	}
	clear(c.segs)
	c.segs = c.segs[:0]
	c.segHead, c.segOff, c.pendingBytes = 0, 0, 0
}

// closeConn closes c's descriptor (which also removes it from the epoll set) exactly once. A
// connection whose slow function still runs is kept out of the pool until the function returns.
func (l *loop) closeConn(c *conn) {
	if c.closed {
		return
	}
	c.closed = true
	c.sndCapped = false
	if c.state != stSlow {
		c.finishSegs()
	}
	syscall.Close(c.fd)
	l.byFD[c.fd] = nil
	if l.srv != nil { // nil in the benchmarks' hand-driven loops
		l.srv.release(c.ip)
	}
	last := l.active[len(l.active)-1]
	l.active[c.idx] = last
	last.idx = c.idx
	l.active[len(l.active)-1] = nil
	l.active = l.active[:len(l.active)-1]
	if c.state == stSlow {
		return
	}
	l.releaseBufs(c)
	l.putConn(c)
}

// sweep enforces the timeouts and brings a paused listener back.
func (l *loop) sweep() {
	l.lastSweep = l.now
	if l.acceptPaused && l.lfd >= 0 {
		if epollCtl(l.epfd, syscall.EPOLL_CTL_ADD, l.lfd, syscall.EPOLLIN) == 0 {
			l.acceptPaused = false
		}
	}
	for i := 0; i < len(l.active); {
		c := l.active[i]
		if l.expired(c) {
			if !l.refuseUnfinished(c) {
				l.closeConn(c)
			}
			if c.closed {
				continue // closeConn moved the last connection to index i
			}
		}
		i++
	}
}

func (l *loop) expired(c *conn) bool {
	switch {
	case c.state == stLinger:
		return l.now > c.lingerUntil
	case c.state == stSlow:
		return false // the handler's business
	case c.pending():
		return l.now-c.writeStart > l.writeTimeout
	case c.reqStart != 0:
		// A head is due: the first one since the accept (a connection that never sends a byte is
		// cut here, not after IdleTimeout), or one whose first bytes have arrived.
		return l.now-c.reqStart > l.readHeaderTimeout
	default:
		return l.now-c.lastActive > l.idle
	}
}
