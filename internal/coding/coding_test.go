package coding_test

import (
	"bytes"
	"fmt"
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
