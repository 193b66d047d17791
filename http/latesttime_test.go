package http

import (
	"sync"
	"testing"
	"time"
)

// TestLatestTimeNeverGoesBack checks the times the limiters are given:
// never before one handed out already, the time itself when it is the
// latest, from loops racing each other.
func TestLatestTimeNeverGoesBack(t *testing.T) {
	var l latestTime
	base := time.Date(2026, 11, 30, 23, 59, 59, 0, time.UTC)
	if got := l.notBefore(base.Add(5 * time.Millisecond)); !got.Equal(base.Add(5 * time.Millisecond)) {
		t.Fatalf("the first time: %v", got)
	}
	if got := l.notBefore(base); !got.Equal(base.Add(5 * time.Millisecond)) {
		t.Fatalf("an earlier time gave %v, want the latest handed out, %v", got, base.Add(5*time.Millisecond))
	}
	if got := l.notBefore(base.Add(time.Second)); !got.Equal(base.Add(time.Second)) {
		t.Fatalf("a later time gave %v", got)
	}
	// The clock set back by more than maxLate: taken as it is, and times
	// go on from it.
	back := base.Add(-time.Hour)
	if got := l.notBefore(back); !got.Equal(back) {
		t.Fatalf("a time an hour back gave %v, want it as it is", got)
	}
	if got := l.notBefore(back.Add(time.Millisecond)); !got.Equal(back.Add(time.Millisecond)) {
		t.Fatalf("after the clock went back: %v", got)
	}
	if got := l.notBefore(base.Add(time.Second)); !got.Equal(base.Add(time.Second)) {
		t.Fatalf("a later time gave %v", got)
	}
	// Two loops, each with times of its own that go up by steps while the
	// other's lag: what each gets never goes back.
	var wg sync.WaitGroup
	for loop := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var last time.Time
			for i := range 20000 {
				at := base.Add(2*time.Second + time.Duration(i/10)*time.Microsecond - time.Duration(loop)*3*time.Microsecond)
				got := l.notBefore(at)
				if got.Before(at) || got.Before(last) {
					t.Errorf("loop %d: %v for %v after %v", loop, got, at, last)
					return
				}
				last = got
			}
		}()
	}
	wg.Wait()
}
