//go:build linux && !386

package evhttp

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// TestMain runs the tests with at least 3 Ps, so that startServer's servers have two loops or more
// and a P to spare, as serve runs them.
func TestMain(m *testing.M) {
	runtime.GOMAXPROCS(max(runtime.GOMAXPROCS(0), 2) + 1)
	os.Exit(m.Run())
}

// TestWaitSteps follows loop.wait through its two steps: events ready at once come from the held
// step, an event that arrives later from the ordinary one, and a finite timeout ends with none.
// A loop that may not hold its P waits the ordinary way only.
func TestWaitSteps(t *testing.T) {
	for _, hold := range []bool{true, false} {
		t.Run(fmt.Sprintf("hold=%v", hold), func(t *testing.T) {
			l, err := newLoop(&Server{}, &Config{ReadHeaderTimeout: time.Second, WriteTimeout: time.Second, IdleTimeout: time.Second}, -1, hold)
			if err != nil {
				t.Fatal(err)
			}
			defer l.closeFDs()
			wait := func(timeout int) (int, syscall.Errno) {
				n, e := l.wait(timeout)
				for e == syscall.EINTR { // a signal (the runtime's preemption) ends a wait early
					n, e = l.wait(timeout)
				}
				return n, e
			}

			if n, e := wait(0); n != 0 || e != 0 {
				t.Fatalf("nothing ready, no timeout: %d events, errno %v", n, e)
			}
			eventfdAdd(l.efd)
			if n, e := wait(-1); n != 1 || e != 0 || int(l.events[0].Fd) != l.efd {
				t.Fatalf("eventfd ready: %d events (%v), errno %v", n, l.events[0], e)
			}
			eventfdDrain(l.efd)
			// Past the held step: the eventfd is written after 50 held waits' time, when the
			// loop waits through the scheduler.
			timer := time.AfterFunc(50*heldWait*time.Millisecond, func() { eventfdAdd(l.efd) })
			defer timer.Stop()
			if n, e := wait(-1); n != 1 || e != 0 || int(l.events[0].Fd) != l.efd {
				t.Fatalf("eventfd written later: %d events, errno %v", n, e)
			}
			eventfdDrain(l.efd)
			if n, e := wait(3 * heldWait); n != 0 || e != 0 {
				t.Fatalf("nothing ready, timeout of three held waits: %d events, errno %v", n, e)
			}
		})
	}
}

// TestHoldWithSpareP checks when loops keep their Ps through waits (only with a P to spare) and
// that a server whose loops do answers plain, pipelined and slow requests, the slow functions'
// goroutines running on the spare P.
func TestHoldWithSpareP(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	all, err := Listen(Config{Addr: "127.0.0.1:0", Handler: func(*Request, *Response) func(*Response) { return nil }})
	if err != nil {
		t.Fatal(err)
	}
	defer all.Shutdown(context.Background())
	if len(all.loops) != 2 || all.loops[0].hold || all.loops[1].hold {
		t.Fatalf("Loops 0 (one per P): %d loops, want 2 that do not hold their Ps", len(all.loops))
	}
	s, _ := startServer(t, Config{Loops: 1})
	if len(s.loops) != 1 || !s.loops[0].hold {
		t.Fatalf("Loops 1 of 2 Ps: %d loops, want 1 that holds its P", len(s.loops))
	}
	c := dial(t, s)
	for i := range 200 {
		c.send(fmt.Sprintf(get, fmt.Sprintf("/echo?%d", i)) + fmt.Sprintf(get, "/slow?ms=1") + fmt.Sprintf(get, "/echo?after"))
		for _, want := range []string{fmt.Sprintf("GET /echo %d", i), "slow", "GET /echo after"} {
			if _, body := c.response("GET"); !strings.HasPrefix(body, want) {
				t.Fatalf("round %d: got %q, want %q", i, body, want)
			}
		}
	}
}

// TestSpareP checks that SpareP raises GOMAXPROCS once and always returns the value it had.
func TestSpareP(t *testing.T) {
	spare.once = sync.Once{} // as in a new process
	before := runtime.GOMAXPROCS(0)
	defer runtime.GOMAXPROCS(before)
	if n := SpareP(); n != before || runtime.GOMAXPROCS(0) != before+1 {
		t.Fatalf("SpareP = %d with GOMAXPROCS %d, want %d and %d", n, runtime.GOMAXPROCS(0), before, before+1)
	}
	if n := SpareP(); n != before || runtime.GOMAXPROCS(0) != before+1 {
		t.Fatalf("second SpareP = %d with GOMAXPROCS %d, want %d and %d", n, runtime.GOMAXPROCS(0), before, before+1)
	}
}
