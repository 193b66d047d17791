package manage

import (
	"time"

	"redirects"
)

// Logins counts failed sign-ins for every door of a listener: the API's
// POST /manage/v1/session and the dashboard's /login share one, so a
// guesser gains nothing by switching between them.
type Logins struct{ l *loginLimiter }

// NewLogins returns a counter with limits l (zero fields take
// DefaultLoginLimits) on clock c (nil: the system clock).
func NewLogins(l LoginLimits, c redirects.Clock) *Logins {
	if c == nil {
		c = redirects.SystemClock{}
	}
	return &Logins{l: newLoginLimiter(l, c)}
}

// Blocked returns how long until a sign-in for email from addr may be
// tried again, or 0 when it may be tried now.
func (l *Logins) Blocked(email, addr string) time.Duration { return l.l.blocked(email, addr) }

// Fail records a failed sign-in for email from addr.
func (l *Logins) Fail(email, addr string) { l.l.fail(email, addr) }

// Succeed forgets an account's failures after a good sign-in.
func (l *Logins) Succeed(email string) { l.l.succeed(email) }
