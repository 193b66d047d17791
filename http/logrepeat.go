package http

import (
	"context"
	"log/slog"
	"sync"
	"time"
)

// repeatInterval is how often a failure that repeats is logged: an outage
// of the store would otherwise log a line per try, every second, on every
// node.
const repeatInterval = 30 * time.Second

// repeatLog logs a repeated failure once per interval per cause (its
// message): the first line at once, the next ones at most one per
// interval, each with "repeated", the number of lines it stands for that
// were not written since the last.
type repeatLog struct {
	logger   *slog.Logger
	interval time.Duration
	now      func() time.Time

	mu     sync.Mutex
	causes map[string]*repeat
}

type repeat struct {
	last       time.Time
	suppressed int
}

func newRepeatLog(logger *slog.Logger, interval time.Duration, now func() time.Time) *repeatLog {
	return &repeatLog{logger: logger, interval: interval, now: now, causes: map[string]*repeat{}}
}

// log writes msg at level unless msg was written less than the interval
// ago, in which case it is counted.
func (l *repeatLog) log(level slog.Level, msg string, args ...any) {
	now := l.now()
	l.mu.Lock()
	c := l.causes[msg]
	if c != nil && now.Sub(c.last) < l.interval {
		c.suppressed++
		l.mu.Unlock()
		return
	}
	if c != nil && c.suppressed > 0 {
		args = append(args, "repeated", c.suppressed)
	}
	l.causes[msg] = &repeat{last: now}
	l.mu.Unlock()
	l.logger.Log(context.Background(), level, msg, args...)
}
