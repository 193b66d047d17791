package importer

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"redirects"
)

// What bounds a read, whatever the format (docs/migrate.md#limits): every
// byte of the file passes once through an inputGuard, which stops the read
// when the caller's context ends, refuses the whole file at its first NUL
// or invalid UTF-8 byte (not only in the head that detection sees), and
// refuses a line longer than MaxLineLen before a reader buffers it.

// MaxLineLen is the longest line (without its line break) that a file may
// hold. JSON files (vercel.json, a Vercel bulk or Redirection export) are
// often written on one line and are exempt: their nesting is bounded by
// encoding/json, and each reader streams them.
const MaxLineLen = 64 << 10

// inputGuard is the reader every format reads through.
type inputGuard struct {
	ctx context.Context
	r   io.Reader
	// stop, when it returns an error, ends the read with it (the sink's
	// rule limit).
	stop func() error
	// maxLine is the longest line taken, 0 for no limit.
	maxLine int

	off     int64 // the file offset of the next byte read
	line    int   // the line of the next byte, 1-based
	lineLen int   // bytes of that line so far
	// cr is set when the last byte was a CR: it counts toward the line
	// only if no LF follows it (a CRLF line break is no part of the line).
	cr bool
	// carry holds the first bytes of a character cut by the end of the
	// previous read, and carryOff the offset of its first byte.
	carry    [utf8.UTFMax]byte
	nCarry   int
	carryOff int64
	// err, once set, ends every later Read.
	err error
}

func newInputGuard(ctx context.Context, r io.Reader, stop func() error) *inputGuard {
	return &inputGuard{ctx: ctx, r: r, stop: stop, line: 1}
}

// inputError is a refusal of the whole file by the guard; Read reports it
// as EINVALID before anything a reader made of the bytes before it.
type inputError struct{ msg string }

func (e *inputError) Error() string { return e.msg }

func (g *inputGuard) Read(p []byte) (int, error) {
	if g.err != nil {
		return 0, g.err
	}
	if err := g.ctx.Err(); err != nil {
		g.err = err
		return 0, err
	}
	if g.stop != nil {
		if err := g.stop(); err != nil {
			g.err = err
			return 0, err
		}
	}
	n, err := g.r.Read(p)
	k, bad := g.check(p[:n])
	if bad != nil {
		g.err = bad
		return k, bad
	}
	if err == io.EOF && g.nCarry > 0 {
		g.err = notText(g.carryOff, g.line)
		return n, g.err
	}
	if err != nil && err != io.EOF {
		g.err = err
	}
	return n, err
}

// check looks at the next bytes of the file, b, and returns how many of
// them may be handed on and, at the first bad one, why the file is
// refused.
func (g *inputGuard) check(b []byte) (int, error) {
	i := 0
	if g.nCarry > 0 {
		// Complete the character the previous read cut.
		var buf [2 * utf8.UTFMax]byte
		c := copy(buf[:], g.carry[:g.nCarry])
		c += copy(buf[c:], b[:min(len(b), utf8.UTFMax)])
		if !utf8.FullRune(buf[:c]) {
			g.nCarry = copy(g.carry[:], buf[:c])
			g.off += int64(len(b))
			return len(b), nil
		}
		r, size := utf8.DecodeRune(buf[:c])
		if r == utf8.RuneError && size <= 1 {
			return 0, notText(g.carryOff, g.line)
		}
		i = size - g.nCarry
		g.nCarry = 0
		if g.cr {
			g.lineLen++ // a lone CR
			g.cr = false
		}
		g.lineLen += size
	}
	for i < len(b) {
		c := b[i]
		if g.cr && c != '\n' {
			g.lineLen++ // a lone CR
			g.cr = false
		}
		switch {
		case c == '\n':
			g.line++
			g.lineLen = 0
			g.cr = false
			i++
			continue
		case c == '\r':
			g.cr = true
			i++
		case c == 0:
			return i, &inputError{fmt.Sprintf("the file is binary (it holds NUL bytes), not a redirect file: the first at offset %d, line %d", g.off+int64(i), g.line)}
		case c < utf8.RuneSelf:
			g.lineLen++
			i++
		case !utf8.FullRune(b[i:]):
			g.nCarry = copy(g.carry[:], b[i:])
			g.carryOff = g.off + int64(i)
			i = len(b)
		default:
			r, size := utf8.DecodeRune(b[i:])
			if r == utf8.RuneError && size <= 1 {
				return i, notText(g.off+int64(i), g.line)
			}
			g.lineLen += size
			i += size
		}
		if g.maxLine > 0 && g.lineLen > g.maxLine {
			return i, g.longLine(b[i:])
		}
	}
	g.off += int64(len(b))
	return len(b), nil
}

// longLine reads on to the end of a line longer than maxLine (rest being
// what the current read holds after the point where it went past the
// limit), counting, so that the error names its length; nothing of it is
// kept or handed on.
func (g *inputGuard) longLine(rest []byte) error {
	line, n := g.line, g.lineLen
	buf := make([]byte, 32<<10)
	var rerr error
	for {
		if j := bytes.IndexByte(rest, '\n'); j >= 0 {
			n += j
			if j > 0 && rest[j-1] == '\r' {
				n-- // the CR of a CRLF
			}
			break
		}
		n += len(rest)
		if rerr == io.EOF {
			break
		} else if rerr != nil {
			return rerr
		}
		if err := g.ctx.Err(); err != nil {
			return err
		}
		var m int
		m, rerr = g.r.Read(buf)
		rest = buf[:m]
	}
	n = max(n, g.maxLine+1)
	return &inputError{fmt.Sprintf("line %d is %d bytes long; a line may hold at most %d bytes (%d KiB)", line, n, g.maxLine, g.maxLine>>10)}
}

func notText(off int64, line int) error {
	return &inputError{fmt.Sprintf("the file is not UTF-8 text (invalid byte at offset %d) at line %d; save it as UTF-8 and import it again", off, line)}
}

// inputErr turns a guard's refusal into the EINVALID error Read returns.
func inputErr(err error) error {
	return &redirects.Error{Code: redirects.EINVALID, Message: err.Error()}
}

// MaxExcerpt is how much of a value of the file a note or error quotes.
const MaxExcerpt = 80

// MaxNoteLen caps a whole note or bad-line message.
const MaxNoteLen = 512

// excerpt is a string of the file quoted in a note: at most MaxExcerpt
// bytes of it (cut on a character, with an ellipsis), control characters
// escaped and invalid UTF-8 replaced by U+FFFD. It prints as the text with
// %s and %v, quoted with %q.
type excerpt string

func (e excerpt) Format(f fmt.State, verb rune) {
	s, cut := cutText(string(e), MaxExcerpt)
	if verb == 'q' {
		s = strconv.Quote(s)
	} else {
		s = escapeControls(s)
	}
	if cut {
		s += "…"
	}
	_, _ = io.WriteString(f, s)
}

// cutText returns at most n bytes of s, cut on a character boundary, valid
// UTF-8, and whether it cut.
func cutText(s string, n int) (string, bool) {
	cut := false
	if len(s) > n {
		s, cut = s[:n], true
		// Drop a character the cut split (at most 3 bytes).
		for k := 0; k < utf8.UTFMax-1 && len(s) > 0 && !utf8.ValidString(s); k++ {
			if r, size := utf8.DecodeLastRuneInString(s); r == utf8.RuneError && size <= 1 {
				s = s[:len(s)-1]
			} else {
				break
			}
		}
	}
	return strings.ToValidUTF8(s, "\uFFFD"), cut
}

// escapeControls writes control characters (NUL, line breaks, ESC, DEL)
// as Go escapes, so a note stays one line of plain text.
func escapeControls(s string) string {
	if strings.IndexFunc(s, isControl) < 0 {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if isControl(r) {
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
		} else {
			b.WriteRune(r)
		}
	}
	return b.String()
}

func isControl(r rune) bool { return r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) }

// noteText formats a note or bad-line message: each string or error
// argument is quoted as an excerpt, unless the format is a lone "%s" or
// "%v" (a message a reader composed, whose own arguments it chose); the
// whole is cut to MaxNoteLen and made plain text.
func noteText(format string, args []any) string {
	if format != "%s" && format != "%v" {
		for i, a := range args {
			switch x := a.(type) {
			case string:
				args[i] = excerpt(x)
			case error:
				args[i] = excerpt(x.Error())
			case fmt.Stringer:
				args[i] = excerpt(x.String())
			}
		}
	}
	return plainText(fmt.Sprintf(format, args...), MaxNoteLen)
}

// plainText cuts s to n bytes (with an ellipsis) and escapes its control
// characters.
func plainText(s string, n int) string {
	s, cut := cutText(s, n)
	s = escapeControls(s)
	if cut {
		s += "…"
	}
	return s
}
