package plan

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"unsafe"

	"redirects"
	"redirects/export"
)

// beside opens the files a project file names (rulesFile, testsFile)
// inside the project file's folder, through an os.Root: a name that leaves
// the folder, by ".." or by a symbolic link, is refused, and so is anything
// but a regular file. A project file comes from whoever opens a pull
// request, while plan runs with the CI job's environment and secrets: a
// file outside the folder (/proc/self/environ) must not be read, let alone
// quoted, and a device (/dev/zero) must not be read without end.
type beside struct {
	dir  string
	root *os.Root
}

// open opens name, the value of field, and returns the file or the
// problem: the field, the name (short, quoted) and why, never a byte of
// the file. limit caps the file's size; what names the file in the message
// of a file past it.
func (b *beside) open(field, name string, limit int64, what string) (*os.File, string) {
	bad := func(format string, args ...any) (*os.File, string) {
		return nil, fmt.Sprintf("%s %s: ", field, quoteShort(name)) + fmt.Sprintf(format, args...)
	}
	if msg := besideName(name); msg != "" {
		return bad("%s", msg)
	}
	if b.root == nil {
		root, err := os.OpenRoot(b.dir)
		if err != nil {
			return bad("cannot open the project file's folder: %v", pathErr(err))
		}
		b.root = root
	}
	// Non-blocking, so that opening a named pipe does not wait for a
	// writer; it is then refused as not a regular file.
	f, err := b.root.OpenFile(filepath.FromSlash(name), os.O_RDONLY|openNonblock, 0)
	if err != nil {
		return bad("cannot open it inside the project file's folder: %v", pathErr(err))
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return bad("cannot read it: %v", pathErr(err))
	}
	if kind := fileKind(fi.Mode()); kind != "" {
		f.Close()
		return bad("is %s, not a regular file", kind)
	}
	if fi.Size() > limit {
		f.Close()
		return bad("is larger than the %d MiB %s may be", limit>>20, what)
	}
	return f, ""
}

// close closes the folder, if open.
func (b *beside) close() {
	if b.root != nil {
		b.root.Close()
	}
}

// besideName says what is wrong with a name that cannot be inside the
// project file's folder, or "".
func besideName(name string) string {
	const inside = "; give a path inside the project file's folder"
	switch {
	case strings.ContainsRune(name, 0):
		return "holds a NUL byte"
	case filepath.IsAbs(name) || strings.HasPrefix(name, "/") || strings.HasPrefix(name, `\`) || filepath.VolumeName(name) != "":
		return "is an absolute path" + inside
	}
	for _, el := range strings.FieldsFunc(name, func(r rune) bool { return r == '/' || r == filepath.Separator }) {
		if el == ".." {
			return `has a ".." element` + inside
		}
	}
	return ""
}

// fileKind names what a file that is not a regular file is, or "".
func fileKind(m fs.FileMode) string {
	switch {
	case m.IsRegular():
		return ""
	case m.IsDir():
		return "a folder"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "a special file"
}

// pathErr is err without the path an *fs.PathError repeats: the message
// names the field and the name as the file gives it.
func pathErr(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// countReader counts the bytes read through it.
type countReader struct {
	r io.Reader
	n int64
}

func (c *countReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// rules reads the rules CSV name (rulesFile) as an import is, up to
// MaxRulesFileSize and MaxRulesFileRows, and reports its problems to bad.
func (b *beside) rules(name string, opts export.ReadOptions, bad func(string, ...any)) ([]redirects.Rule, []int) {
	f, msg := b.open("rulesFile", name, MaxRulesFileSize, "a rules file")
	if msg != "" {
		bad("%s", msg)
		return nil, nil
	}
	defer f.Close()
	cr := &countReader{r: io.LimitReader(f, MaxRulesFileSize+1)}
	opts.MaxRows = MaxRulesFileRows
	rules, lines, badLines, err := export.ReadRules(cr, opts)
	field := "rulesFile " + quoteShort(name)
	switch {
	case cr.n > MaxRulesFileSize:
		// It grew after it was measured.
		bad("%s: is larger than the %d MiB a rules file may be", field, MaxRulesFileSize>>20)
		return nil, nil
	case err != nil:
		bad("%s: %s", field, redirects.ErrorMessage(err))
		return nil, nil
	}
	for _, l := range badLines {
		bad("%s: line %d: %s", field, l.Line, l.Message)
	}
	return rules, lines
}

// tests reads the test file name (testsFile), up to
// redirects.MaxTestsLen, UTF-8 text, and reports its problems to bad.
func (b *beside) tests(name string, bad func(string, ...any)) string {
	f, msg := b.open("testsFile", name, redirects.MaxTestsLen, "a test file")
	if msg != "" {
		bad("%s", msg)
		return ""
	}
	defer f.Close()
	// Read into one buffer of the size open measured, not one grown.
	var size int64
	if fi, err := f.Stat(); err == nil {
		size = fi.Size()
	}
	data, err := readAll(io.LimitReader(f, redirects.MaxTestsLen+1), size)
	field := "testsFile " + quoteShort(name)
	switch {
	case err != nil:
		bad("%s: cannot read it: %v", field, pathErr(err))
		return ""
	case len(data) > redirects.MaxTestsLen:
		bad("%s: is larger than the %d MiB a test file may be", field, redirects.MaxTestsLen>>20)
		return ""
	}
	if msg := textProblem(data); msg != "" {
		bad("%s: %s", field, msg)
		return ""
	}
	if len(data) == 0 {
		return ""
	}
	// The buffer is the string's, not copied (4 MiB): nothing else holds
	// or changes it.
	return unsafe.String(&data[0], len(data))
}
