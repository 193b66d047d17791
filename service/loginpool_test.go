package service

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"redirects"
)

// TestLoginsGiveBackReservations: a good password gives its reservation
// back (the address's count too), and a check the pool refused counts
// nothing.
func TestLoginsGiveBackReservations(t *testing.T) {
	clock := &fixedClock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	l := NewLogins(LoginLimits{PerAccount: 2, PerAddress: 2, Window: time.Minute}, clock)
	ctx := context.Background()
	for i := range 10 {
		ok, err := l.Verify(ctx, "a@example.com", "192.0.2.1", func() bool { return true })
		if !ok || err != nil {
			t.Fatalf("good sign-in %d: %v %v", i, ok, err)
		}
	}
	// A full pool: nothing runs, nothing counts.
	l.pool = newHashPool(1, 0, time.Millisecond)
	l.pool.slots <- struct{}{}
	for range 5 {
		if _, err := l.Verify(ctx, "b@example.com", "192.0.2.1", func() bool { t.Fatal("ran in a full pool"); return false }); err != redirects.ErrPasswordsBusy {
			t.Fatalf("full pool: %v, want redirects.ErrPasswordsBusy", err)
		}
	}
	<-l.pool.slots
	if w := l.Blocked("b@example.com", "192.0.2.1"); w != 0 {
		t.Fatalf("refused checks counted: blocked %v", w)
	}
	for range 2 {
		l.Verify(ctx, "b@example.com", "192.0.2.1", func() bool { return false })
	}
	var ran atomic.Bool
	_, err := l.Verify(ctx, "c@example.com", "192.0.2.1", func() bool { ran.Store(true); return true })
	if _, ok := err.(*redirects.SignInLimitError); !ok || ran.Load() {
		t.Fatalf("third failure from the address: %v (ran %v), want a SignInLimitError before hashing", err, ran.Load())
	}
}

// TestHashPoolBoundsConcurrency: no more than the pool's slots run at once
// however many callers arrive; past the queue they are refused at once.
func TestHashPoolBoundsConcurrency(t *testing.T) {
	p := newHashPool(2, 3, time.Minute)
	var running, peak atomic.Int32
	release := make(chan struct{})
	var wg sync.WaitGroup
	var busy atomic.Int32
	for range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := p.do(context.Background(), func() {
				n := running.Add(1)
				for {
					m := peak.Load()
					if n <= m || peak.CompareAndSwap(m, n) {
						break
					}
				}
				<-release
				running.Add(-1)
			})
			if err == redirects.ErrPasswordsBusy {
				busy.Add(1)
			}
		}()
	}
	for busy.Load() < 15 {
		time.Sleep(time.Millisecond)
	}
	close(release)
	wg.Wait()
	if peak.Load() > 2 || busy.Load() != 15 {
		t.Fatalf("peak %d running, %d refused; want at most 2 and 15", peak.Load(), busy.Load())
	}
}

type fixedClock struct{ t time.Time }

func (c *fixedClock) Now() time.Time { return c.t }

var _ redirects.Clock = (*fixedClock)(nil)
