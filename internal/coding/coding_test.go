package coding_test

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"testing"

	"redirects"
	"redirects/internal/coding"
)

// TestRoundTrip compresses a file larger than the zstd window limit and
// checks that both codings decode to it, the zstd one with a decoder held
// to MaxZstdWindow as browsers are, and that Pack and Unpack restore it.
func TestRoundTrip(t *testing.T) {
	var b bytes.Buffer
	for i := 0; b.Len() < 3*coding.MaxZstdWindow; i++ {
		fmt.Fprintf(&b, "location = /page/%d { return 301 /new/%d; }\n", i*7919%1000003, i)
	}
	body := b.Bytes()
	for _, c := range []string{coding.Gzip, coding.Zstd} {
		var enc []byte
		if c == coding.Gzip {
			enc = coding.GzipBytes(body)
		} else {
			enc = coding.ZstdBytes(body)
		}
		if len(enc) >= len(body)/2 {
			t.Errorf("%s: %d bytes of %d, want it well compressed", c, len(enc), len(body))
		}
		if dec, err := coding.Decode(c, enc); err != nil || !bytes.Equal(dec, body) {
			t.Errorf("%s: decodes to %d bytes (%v), want %d", c, len(dec), err, len(body))
		}
	}
	if _, err := coding.Decode("br", body); err == nil {
		t.Error(`Decode("br") succeeded, want an unknown-coding error`)
	}
	if _, err := coding.Decode(coding.Zstd, body); err == nil {
		t.Error("Decode(zstd) of plain text succeeded, want an error")
	}

	x := redirects.Export{Format: "nginx", Body: body, ETag: `"abc"`, Encodings: []redirects.Encoding{
		{Coding: coding.Zstd, Body: coding.ZstdBytes(body)}, {Coding: coding.Gzip, Body: coding.GzipBytes(body)}}}
	bc, stored, gz := coding.Pack(&x)
	if bc != coding.Zstd || !bytes.Equal(stored, x.Encodings[0].Body) || !bytes.Equal(gz, x.Encodings[1].Body) {
		t.Fatalf("Pack = %s, %d, %d bytes; want the zstd and gzip encodings", bc, len(stored), len(gz))
	}
	got := redirects.Export{Format: "nginx", ETag: `"abc"`}
	if err := coding.Unpack(&got, bc, stored, gz); err != nil || !bytes.Equal(got.Body, body) {
		t.Fatalf("Unpack = %d bytes (%v), want %d", len(got.Body), err, len(body))
	}
	if z, g := got.Encoding(coding.Zstd), got.Encoding(coding.Gzip); z == nil || g == nil || z.ETag != `"abc-zstd"` || g.ETag != `"abc-gzip"` {
		t.Errorf("Unpack encodings = %+v, want zstd and gzip with their ETags", got.Encodings)
	}
}

// TestUnpackCompact: on files of random sizes around minLen, stored with
// and without their encodings, UnpackCompact holds a file compact exactly
// when it is stored as zstd with a gzip encoding and is at least minLen
// bytes, and IdentityReader then yields exactly the file; any other file
// comes back whole, as Unpack gives it.
func TestUnpackCompact(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	const minLen = 64 << 10
	for range 60 {
		n := minLen + rng.IntN(3*minLen) - 2*minLen/3
		if rng.IntN(8) == 0 {
			n = rng.IntN(10)
		}
		var b bytes.Buffer
		for b.Len() < n {
			fmt.Fprintf(&b, "/p/%d /q/%x\n", rng.IntN(1e6), rng.Uint64())
		}
		body := b.Bytes()[:n]
		x := redirects.Export{Format: "csv", Body: body, ETag: `"e"`}
		withZstd, withGzip := rng.IntN(4) != 0, rng.IntN(4) != 0
		if withZstd {
			x.Encodings = append(x.Encodings, redirects.Encoding{Coding: coding.Zstd, Body: coding.ZstdBytes(body)})
		}
		if withGzip {
			x.Encodings = append(x.Encodings, redirects.Encoding{Coding: coding.Gzip, Body: coding.GzipBytes(body)})
		}
		bc, stored, gz := coding.Pack(&x)
		for _, min := range []int64{0, minLen} {
			got := redirects.Export{Format: "csv", ETag: `"e"`}
			if err := coding.UnpackCompact(&got, bc, stored, gz, min); err != nil {
				t.Fatal(err)
			}
			wantCompact := min > 0 && withZstd && withGzip && int64(n) >= min
			if got.Compact() != wantCompact {
				t.Fatalf("%d bytes, zstd %v, gzip %v, minLen %d: compact %v, want %v", n, withZstd, withGzip, min, got.Compact(), wantCompact)
			}
			if wantCompact && (got.IdentityLen != int64(n) || got.Size() != len(stored)+len(gz)) {
				t.Fatalf("%d bytes: IdentityLen %d, Size %d", n, got.IdentityLen, got.Size())
			}
			if !wantCompact && !bytes.Equal(got.Body, body) {
				t.Fatalf("%d bytes held whole: Body of %d bytes differs", n, len(got.Body))
			}
			if len(got.Encodings) != len(x.Encodings) {
				t.Fatalf("%d bytes: %d encodings, want %d", n, len(got.Encodings), len(x.Encodings))
			}
			r, err := coding.IdentityReader(&got)
			if err != nil {
				t.Fatal(err)
			}
			read, err := io.ReadAll(io.LimitReader(r, int64(n)+10))
			if err != nil || !bytes.Equal(read, body) {
				t.Fatalf("%d bytes (compact %v): IdentityReader gave %d bytes (%v), not the file", n, wantCompact, len(read), err)
			}
		}
	}
}

// TestIdentityReaderChecksTheEnd: a compact export whose gzip member does
// not hold exactly IdentityLen bytes, or whose checksum is wrong, fails on
// the read that would end the body, never ending as if it were the file.
func TestIdentityReaderChecksTheEnd(t *testing.T) {
	body := bytes.Repeat([]byte("/old/page /new/page 301\n"), 20000)
	gz := coding.GzipBytes(body)
	bad := bytes.Clone(gz)
	bad[len(bad)-8] ^= 0xff // the CRC-32 in the trailer
	for _, tc := range []struct {
		name string
		gz   []byte
		n    int64
		ok   bool
	}{
		{"exact", gz, int64(len(body)), true},
		{"member longer than IdentityLen", gz, int64(len(body)) - 1, false},
		{"member shorter than IdentityLen", gz, int64(len(body)) + 1, false},
		{"bad checksum", bad, int64(len(body)), false},
	} {
		e := redirects.Export{Format: "csv", IdentityLen: tc.n, Encodings: []redirects.Encoding{{Coding: coding.Gzip, Body: tc.gz}}}
		r, err := coding.IdentityReader(&e)
		if err != nil {
			t.Fatal(err)
		}
		buf := make([]byte, tc.n)
		_, err = io.ReadFull(r, buf)
		if (err == nil) != tc.ok {
			t.Errorf("%s: ReadFull of %d bytes: %v, want ok %v", tc.name, tc.n, err, tc.ok)
		}
		if tc.ok && !bytes.Equal(buf, body) {
			t.Errorf("%s: wrong bytes", tc.name)
		}
	}
}
