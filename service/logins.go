package service

import (
	"context"
	"runtime"
	"sync/atomic"
	"time"

	"redirects"
)

// Logins counts failed sign-ins for every door of a listener and bounds
// the password hashing they cost: the service's SignIn and ChangePassword
// check every password with it, and the API's POST /manage/v1/session and
// the dashboard's /login share one service's (Deps.Logins), so a guesser
// gains nothing by switching between them.
//
// Each argon2id hash takes 19 MiB for tens of milliseconds, so hashes run
// in a pool of about the cores' number at once with a short queue: past
// it a check answers redirects.ErrPasswordsBusy at once, and the
// process's memory does not depend on how many sign-ins arrive together.
type Logins struct {
	l    *loginLimiter
	pool *hashPool
}

// NewLogins returns a counter with limits l (zero fields take
// DefaultLoginLimits) on clock c (nil: the system clock).
func NewLogins(l LoginLimits, c redirects.Clock) *Logins {
	if c == nil {
		c = redirects.SystemClock{}
	}
	return &Logins{l: newLoginLimiter(l, c), pool: newHashPool(runtime.GOMAXPROCS(0), hashQueuePerSlot*runtime.GOMAXPROCS(0), hashQueueWait)}
}

// Blocked returns how long until a sign-in for email from addr may be
// tried again, or 0 when it may be tried now.
func (l *Logins) Blocked(email, addr string) time.Duration { return l.l.blocked(email, addr) }

// Fail records a failed sign-in for email from addr.
func (l *Logins) Fail(email, addr string) { l.l.fail(email, addr) }

// Succeed forgets an account's failures after a good sign-in.
func (l *Logins) Succeed(email string) { l.l.succeed(email) }

// Verify checks one password for email from addr. It reserves a failure
// against the account's and the address's limits before anything is
// hashed, in one step, so that concurrent guesses cannot all pass the
// check: past a limit it returns a *redirects.SignInLimitError. It then
// runs check in the hashing pool (redirects.ErrPasswordsBusy when full,
// the reservation given back). A check that returns true gives the
// reservation back and forgets the account's failures; one that returns
// false keeps it as the failure.
func (l *Logins) Verify(ctx context.Context, email, addr string, check func() bool) (bool, error) {
	a, wait := l.l.reserve(email, addr)
	if a == nil {
		return false, &redirects.SignInLimitError{Wait: wait}
	}
	var ok bool
	if err := l.pool.do(ctx, func() { ok = check() }); err != nil {
		l.l.release(a, false)
		return false, err
	}
	if ok {
		l.l.release(a, true)
	}
	return ok, nil
}

// Hash hashes a new password in the hashing pool:
// redirects.ErrPasswordsBusy when full.
func (l *Logins) Hash(ctx context.Context, pw string) (string, error) {
	var (
		h   string
		err error
	)
	if perr := l.pool.do(ctx, func() { h, err = redirects.HashPassword(pw) }); perr != nil {
		return "", perr
	}
	return h, err
}

// Pool sizes: a hash waits at most hashQueueWait behind hashQueuePerSlot
// others per slot; a sign-in takes well under 100 ms on a server core, so
// a queue this short is rarely full unless someone floods it.
const (
	hashQueuePerSlot = 4
	hashQueueWait    = 5 * time.Second
)

// hashPool runs at most cap(slots) functions at once, with at most
// maxWaiting more waiting for a slot.
type hashPool struct {
	slots      chan struct{}
	inside     atomic.Int64 // running and waiting
	maxWaiting int64
	wait       time.Duration
}

func newHashPool(running, waiting int, wait time.Duration) *hashPool {
	return &hashPool{slots: make(chan struct{}, max(running, 1)), maxWaiting: int64(waiting), wait: wait}
}

// do runs f in a slot, or returns redirects.ErrPasswordsBusy without
// running it when the queue is full, the wait too long, or ctx ends
// first.
func (p *hashPool) do(ctx context.Context, f func()) error {
	defer p.inside.Add(-1)
	if p.inside.Add(1) > int64(cap(p.slots))+p.maxWaiting {
		return redirects.ErrPasswordsBusy
	}
	t := time.NewTimer(p.wait)
	defer t.Stop()
	select {
	case p.slots <- struct{}{}:
	case <-t.C:
		return redirects.ErrPasswordsBusy
	case <-ctx.Done():
		return redirects.ErrPasswordsBusy
	}
	defer func() { <-p.slots }()
	f()
	return nil
}
