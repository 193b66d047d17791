package manage

import (
	"context"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"redirects"
)

// TestConcurrentGuessesReserveBeforeHashing: 50 wrong guesses for one
// account sent at once get at most the account's limit of 401s (each one
// hash); the rest are 429 with Retry-After, or 503 with Retry-After when
// the hashing queue is full, and never more hashes than the limit.
func TestConcurrentGuessesReserveBeforeHashing(t *testing.T) {
	limits := LoginLimits{PerAccount: 5, PerAddress: 20, Window: 10 * time.Minute}
	e := newEnv(t, newSQLite, false, func(c *Config) { c.LoginLimits = limits })
	u, pw := e.user("hana@example.com", false)
	var wg sync.WaitGroup
	codes := make([]*resp, 50)
	for i := range codes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			codes[i] = e.anon().do("POST", "/manage/v1/session", map[string]string{"email": u.Email, "password": "wrong password!"})
		}()
	}
	wg.Wait()
	count := map[int]int{}
	for _, r := range codes {
		count[r.status]++
		if r.status != 401 && r.header.Get("Retry-After") == "" {
			t.Errorf("%d without Retry-After: %s", r.status, r.body)
		}
	}
	if count[401] > limits.PerAccount || count[401]+count[429]+count[503] != 50 || count[429] < 50-limits.PerAccount-count[503] {
		t.Fatalf("50 concurrent wrong guesses answered %v: want at most %d 401s, the rest 429 (or 503)", count, limits.PerAccount)
	}
	// The right password is refused too while the account is locked.
	if count[401] == limits.PerAccount {
		e.anon().do("POST", "/manage/v1/session", map[string]string{"email": u.Email, "password": pw}).want(t, 429, codeLoginLimit)
	}
}

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
		if _, err := l.Verify(ctx, "b@example.com", "192.0.2.1", func() bool { t.Fatal("ran in a full pool"); return false }); err != ErrHashBusy {
			t.Fatalf("full pool: %v, want ErrHashBusy", err)
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
	if _, ok := err.(*LimitError); !ok || ran.Load() {
		t.Fatalf("third failure from the address: %v (ran %v), want a LimitError before hashing", err, ran.Load())
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
			if err == ErrHashBusy {
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

// TestSignInBodyIsSmall: a sign-in body over MaxSignInBytes is 413 before
// it is read (Content-Length) or once it passes the cap (chunked).
func TestSignInBodyIsSmall(t *testing.T) {
	e := newEnv(t, newSQLite, false, nil)
	big := `{"email":"a@example.com","password":"` + strings.Repeat("a", MaxSignInBytes) + `"}`
	e.anon().do("POST", "/manage/v1/session", big).want(t, 413, codeBodyTooLarge)
	req := e.anon().request("POST", "/manage/v1/session", big)
	req.Body, req.ContentLength = io.NopCloser(strings.NewReader(big)), -1
	e.anon().send(req).want(t, 413, codeBodyTooLarge)
}
