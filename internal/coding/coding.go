// Package coding compresses export files into the HTTP content codings the
// edge serves (gzip and zstd, RFC 9110 8.4.1 and RFC 8878) and decompresses
// them again. Files are compressed once, when a deployment is made, never per
// request; see docs/exports.md.
package coding

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"

	"redirects"
)

// The content codings, as they appear in Accept-Encoding and
// Content-Encoding.
const (
	Gzip = "gzip"
	Zstd = "zstd"
)

// GzipLevel is the gzip level of the stored files. Level 1 makes the
// 110 MB nginx export of a million rules about a fifth of its size at
// several times the speed of the default level, which keeps a million-rule
// deploy, compression included, well inside its 30 s budget (BENCHMARKS.md).
const GzipLevel = gzip.BestSpeed

// MaxZstdWindow is the largest zstd window the files use: RFC 9659 asks
// that zstd content coding stay within 8 MiB so that browsers, which refuse
// larger windows, can decode it.
const MaxZstdWindow = 8 << 20

var (
	zenc = sync.OnceValue(func() *zstd.Encoder {
		e, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest),
			zstd.WithWindowSize(MaxZstdWindow), zstd.WithEncoderConcurrency(1), zstd.WithZeroFrames(true))
		if err != nil {
			panic("coding: " + err.Error())
		}
		return e
	})
	zdec = sync.OnceValue(func() *zstd.Decoder {
		d, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(0), zstd.WithDecoderMaxWindow(MaxZstdWindow))
		if err != nil {
			panic("coding: " + err.Error())
		}
		return d
	})
)

// GzipBytes returns body compressed as one gzip member.
func GzipBytes(body []byte) []byte {
	var b bytes.Buffer
	b.Grow(len(body)/4 + 64)
	w, err := gzip.NewWriterLevel(&b, GzipLevel)
	if err != nil {
		panic("coding: " + err.Error()) // GzipLevel is valid
	}
	w.Write(body) // a bytes.Buffer does not fail
	w.Close()
	return b.Bytes()
}

// ZstdBytes returns body compressed as one zstd frame. It is safe for
// concurrent use.
func ZstdBytes(body []byte) []byte {
	return zenc().EncodeAll(body, make([]byte, 0, len(body)/5+64))
}

// NewZstdWriter returns a writer that compresses what is written to it
// into w as one zstd frame, as ZstdBytes does, without the whole body in
// memory at once; Close ends the frame.
func NewZstdWriter(w io.Writer) io.WriteCloser {
	e, err := zstd.NewWriter(w, zstd.WithEncoderLevel(zstd.SpeedFastest),
		zstd.WithWindowSize(MaxZstdWindow), zstd.WithEncoderConcurrency(1), zstd.WithZeroFrames(true))
	if err != nil {
		panic("coding: " + err.Error()) // the options are valid
	}
	return e
}

// Decode returns the bytes b stands for in content coding c ("" and
// "identity" return b itself).
func Decode(c string, b []byte) ([]byte, error) {
	switch c {
	case "", "identity":
		return b, nil
	case Zstd:
		out, err := zdec().DecodeAll(b, nil)
		if err != nil {
			return nil, fmt.Errorf("zstd: %w", err)
		}
		return out, nil
	case Gzip:
		r, err := gzip.NewReader(bytes.NewReader(b))
		if err != nil {
			return nil, fmt.Errorf("gzip: %w", err)
		}
		out, err := io.ReadAll(r)
		if err != nil {
			return nil, fmt.Errorf("gzip: %w", err)
		}
		return out, nil
	}
	return nil, fmt.Errorf("unknown content coding %q", c)
}

// Pack returns how a store keeps export file e: body in bodyCoding, zstd
// when e has a zstd encoding (then its identity bytes are not stored at
// all), else identity; and the gzip encoding, or nil. Storing the
// compressed forms only makes each deployment grow the database by about
// two fifths of its files' size instead of all of it (BENCHMARKS.md).
func Pack(e *redirects.Export) (bodyCoding string, body, gz []byte) {
	bodyCoding, body = "identity", e.Body
	if z := e.Encoding(Zstd); z != nil && z.Body != nil {
		bodyCoding, body = Zstd, z.Body
	}
	if g := e.Encoding(Gzip); g != nil {
		gz = g.Body
	}
	return bodyCoding, body, gz
}

// Unpack fills e, whose ETag is set, from what Pack returned: its identity
// Body, decompressed when it was stored compressed, and its encodings, each
// with its ETag.
func Unpack(e *redirects.Export, bodyCoding string, body, gz []byte) error {
	id, err := Decode(bodyCoding, body)
	if err != nil {
		return fmt.Errorf("export %s: %w", e.Format, err)
	}
	if id == nil {
		id = []byte{}
	}
	e.Body, e.Encodings = id, nil
	if bodyCoding == Zstd {
		e.Encodings = append(e.Encodings, redirects.Encoding{Coding: Zstd, Body: body, ETag: redirects.EncodingETag(e.ETag, Zstd)})
	}
	if gz != nil {
		e.Encodings = append(e.Encodings, redirects.Encoding{Coding: Gzip, Body: gz, ETag: redirects.EncodingETag(e.ETag, Gzip)})
	}
	return nil
}

// UnpackCompact is Unpack for a reader that serves the file to many
// clients (redirects.CompactExportSource): a file stored as zstd with a
// gzip encoding whose identity is at least minLen bytes keeps its
// encodings only, with IdentityLen, its identity read from the zstd
// frame's header and never decompressed here; any other file is unpacked
// whole.
func UnpackCompact(e *redirects.Export, bodyCoding string, body, gz []byte, minLen int64) error {
	if bodyCoding == Zstd && gz != nil && minLen > 0 {
		var h zstd.Header
		if err := h.Decode(body); err == nil && h.HasFCS && h.FrameContentSize >= uint64(minLen) && h.FrameContentSize < 1<<62 {
			e.Body, e.IdentityLen = nil, int64(h.FrameContentSize)
			e.Encodings = []redirects.Encoding{
				{Coding: Zstd, Body: body, ETag: redirects.EncodingETag(e.ETag, Zstd)},
				{Coding: Gzip, Body: gz, ETag: redirects.EncodingETag(e.ETag, Gzip)},
			}
			return nil
		}
	}
	e.IdentityLen = 0
	return Unpack(e, bodyCoding, body, gz)
}

// IdentityReader returns a reader of the identity body of e: a reader of
// Body, or for a compact export (redirects.Export.Compact) its gzip
// encoding decompressed as it is read, with some 45 KiB of state whatever
// the file's size (a zstd decoder would hold its window, up to 8 MiB). It
// yields exactly IdentityLen bytes; the read that yields the last of them
// also checks the gzip member's end (its CRC-32 and length), and fails
// instead when they do not match or the member holds more, so a body that
// is not the file never ends as if it were.
func IdentityReader(e *redirects.Export) (io.Reader, error) {
	if !e.Compact() {
		return bytes.NewReader(e.Body), nil
	}
	g := e.Encoding(Gzip)
	if g == nil {
		return nil, fmt.Errorf("export %s: a compact export without its gzip encoding", e.Format)
	}
	r, err := gzip.NewReader(bytes.NewReader(g.Body))
	if err != nil {
		return nil, fmt.Errorf("export %s: gzip: %w", e.Format, err)
	}
	r.Multistream(false)
	return &exactReader{r: r, left: e.IdentityLen}, nil
}

// exactReader reads left bytes of r, then requires r's end.
type exactReader struct {
	r    io.Reader
	left int64
}

func (x *exactReader) Read(p []byte) (int, error) {
	if x.left <= 0 {
		return 0, io.EOF
	}
	if int64(len(p)) > x.left {
		p = p[:x.left]
	}
	n, err := x.r.Read(p)
	x.left -= int64(n)
	if x.left > 0 {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return n, err
	}
	if err == nil {
		// The last bytes are read: the member must end here, its trailer
		// checked by the gzip reader, before they are given out.
		var one [1]byte
		m, err2 := x.r.Read(one[:])
		for m == 0 && err2 == nil {
			m, err2 = x.r.Read(one[:])
		}
		if m != 0 || err2 != io.EOF {
			err = err2
			if err == nil || err == io.EOF {
				err = errors.New("the gzip member holds more than the file's length")
			}
		}
	}
	if err != nil && err != io.EOF {
		// The last bytes are held back: a reader that stops at the
		// length it expects (io.ReadFull) must see the failure.
		return 0, fmt.Errorf("gzip: %w", err)
	}
	return n, nil
}
