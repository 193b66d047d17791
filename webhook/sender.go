// Package webhook sends the deliveries of the webhooks' outbox: it claims
// due deliveries from the store (a lease, so one node sends each at a
// time), posts each, signed, to its endpoint through a client that refuses
// private addresses at dial time, and records what came back.
package webhook

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"sync"
	"syscall"
	"time"

	"redirects"
	"redirects/internal/version"
)

// Store is what the sender needs of a store.
type Store interface {
	// ClaimWebhookDeliveries leases up to limit due deliveries to owner.
	ClaimWebhookDeliveries(ctx context.Context, owner string, limit int) ([]*redirects.WebhookDelivery, error)
	// RecordWebhookAttempt records an attempt of a claimed delivery;
	// ECONFLICT when the lease was lost.
	RecordWebhookAttempt(ctx context.Context, d *redirects.WebhookDelivery, a redirects.WebhookAttempt) error
}

// Timeout is the longest a delivery's request may take, from dial to the
// end of the (capped) body.
const Timeout = 5 * time.Second

// Sender sends the outbox's deliveries.
type Sender struct {
	Store Store
	// Clock times the signatures and the attempts' latencies.
	Clock redirects.Clock
	// AllowPrivate lets deliveries go to loopback, private and link-local
	// addresses (serve --webhook-allow-private).
	AllowPrivate bool
	// Owner names this node in the leases.
	Owner string
	// Interval is the wait between two polls of the outbox when it had
	// nothing due; Batch the most deliveries claimed at once.
	Interval time.Duration
	Batch    int
	Logger   *slog.Logger

	once   sync.Once
	client *http.Client
}

func (s *Sender) init() {
	s.once.Do(func() {
		if s.Clock == nil {
			s.Clock = redirects.SystemClock{}
		}
		if s.Owner == "" {
			s.Owner = "node_" + redirects.NewWebhookDeliveryID()[4:]
		}
		if s.Interval == 0 {
			s.Interval = time.Second
		}
		if s.Batch == 0 {
			s.Batch = 16
		}
		if s.Logger == nil {
			s.Logger = slog.Default()
		}
		s.client = NewClient(s.AllowPrivate)
	})
}

// ErrPrivateAddress is the error of a dial to an address that
// AllowPrivate does not allow.
var ErrPrivateAddress = errors.New("refused: not a public address (serve --webhook-allow-private allows it)")

// NewClient returns the client deliveries go through: no proxy, no
// redirects followed, Timeout, and unless allowPrivate a dialer that
// checks the address it actually connects to, after DNS resolution, so a
// name that resolves to a public address at check time and a private one
// at dial time (DNS rebinding) is still refused.
func NewClient(allowPrivate bool) *http.Client {
	d := &net.Dialer{Timeout: Timeout}
	if !allowPrivate {
		d.Control = PublicOnly
	}
	return &http.Client{
		Timeout: Timeout,
		Transport: &http.Transport{
			Proxy:                 nil,
			DialContext:           d.DialContext,
			TLSHandshakeTimeout:   Timeout,
			ResponseHeaderTimeout: Timeout,
			MaxIdleConnsPerHost:   2,
			IdleConnTimeout:       30 * time.Second,
		},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// PublicOnly is the address rule of webhooks as a net.Dialer's Control:
// it refuses a connection to an address that is not Public, with an
// error that wraps ErrPrivateAddress and names the address and its range.
// It checks the address actually connected to, after DNS resolution, so a
// name that resolves to a public address at check time and a private one
// at dial time (DNS rebinding) is still refused. Destination checks use
// it too.
func PublicOnly(network, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("%w: %s", ErrPrivateAddress, address)
	}
	if !Public(ap.Addr()) {
		return fmt.Errorf("%w: %s%s", ErrPrivateAddress, ap.Addr(), rangeOf(ap.Addr()))
	}
	return nil
}

// specialPurpose are the ranges of IANA's IPv4 and IPv6 Special-Purpose
// Address Registries (RFC 6890) whose "Globally Reachable" is False or
// N/A, as the registries read in November 2026 (the IPv6 registry last
// updated 2025-10-09, the IPv4 one 2020-09-04, in the copies read), plus
// the multicast blocks and the deprecated site-local block, which the
// registries leave to others. Public refuses an address in any of them, but for
// the globally reachable exceptions inside them (globalExceptions). Each
// range is tested (TestPublicPerRange).
//
// Four IPv6 ranges are judged by the IPv4 address they embed instead
// (embeddedIPv4): ::ffff:0:0/96, ::ffff:0:0:0/96, ::/96 minus ::/127
// (:: and ::1 are this table's own rows) and 64:ff9b::/96. Every other
// range that is not globally reachable, 64:ff9b:1::/48 and 2002::/16
// (6to4) included, is refused whole.
var specialPurpose = []struct {
	prefix netip.Prefix
	name   string
}{
	{netip.MustParsePrefix("0.0.0.0/8"), "this host on this network"},
	{netip.MustParsePrefix("10.0.0.0/8"), "private-use"},
	{netip.MustParsePrefix("100.64.0.0/10"), "shared address space"},
	{netip.MustParsePrefix("127.0.0.0/8"), "loopback"},
	{netip.MustParsePrefix("169.254.0.0/16"), "link local"},
	{netip.MustParsePrefix("172.16.0.0/12"), "private-use"},
	{netip.MustParsePrefix("192.0.0.0/24"), "IETF protocol assignments"}, // DS-Lite, dummy, NAT64/DNS64 discovery...
	{netip.MustParsePrefix("192.0.2.0/24"), "documentation (TEST-NET-1)"},
	{netip.MustParsePrefix("192.88.99.0/24"), "6to4 relay anycast (deprecated)"},
	{netip.MustParsePrefix("192.168.0.0/16"), "private-use"},
	{netip.MustParsePrefix("198.18.0.0/15"), "benchmarking"},
	{netip.MustParsePrefix("198.51.100.0/24"), "documentation (TEST-NET-2)"},
	{netip.MustParsePrefix("203.0.113.0/24"), "documentation (TEST-NET-3)"},
	{netip.MustParsePrefix("224.0.0.0/4"), "multicast"},
	{netip.MustParsePrefix("240.0.0.0/4"), "reserved"}, // 255.255.255.255/32, limited broadcast, within
	{netip.MustParsePrefix("::1/128"), "loopback"},
	{netip.MustParsePrefix("::/128"), "unspecified"},
	{netip.MustParsePrefix("64:ff9b:1::/48"), "local-use IPv4/IPv6 translation"},
	{netip.MustParsePrefix("100::/64"), "discard-only"},
	{netip.MustParsePrefix("100:0:0:1::/64"), "dummy IPv6 prefix"},
	{netip.MustParsePrefix("2001::/23"), "IETF protocol assignments"}, // Teredo, benchmarking, ORCHID...
	{netip.MustParsePrefix("2001:db8::/32"), "documentation"},
	{netip.MustParsePrefix("2002::/16"), "6to4"}, // the 80 bits past the IPv4 address pick a host inside that site
	{netip.MustParsePrefix("3fff::/20"), "documentation"},
	{netip.MustParsePrefix("5f00::/16"), "segment routing (SRv6) SIDs"},
	{netip.MustParsePrefix("fc00::/7"), "unique-local"},
	{netip.MustParsePrefix("fe80::/10"), "link-local unicast"},
	{netip.MustParsePrefix("fec0::/10"), "site-local (deprecated)"},
	{netip.MustParsePrefix("ff00::/8"), "multicast"},
}

// globalExceptions are the registries' globally reachable ranges inside
// the refused ones above: anycast services a webhook receiver might sit
// behind no more than any public address.
var globalExceptions = []netip.Prefix{
	netip.MustParsePrefix("192.0.0.9/32"),    // port control protocol anycast
	netip.MustParsePrefix("192.0.0.10/32"),   // traversal using relays around NAT anycast
	netip.MustParsePrefix("2001:1::1/128"),   // port control protocol anycast
	netip.MustParsePrefix("2001:1::2/128"),   // traversal using relays around NAT anycast
	netip.MustParsePrefix("2001:1::3/128"),   // DNS-SD service registration protocol anycast
	netip.MustParsePrefix("2001:3::/32"),     // AMT
	netip.MustParsePrefix("2001:4:112::/48"), // AS112-v6
	netip.MustParsePrefix("2001:20::/28"),    // ORCHIDv2
	netip.MustParsePrefix("2001:30::/28"),    // drone remote ID protocol entity tags
}

// embeddedIPv4 returns the IPv4 address an IPv6 address carries at a
// fixed place, and whether it has one: IPv4-mapped (::ffff:0:0/96),
// IPv4-translated (::ffff:0:0:0/96), IPv4-compatible (::/96, deprecated;
// but for ::/127, the unspecified address and loopback, which are judged
// as themselves) and NAT64's well-known prefix (64:ff9b::/96). Packets
// to such an address reach that IPv4 address (through the host's own
// stack or a translator), so Public judges it as that address. The
// local-use NAT64 prefix (64:ff9b:1::/48) carries its IPv4 address
// where its operator chose and leads into their network, and a 6to4
// address (2002::/16) names, past the 6to4 site's IPv4 address, any host
// inside that site, which may be the sender's own network: both are
// refused whole, as the registry marks them.
func embeddedIPv4(a netip.Addr) (netip.Addr, bool) {
	if !a.Is6() {
		return netip.Addr{}, false
	}
	b := a.As16()
	zero := func(from, to int) bool {
		for _, x := range b[from:to] {
			if x != 0 {
				return false
			}
		}
		return true
	}
	v4 := netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]})
	switch {
	case zero(0, 10) && b[10] == 0xff && b[11] == 0xff: // ::ffff:a.b.c.d
		return v4, true
	case zero(0, 8) && b[8] == 0xff && b[9] == 0xff && zero(10, 12): // ::ffff:0:a.b.c.d
		return v4, true
	case zero(0, 12) && !(zero(12, 15) && b[15] < 2): // ::a.b.c.d but ::/127 (:: and ::1 are the table's)
		return v4, true
	case b[0] == 0 && b[1] == 0x64 && b[2] == 0xff && b[3] == 0x9b && zero(4, 12): // 64:ff9b::a.b.c.d
		return v4, true
	}
	return netip.Addr{}, false
}

// Public reports whether a is an address a webhook may reach without the
// operator's flag: not in a range of IANA's special-purpose registries
// that is not globally reachable (specialPurpose: loopback, private-use,
// link-local, shared, documentation, benchmarking, reserved, ...), nor
// multicast, and, for an IPv6 address that embeds an IPv4 address
// (embeddedIPv4), judged as that IPv4 address.
func Public(a netip.Addr) bool {
	a = a.WithZone("") // a prefix never contains an address with a zone
	if v4, ok := embeddedIPv4(a); ok {
		a = v4
	}
	if !a.IsValid() {
		return false
	}
	for _, p := range globalExceptions {
		if p.Contains(a) {
			return true
		}
	}
	for _, r := range specialPurpose {
		if r.prefix.Contains(a) {
			return false
		}
	}
	// netip's own classes are all within the table; they stay as a guard.
	return !(a.IsLoopback() || a.IsPrivate() || a.IsLinkLocalUnicast() || a.IsLinkLocalMulticast() ||
		a.IsInterfaceLocalMulticast() || a.IsMulticast() || a.IsUnspecified())
}

// rangeOf names the refused range a falls in, for the refusal's message:
// " (loopback, 127.0.0.0/8)", or "" when it is in none.
func rangeOf(a netip.Addr) string {
	a = a.WithZone("")
	if v4, ok := embeddedIPv4(a); ok {
		a = v4
	}
	for _, r := range specialPurpose {
		if r.prefix.Contains(a) {
			return " (" + r.name + ", " + r.prefix.String() + ")"
		}
	}
	return ""
}

// Run sends deliveries until ctx ends.
func (s *Sender) Run(ctx context.Context) {
	s.init()
	for {
		n, err := s.RunOnce(ctx)
		if err != nil && ctx.Err() == nil {
			s.Logger.Warn("webhook outbox", "err", err)
		}
		if n > 0 && err == nil {
			continue // there may be more due
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(s.Interval):
		}
	}
}

// RunOnce claims one batch of due deliveries, sends them (in parallel)
// and records the attempts; it returns how many it sent.
func (s *Sender) RunOnce(ctx context.Context) (int, error) {
	s.init()
	ds, err := s.Store.ClaimWebhookDeliveries(ctx, s.Owner, s.Batch)
	if err != nil || len(ds) == 0 {
		return 0, err
	}
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error
	)
	for _, d := range ds {
		wg.Add(1)
		go func() {
			defer wg.Done()
			a := s.Send(context.WithoutCancel(ctx), d) // a send in flight finishes (Timeout bounds it)
			if err := s.record(context.WithoutCancel(ctx), d, a); err != nil {
				mu.Lock()
				first = cmpErr(first, err)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return len(ds), first
}

// record records attempt a of d. When the store refuses it for another
// reason than a lost lease, it records the attempt again without what
// came from the receiver (its answer's excerpt and the error text), the
// store's refusal in their place, so that the status is kept and the
// delivery backs off now. Should that fail too, the store counts the try
// when it next claims the delivery (ClaimWebhookDeliveries).
func (s *Sender) record(ctx context.Context, d *redirects.WebhookDelivery, a redirects.WebhookAttempt) error {
	err := s.Store.RecordWebhookAttempt(ctx, d, a)
	if err == nil || redirects.ErrorCode(err) == redirects.ECONFLICT {
		return err
	}
	s.Logger.Warn("webhook attempt not recorded; recording it without the answer", "delivery", d.ID, "err", err)
	msg := err.Error()
	if len(msg) > 512 {
		msg = msg[:512] + "..."
	}
	bare := redirects.WebhookAttempt{At: a.At, Status: a.Status, Latency: a.Latency,
		Error: redirects.CleanText("the answer could not be recorded: " + msg)}
	if err := s.Store.RecordWebhookAttempt(ctx, d, bare); err != nil {
		return fmt.Errorf("webhook delivery %s: attempt not recorded (its try counts when the delivery is next claimed): %w", d.ID, err)
	}
	return nil
}

func cmpErr(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

// Send makes one attempt of d and returns what it answered; it logs a
// failed one.
func (s *Sender) Send(ctx context.Context, d *redirects.WebhookDelivery) redirects.WebhookAttempt {
	s.init()
	body := []byte(d.Body)
	start := s.Clock.Now()
	a := redirects.WebhookAttempt{At: start}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, d.URL, bytes.NewReader(body))
	if err != nil {
		a.Error = err.Error()
		return s.logged(d, a)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "redirects-webhook/"+version.Version)
	req.Header.Set("Redirects-Delivery", d.ID)
	req.Header.Set("Redirects-Event", d.Action)
	req.Header.Set("Redirects-Signature", redirects.WebhookSignature(start, body, d.Secrets...))
	t0 := time.Now()
	resp, err := s.client.Do(req)
	if err != nil {
		a.Latency = time.Since(t0)
		a.Error = err.Error()
		var op *net.OpError
		if errors.Is(err, ErrPrivateAddress) && errors.As(err, &op) {
			a.Error = op.Err.Error() // "refused: ...: ADDR", without the request's repetition
		}
		return s.logged(d, a)
	}
	excerpt, rerr := io.ReadAll(io.LimitReader(resp.Body, redirects.WebhookExcerpt))
	io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10)) // let the connection be reused when the rest is short
	resp.Body.Close()
	a.Latency = time.Since(t0)
	a.Status, a.Excerpt = resp.StatusCode, string(excerpt)
	if rerr != nil {
		a.Error = rerr.Error()
	}
	return s.logged(d, a)
}

// logged cleans what came from the receiver (redirects.CleanText: NUL
// and invalid UTF-8, which a store would refuse) and logs a failed
// attempt.
func (s *Sender) logged(d *redirects.WebhookDelivery, a redirects.WebhookAttempt) redirects.WebhookAttempt {
	a.Error, a.Excerpt = redirects.CleanText(a.Error), redirects.CleanText(a.Excerpt)
	if !a.OK() {
		s.Logger.Warn("webhook delivery failed", "delivery", d.ID, "endpoint", d.EndpointID, "url", d.URL,
			"status", a.Status, "err", a.Error, "attempt", len(d.Attempts)+1)
	}
	return a
}
