package storetest

import (
	"sync"
	"time"

	"redirects"
)

// Start is the time a new Clock shows. It has whole microseconds only, so a
// store that keeps microseconds (PostgreSQL's timestamptz) returns exactly
// the times it was given.
var Start = time.Date(2026, 3, 14, 15, 9, 26, 535897000, time.UTC)

// Clock is a redirects.Clock that shows T until a test moves it, so tests
// can assert that stores take CreatedAt times from their clock.
type Clock struct {
	mu sync.Mutex
	T  time.Time
}

var _ redirects.Clock = (*Clock)(nil)

// NewClock returns a Clock that shows t.
func NewClock(t time.Time) *Clock { return &Clock{T: t} }

// Now returns the time the clock shows.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.T
}

// Set moves the clock to t.
func (c *Clock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.T = t
}

// Add moves the clock forward by d and returns the new time.
func (c *Clock) Add(d time.Duration) time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.T = c.T.Add(d)
	return c.T
}
