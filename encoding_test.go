package redirects_test

import (
	"testing"

	"redirects"
)

func TestEncodingETag(t *testing.T) {
	for _, tc := range []struct{ etag, coding, want string }{
		{`"abc"`, "gzip", `"abc-gzip"`},
		{`"abc"`, "zstd", `"abc-zstd"`},
		{`"abc"`, "", `"abc"`},
		{`"abc"`, "identity", `"abc"`},
		{`abc`, "gzip", `abc-gzip`},
	} {
		if got := redirects.EncodingETag(tc.etag, tc.coding); got != tc.want {
			t.Errorf("EncodingETag(%s, %q) = %s, want %s", tc.etag, tc.coding, got, tc.want)
		}
	}
	x := redirects.Export{Body: make([]byte, 100), Encodings: []redirects.Encoding{{Coding: "zstd", Body: make([]byte, 20)}, {Coding: "gzip", Body: make([]byte, 30)}}}
	if x.Size() != 150 {
		t.Errorf("Size = %d, want 150 (the body and both encodings)", x.Size())
	}
	if e := x.Encoding("gzip"); e == nil || len(e.Body) != 30 {
		t.Errorf("Encoding(gzip) = %v, want the 30-byte one", e)
	}
	if e := x.Encoding("br"); e != nil {
		t.Errorf("Encoding(br) = %v, want nil", e)
	}
}
