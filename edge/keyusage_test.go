package edge

import (
	"slices"
	"testing"
	"time"

	"redirects"
)

// TestKeyCounterDays checks that counts land on the day of their request,
// including requests counted just before midnight and harvested just
// after, and requests whose clock read passed midnight before the
// harvest's did.
func TestKeyCounterDays(t *testing.T) {
	at := func(s string) time.Time {
		tm, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			t.Fatal(err)
		}
		return tm
	}
	c := &keyCounter{id: "key_a"}
	for range 3 {
		c.add(unixDay(at("2026-03-31T23:59:59.9Z")))
	}
	c.add(unixDay(at("2026-04-01T00:00:00.1Z")))
	got := c.harvest(at("2026-04-01T00:00:00.5Z"), nil)
	want := []redirects.DailyUsage{{KeyID: "key_a", Day: "2026-04-01", Count: 1}, {KeyID: "key_a", Day: "2026-03-31", Count: 3}}
	if !slices.Equal(got, want) {
		t.Fatalf("harvest after midnight = %+v, want %+v", got, want)
	}
	if got := c.harvest(at("2026-04-01T00:00:01.5Z"), nil); len(got) != 0 {
		t.Fatalf("second harvest = %+v, want nothing", got)
	}
	// A request that read 00:00:00.01 harvested by a flush that read
	// 23:59:59.99 belongs to the next day.
	c.add(unixDay(at("2026-04-02T00:00:00.01Z")))
	c.add(unixDay(at("2026-04-01T23:59:59.98Z")))
	got = c.harvest(at("2026-04-01T23:59:59.99Z"), nil)
	want = []redirects.DailyUsage{{KeyID: "key_a", Day: "2026-04-01", Count: 1}, {KeyID: "key_a", Day: "2026-04-02", Count: 1}}
	if !slices.Equal(got, want) {
		t.Fatalf("harvest before midnight = %+v, want %+v", got, want)
	}
}
