package importer

import (
	"context"
	"encoding/csv"
	"errors"
	"io"
	"unicode/utf8"

	"redirects/export"
)

// maxRecordLen bounds a record of a CSV file, its line breaks counted: a
// quoted field may span lines, and encoding/csv holds a record whole, so a
// quote left open would otherwise gather the rest of the file into one
// field. It is MaxLineLen with room for a line break and a character the
// guard takes whole, so that a line the guard takes is never past it.
const maxRecordLen = MaxLineLen + utf8.UTFMax + 2

// newCSVReader returns an encoding/csv reader of in (a file through its
// guard, which ends the read with the caller's context) that takes records
// of any number of fields and holds at most maxRecordLen bytes of one: a
// longer record fails with an *export.RecordTooLongError, which
// csvRecordTooLong reports.
func newCSVReader(in io.Reader) *csv.Reader {
	r := csv.NewReader(export.LimitRecords(context.Background(), in, maxRecordLen))
	r.FieldsPerRecord = -1
	r.ReuseRecord = true
	return r
}

// csvRecordTooLong reports err of a newCSVReader's Read, when it is a
// record past the limit, as the bad line where the record starts, and says
// whether it was one; the reader cannot go on past it.
func csvRecordTooLong(err error, sink *Sink) bool {
	var le *export.RecordTooLongError
	if !errors.As(err, &le) {
		return false
	}
	if le.At > 0 {
		sink.Bad(le.Line, "a quoted field that starts on this line runs on past %d KiB, the most a line may hold (to line %d): is a quote left open?", MaxLineLen>>10, le.At)
	} else {
		sink.Bad(le.Line, "the line is %d bytes long; a line may hold at most %d bytes (%d KiB)", le.Length, MaxLineLen, MaxLineLen>>10)
	}
	return true
}
