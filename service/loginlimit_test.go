package service

import (
	"testing"
	"time"
)

// stepClock is a clock the test moves by hand. (storetest's Clock cannot
// be used here: storetest deploys through this package.)
type stepClock struct{ t time.Time }

func (c *stepClock) Now() time.Time      { return c.t }
func (c *stepClock) Add(d time.Duration) { c.t = c.t.Add(d) }

func TestLoginLimiter(t *testing.T) {
	clock := &stepClock{t: time.Date(2026, 3, 14, 15, 9, 26, 0, time.UTC)}
	l := newLoginLimiter(LoginLimits{PerAccount: 2, PerAddress: 3, Window: time.Minute}, clock)
	if w := l.blocked("a@example.com", "10.0.0.1"); w != 0 {
		t.Fatalf("blocked before any failure: %v", w)
	}
	l.fail("a@example.com", "10.0.0.1")
	clock.Add(10 * time.Second)
	l.fail("a@example.com", "10.0.0.2")
	// The account is at its limit from any address; the first failure
	// leaves the window in 50s.
	if w := l.blocked("a@example.com", "10.0.0.9"); w != 50*time.Second {
		t.Errorf("account wait %v, want 50s", w)
	}
	if w := l.blocked("b@example.com", "10.0.0.1"); w != 0 {
		t.Errorf("another account from an address with one failure: wait %v", w)
	}
	l.succeed("a@example.com")
	if w := l.blocked("a@example.com", "10.0.0.9"); w != 0 {
		t.Errorf("after a good login the account still waits %v", w)
	}
	// An IPv6 client counts by its /64.
	for _, a := range []string{"2001:db8::1", "2001:db8::2", "2001:db8::ffff:1"} {
		l.fail("c@example.com", a)
		l.succeed("c@example.com")
	}
	if w := l.blocked("d@example.com", "2001:db8::42"); w == 0 {
		t.Errorf("three failures in one /64 do not block a fourth address of it")
	}
	if w := l.blocked("d@example.com", "2001:db8:0:1::1"); w != 0 {
		t.Errorf("another /64 waits %v", w)
	}
	clock.Add(time.Minute)
	if w := l.blocked("d@example.com", "2001:db8::42"); w != 0 {
		t.Errorf("after the window the /64 still waits %v", w)
	}
	if fs, ok := l.failures[addressKey("2001:db8::42")]; ok {
		t.Errorf("expired failures of the /64 kept: %v", fs)
	}
}
