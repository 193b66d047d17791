package webhook_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"redirects"
	"redirects/internal/testreport"
	"redirects/postgres"
	"redirects/storetest"
	"redirects/webhook"
)

// eachStore runs test on a SQLite file and, when REDIRECTS_TEST_POSTGRES
// is set, on a PostgreSQL database of its own.
func eachStore(t *testing.T, test func(t *testing.T, s store, clock *storetest.Clock)) {
	t.Run("sqlite", func(t *testing.T) {
		clock := storetest.NewClock(storetest.Start)
		test(t, openSQLite(t, clock), clock)
	})
	t.Run("postgres", func(t *testing.T) {
		url := os.Getenv("REDIRECTS_TEST_POSTGRES")
		if url == "" {
			testreport.Skip(t, testreport.Postgres, "REDIRECTS_TEST_POSTGRES is not set")
		}
		testreport.Ran(t, testreport.Postgres)
		db, err := postgres.Open(context.Background(), newPostgresDatabase(t, url))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		clock := storetest.NewClock(storetest.Start)
		db.Clock = clock
		test(t, db, clock)
	})
}

// hostileReceiver answers every delivery with status and body, raw.
func hostileReceiver(t *testing.T, status int, body string) (*httptest.Server, *int) {
	n := new(int)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		*n++
		w.Header().Set("X-Reply", "caf\xe9")
		w.WriteHeader(status)
		io.WriteString(w, body)
	}))
	t.Cleanup(srv.Close)
	return srv, n
}

// oneDelivery makes an organization with an endpoint at url and one
// delivery (a project's creation) due now.
func oneDelivery(t *testing.T, s store, url string) (*redirects.WebhookEndpoint, *redirects.Project) {
	t.Helper()
	ctx := context.Background()
	o := &redirects.Org{Name: "Acme", Tier: redirects.TierFree}
	if err := s.CreateOrg(ctx, o); err != nil {
		t.Fatal(err)
	}
	ep := redirects.NewWebhookEndpoint(o.ID, url, []string{"project.create"}, nil)
	if err := s.CreateWebhook(ctx, ep); err != nil {
		t.Fatal(err)
	}
	p := &redirects.Project{OrgID: o.ID, Name: "www"}
	if err := s.CreateProject(ctx, p); err != nil {
		t.Fatal(err)
	}
	return ep, p
}

func onlyDelivery(t *testing.T, s store, ep *redirects.WebhookEndpoint) *redirects.WebhookDelivery {
	t.Helper()
	ds, err := s.FindWebhookDeliveries(context.Background(), ep.ID, 10)
	if err != nil || len(ds) != 1 {
		t.Fatalf("deliveries of %s: %d, %v; want 1", ep.ID, len(ds), err)
	}
	return ds[0]
}

// TestHostileAnswerIsRecorded (issue #31, finding 6): a receiver whose
// answer holds NUL and invalid UTF-8 gets its attempt recorded, the bytes
// replaced by U+FFFD, and the delivery backs off; PostgreSQL refused the
// NUL (SQLSTATE 22021) and the delivery was sent again every 15 s.
func TestHostileAnswerIsRecorded(t *testing.T) {
	eachStore(t, func(t *testing.T, s store, clock *storetest.Clock) {
		ctx := context.Background()
		srv, sent := hostileReceiver(t, 500, "no\x00pe \xff\xfe\xc3 end")
		ep, _ := oneDelivery(t, s, srv.URL)
		var logs strings.Builder
		snd := &webhook.Sender{Store: s, Clock: clock, AllowPrivate: true, Logger: slog.New(slog.NewTextHandler(&logs, nil))}
		if n, err := snd.RunOnce(ctx); n != 1 || err != nil {
			t.Fatalf("RunOnce: sent %d, %v; want 1 recorded", n, err)
		}
		d := onlyDelivery(t, s, ep)
		if len(d.Attempts) != 1 {
			t.Fatalf("delivery %s has %d attempts recorded, want 1", d.ID, len(d.Attempts))
		}
		if a := d.Attempts[0]; a.N != 1 || a.Status != 500 || a.Excerpt != "no\ufffdpe \ufffd end" {
			t.Errorf("attempt %+v, want n=1 status 500 excerpt %q", a, "no\ufffdpe \ufffd end")
		}
		if want := storetest.Start.Add(redirects.WebhookBackoffAfter(1)); d.State != "pending" || !d.NextAt.Equal(want) {
			t.Errorf("delivery %s: %s next at %s, want pending next at %s", d.ID, d.State, d.NextAt, want)
		}
		// The lease has run out but the back-off has not: nothing is sent.
		clock.Add(redirects.WebhookBackoffAfter(1) - time.Second)
		if n, _ := snd.RunOnce(ctx); n != 0 || *sent != 1 {
			t.Errorf("sent again before the back-off: %d requests", *sent)
		}
	})
}

// failingRecords is a store whose records of attempts fail when fail
// says so, as PostgreSQL's did for an answer holding NUL.
type failingRecords struct {
	webhook.Store
	fail    func(a redirects.WebhookAttempt) bool
	refused int
}

func (f *failingRecords) RecordWebhookAttempt(ctx context.Context, d *redirects.WebhookDelivery, a redirects.WebhookAttempt) error {
	if f.fail(a) {
		f.refused++
		return errors.New("postgres: record webhook attempt: ERROR: invalid byte sequence for encoding \"UTF8\": 0x00 (SQLSTATE 22021)")
	}
	return f.Store.RecordWebhookAttempt(ctx, d, a)
}

// TestUnrecordedAttemptsBackOff (issue #31, finding 6): when no attempt
// of a delivery can be recorded, each try still counts: the tries back
// off as recorded ones do, the delivery fails after
// redirects.WebhookRetryFor and the endpoint is disabled, and each try
// shows in the delivery's attempts as not recorded.
func TestUnrecordedAttemptsBackOff(t *testing.T) {
	eachStore(t, func(t *testing.T, s store, clock *storetest.Clock) {
		ctx := context.Background()
		srv, sent := hostileReceiver(t, 503, "busy")
		ep, _ := oneDelivery(t, s, srv.URL)
		fs := &failingRecords{Store: s, fail: func(redirects.WebhookAttempt) bool { return true }}
		snd := &webhook.Sender{Store: fs, Clock: clock, AllowPrivate: true, Logger: slog.New(slog.DiscardHandler)}
		var times []time.Time
		for i := 0; i < 200; i++ {
			before := *sent
			snd.RunOnce(ctx) // its error is the refused record
			if *sent > before {
				times = append(times, clock.Now())
			}
			d := onlyDelivery(t, s, ep)
			if d.State != "pending" {
				break
			}
			// The next try comes when the lease of this one has run out
			// and its back-off has passed, whichever is later.
			next := clock.Now().Add(redirects.WebhookLease)
			if d.NextAt.After(next) {
				next = d.NextAt
			}
			clock.Set(next)
		}
		d := onlyDelivery(t, s, ep)
		if d.State != "failed" {
			t.Fatalf("after %d tries (%d records refused) the delivery is %s, want failed after %s of tries", len(times), fs.refused, d.State, redirects.WebhookRetryFor)
		}
		for k := 1; k < len(times); k++ {
			gap, want := times[k].Sub(times[k-1]), redirects.WebhookBackoffAfter(k)
			if gap < want {
				t.Errorf("try %d came %s after try %d, want at least the back-off %s", k+1, gap, k, want)
			}
		}
		if last := times[len(times)-1]; last.Before(storetest.Start.Add(redirects.WebhookRetryFor)) {
			t.Errorf("the last try was at %s, before the %s of retries were over", last.Sub(storetest.Start), redirects.WebhookRetryFor)
		}
		if len(d.Attempts) != len(times) {
			t.Errorf("%d attempts shown for %d tries", len(d.Attempts), len(times))
		}
		for i, a := range d.Attempts {
			if a.N != i+1 || !a.At.Equal(times[i]) || a.Status != 0 || !strings.Contains(a.Error, "not recorded") {
				t.Errorf("attempt %+v, want n=%d at %s with an error saying its outcome was not recorded", a, i+1, times[i].Sub(storetest.Start))
			}
		}
		e, err := s.FindWebhook(ctx, ep.ID)
		if err != nil || e.DisabledAt == nil {
			t.Errorf("endpoint %+v (%v), want it disabled", e, err)
		}
	})
}

// TestRefusedAnswerRecordedBare: when the store refuses an attempt with
// the answer's excerpt, the sender records it again without it: the
// status is kept and the delivery backs off at once.
func TestRefusedAnswerRecordedBare(t *testing.T) {
	eachStore(t, func(t *testing.T, s store, clock *storetest.Clock) {
		ctx := context.Background()
		srv, _ := hostileReceiver(t, 500, "something the store refuses")
		ep, _ := oneDelivery(t, s, srv.URL)
		fs := &failingRecords{Store: s, fail: func(a redirects.WebhookAttempt) bool { return a.Excerpt != "" }}
		snd := &webhook.Sender{Store: fs, Clock: clock, AllowPrivate: true, Logger: slog.New(slog.DiscardHandler)}
		if n, err := snd.RunOnce(ctx); n != 1 || err != nil {
			t.Fatalf("RunOnce: %d, %v; want 1 sent and recorded", n, err)
		}
		d := onlyDelivery(t, s, ep)
		if len(d.Attempts) != 1 || fs.refused != 1 {
			t.Fatalf("attempts %+v, %d refused; want one recorded after one refusal", d.Attempts, fs.refused)
		}
		a := d.Attempts[0]
		if a.Status != 500 || a.Excerpt != "" || !strings.Contains(a.Error, "could not be recorded") || !strings.Contains(a.Error, "22021") {
			t.Errorf("attempt %+v, want status 500 and an error naming the store's refusal", a)
		}
		if want := storetest.Start.Add(redirects.WebhookBackoffAfter(1)); !d.NextAt.Equal(want) {
			t.Errorf("next at %s, want %s", d.NextAt, want)
		}
	})
}
