package service

import (
	"net/netip"
	"sync"
	"time"

	"redirects"
)

// LoginLimits caps failed logins in a sliding window. Each node counts its
// own: behind a load balancer spreading logins over N nodes, an attacker
// gets up to N times the attempts, which the window still keeps far below
// what guessing a password of MinPasswordLength needs.
type LoginLimits struct {
	// PerAccount is the most failures for one email address in Window.
	PerAccount int
	// PerAddress is the most failures from one client address (an IPv6
	// client counts by its /64) in Window.
	PerAddress int
	// Window is how far back failures count.
	Window time.Duration
}

// DefaultLoginLimits: 5 failures per account and 20 per address in 15
// minutes.
var DefaultLoginLimits = LoginLimits{PerAccount: 5, PerAddress: 20, Window: 15 * time.Minute}

// maxLoginKeys bounds the limiter's memory: when it tracks more accounts
// and addresses than this after dropping expired ones, it drops others.
const maxLoginKeys = 100_000

// loginLimiter counts failed logins per account and per address.
type loginLimiter struct {
	limits LoginLimits
	clock  redirects.Clock

	mu       sync.Mutex
	failures map[string][]time.Time
}

func newLoginLimiter(l LoginLimits, clock redirects.Clock) *loginLimiter {
	if l.PerAccount <= 0 {
		l.PerAccount = DefaultLoginLimits.PerAccount
	}
	if l.PerAddress <= 0 {
		l.PerAddress = DefaultLoginLimits.PerAddress
	}
	if l.Window <= 0 {
		l.Window = DefaultLoginLimits.Window
	}
	return &loginLimiter{limits: l, clock: clock, failures: map[string][]time.Time{}}
}

// accountKey and addressKey name the two counters of a login.
func accountKey(email string) string { return "account " + email }

func addressKey(remoteAddr string) string {
	a, err := netip.ParseAddr(remoteAddr)
	if err != nil {
		return "address " + remoteAddr
	}
	a = a.Unmap()
	if a.Is6() {
		p, _ := a.Prefix(64)
		return "address " + p.String()
	}
	return "address " + a.String()
}

// blocked returns how long until a login for email from addr may be tried
// again, or 0 when it may be tried now.
func (l *loginLimiter) blocked(email, addr string) time.Duration {
	now := l.clock.Now()
	l.mu.Lock()
	defer l.mu.Unlock()
	wait := l.wait(accountKey(email), l.limits.PerAccount, now)
	return max(wait, l.wait(addressKey(addr), l.limits.PerAddress, now))
}

// wait prunes key's failures and returns how long until it has fewer than
// limit in the window.
func (l *loginLimiter) wait(key string, limit int, now time.Time) time.Duration {
	fs := l.prune(key, now)
	if len(fs) < limit {
		return 0
	}
	// The failure that must leave the window for one more attempt.
	return fs[len(fs)-limit].Add(l.limits.Window).Sub(now)
}

func (l *loginLimiter) prune(key string, now time.Time) []time.Time {
	fs := l.failures[key]
	i := 0
	for i < len(fs) && !fs[i].Add(l.limits.Window).After(now) {
		i++
	}
	fs = fs[i:]
	if len(fs) == 0 {
		delete(l.failures, key)
		return nil
	}
	l.failures[key] = fs
	return fs
}

// fail records a failed login for email from addr.
func (l *loginLimiter) fail(email, addr string) {
	now := l.clock.Now()
	l.mu.Lock()
	defer l.mu.Unlock()
	l.record(email, addr, now)
}

// reservation is a failure recorded before a password is checked: a
// success gives it back.
type reservation struct {
	email, addr string
	at          time.Time
}

// reserve checks both limits and, when neither is reached, records a
// failure at once, under one lock: n concurrent attempts cannot all see
// room for one more. It returns nil and the wait past a limit.
func (l *loginLimiter) reserve(email, addr string) (*reservation, time.Duration) {
	now := l.clock.Now()
	l.mu.Lock()
	defer l.mu.Unlock()
	wait := max(l.wait(accountKey(email), l.limits.PerAccount, now), l.wait(addressKey(addr), l.limits.PerAddress, now))
	if wait > 0 {
		return nil, wait
	}
	l.record(email, addr, now)
	return &reservation{email: email, addr: addr, at: now}, 0
}

// release gives a reservation back: after a good password (succeeded: the
// account's failures are forgotten too) or a check that never ran.
func (l *loginLimiter) release(r *reservation, succeeded bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if succeeded {
		delete(l.failures, accountKey(r.email))
	} else {
		l.unrecord(accountKey(r.email), r.at)
	}
	l.unrecord(addressKey(r.addr), r.at)
}

// unrecord removes one failure at time at from key, if it is still there.
func (l *loginLimiter) unrecord(key string, at time.Time) {
	fs := l.failures[key]
	for i := len(fs) - 1; i >= 0; i-- {
		if fs[i].Equal(at) {
			fs = append(fs[:i:i], fs[i+1:]...)
			break
		}
	}
	if len(fs) == 0 {
		delete(l.failures, key)
		return
	}
	l.failures[key] = fs
}

// record adds a failure at now for email and addr; l.mu is held.
func (l *loginLimiter) record(email, addr string, now time.Time) {
	if len(l.failures) >= maxLoginKeys {
		for k := range l.failures {
			l.prune(k, now)
		}
		for k := range l.failures {
			if len(l.failures) < maxLoginKeys/2 {
				break
			}
			delete(l.failures, k)
		}
	}
	for _, k := range []string{accountKey(email), addressKey(addr)} {
		fs := append(l.failures[k], now)
		// Only the newest failures up to the larger limit matter.
		if n := max(l.limits.PerAccount, l.limits.PerAddress); len(fs) > n {
			fs = fs[len(fs)-n:]
		}
		l.failures[k] = fs
	}
}

// succeed forgets an account's failures after a good login; the address
// keeps its own, so one good account does not unlock guessing others.
func (l *loginLimiter) succeed(email string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.failures, accountKey(email))
}
