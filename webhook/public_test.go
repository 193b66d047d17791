package webhook_test

import (
	"net/netip"
	"testing"

	"redirects/webhook"
)

// TestPublicPerRange (issue #31, finding 15): one address inside each
// range of IANA's special-purpose registries that is not globally
// reachable is refused, the globally reachable exceptions inside them are
// not, and an address embedding an IPv4 address is judged as that
// address.
func TestPublicPerRange(t *testing.T) {
	refused := map[string]string{
		"0.0.0.0/8":          "0.1.2.3",
		"10.0.0.0/8":         "10.200.0.1",
		"100.64.0.0/10":      "100.127.255.254",
		"127.0.0.0/8":        "127.0.0.1",
		"169.254.0.0/16":     "169.254.169.254",
		"172.16.0.0/12":      "172.31.255.1",
		"192.0.0.0/24":       "192.0.0.8",
		"192.0.0.0/29":       "192.0.0.1",
		"192.0.0.170/32":     "192.0.0.170",
		"192.0.2.0/24":       "192.0.2.10",
		"192.88.99.0/24":     "192.88.99.1",
		"192.168.0.0/16":     "192.168.1.1",
		"198.18.0.0/15":      "198.19.0.1",
		"198.51.100.0/24":    "198.51.100.7",
		"203.0.113.0/24":     "203.0.113.9",
		"224.0.0.0/4":        "239.255.255.250",
		"240.0.0.0/4":        "240.0.0.1",
		"255.255.255.255/32": "255.255.255.255",
		"::1/128":            "::1",
		"::/128":             "::",
		"64:ff9b:1::/48":     "64:ff9b:1::808:808",
		"100::/64":           "100::1",
		"100:0:0:1::/64":     "100:0:0:1::1",
		"2001::/23":          "2001:1ff::1",
		"2001::/32 (Teredo)": "2001:0:4136:e378:8000:63bf:3fff:fdd2",
		"2001:2::/48":        "2001:2::1",
		"2001:10::/28":       "2001:10::1",
		"2001:db8::/32":      "2001:db8::1",
		"3fff::/20":          "3fff:fff::1",
		"5f00::/16":          "5f00::1",
		"fc00::/7":           "fd12:3456::1",
		"fe80::/10":          "fe80::1",
		"fe80::/10 (zone)":   "fe80::1%eth0",
		"fec0::/10":          "fec0::1",
		"ff00::/8":           "ff02::1",
		// Addresses embedding an IPv4 address are judged as that address.
		"::ffff:0:0/96":     "::ffff:127.0.0.1",
		"::ffff:0:0:0/96":   "::ffff:0:127.0.0.1",
		"::/96":             "::127.0.0.1",
		"::/96 private":     "::10.0.0.1",
		"64:ff9b::/96":      "64:ff9b::a9fe:a9fe",
		"64:ff9b::/96 mask": "64:ff9b::192.168.0.1",
		// 6to4 is refused whole: past the site's IPv4 address, 80 bits
		// name any host inside that site.
		"2002::/16":               "2002:a00:1::",
		"2002::/16 loop":          "2002:7f00:1:1::1",
		"2002::/16 (public IPv4)": "2002:808:808::1",
		"2002::/16 (public site)": "2002:5db8:d70e:1::10",
	}
	for r, addr := range refused {
		if webhook.Public(netip.MustParseAddr(addr)) {
			t.Errorf("%s in %s: Public, want refused", addr, r)
		}
	}
	allowed := map[string]string{
		"public IPv4":           "93.184.215.14",
		"public IPv6":           "2606:2800:21f:cb07:6820:80da:af6b:8b2c",
		"192.0.0.9/32 (PCP)":    "192.0.0.9",
		"192.0.0.10/32 (TURN)":  "192.0.0.10",
		"192.31.196.0/24":       "192.31.196.1",
		"192.52.193.0/24":       "192.52.193.1",
		"192.175.48.0/24":       "192.175.48.6",
		"2001:1::1/128":         "2001:1::1",
		"2001:1::2/128":         "2001:1::2",
		"2001:1::3/128":         "2001:1::3",
		"2001:3::/32":           "2001:3::1",
		"2001:4:112::/48":       "2001:4:112::1",
		"2001:20::/28":          "2001:20::1",
		"2001:30::/28":          "2001:30::1",
		"2620:4f:8000::/48":     "2620:4f:8000::6",
		"64:ff9b::/96 (public)": "64:ff9b::808:808",
		"::ffff:0:0/96":         "::ffff:8.8.8.8",
		"::ffff:0:0:0/96":       "::ffff:0:8.8.8.8",
		"::/96":                 "::8.8.8.8",
	}
	for r, addr := range allowed {
		if !webhook.Public(netip.MustParseAddr(addr)) {
			t.Errorf("%s (%s): refused, want Public", addr, r)
		}
	}
}

// TestRefusalNamesRange: a refused address is named by its own range:
// ::1 and :: are IPv6's loopback and unspecified address, not
// IPv4-compatible addresses of 0.0.0.0/8, and a 6to4 address is 6to4's.
func TestRefusalNamesRange(t *testing.T) {
	for addr, want := range map[string]string{
		"::1":              " (loopback, ::1/128)",
		"::":               " (unspecified, ::/128)",
		"::2":              " (this host on this network, 0.0.0.0/8)",
		"::127.0.0.1":      " (loopback, 127.0.0.0/8)",
		"::ffff:10.0.0.1":  " (private-use, 10.0.0.0/8)",
		"2002:808:808::1":  " (6to4, 2002::/16)",
		"64:ff9b:1::a00:1": " (local-use IPv4/IPv6 translation, 64:ff9b:1::/48)",
		"8.8.8.8":          "",
	} {
		if got := webhook.RangeOf(netip.MustParseAddr(addr)); got != want {
			t.Errorf("RangeOf(%s) = %q, want %q", addr, got, want)
		}
	}
}
