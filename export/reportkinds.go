package export

import (
	"slices"
	"strings"

	"redirects"
)

// ReportKind is one kind of difference a deploy report (Report) states,
// with the formats whose lines state it.
type ReportKind struct {
	// Formats are the formats concerned, in the order of redirects.Formats;
	// none for a line that names no format.
	Formats []string
	// What is the difference, as the report's lines word it after their
	// formats.
	What string
}

// allButCSV is how a report line names every format but the csv.
const allButCSV = "all formats but csv"

// ReportKinds returns the lines of report grouped by what they say, each
// kind once, in the order of its first line: the report states a
// difference per format ("nginx-map-exact: exact rules with statusCode
// 302: served as 301 ..." and the same words for haproxy-map-exact), and a
// reader needs it once, with the formats it concerns.
func ReportKinds(report string) []ReportKind {
	var kinds []ReportKind
	for line := range strings.SplitSeq(strings.TrimSuffix(report, "\n"), "\n") {
		if line == "" {
			continue
		}
		formats, what := reportFormats(line)
		i := slices.IndexFunc(kinds, func(k ReportKind) bool { return k.What == what })
		if i < 0 {
			kinds = append(kinds, ReportKind{What: what})
			i = len(kinds) - 1
		}
		for _, f := range formats {
			if !slices.Contains(kinds[i].Formats, f) {
				kinds[i].Formats = append(kinds[i].Formats, f)
			}
		}
		slices.SortFunc(kinds[i].Formats, func(a, b string) int {
			return slices.Index(redirects.Formats, a) - slices.Index(redirects.Formats, b)
		})
	}
	return kinds
}

// ReportFormats returns the formats that kinds concern, in the order of
// redirects.Formats.
func ReportFormats(kinds []ReportKind) []string {
	var out []string
	for _, f := range redirects.Formats {
		for _, k := range kinds {
			if slices.Contains(k.Formats, f) {
				out = append(out, f)
				break
			}
		}
	}
	return out
}

// reportFormats splits a report line into the formats it names before its
// first ": " and the rest; a line that names none is all rest.
func reportFormats(line string) ([]string, string) {
	head, rest, ok := strings.Cut(line, ": ")
	if !ok {
		return nil, line
	}
	if head == allButCSV {
		var fs []string
		for _, f := range redirects.Formats {
			if f != "csv" {
				fs = append(fs, f)
			}
		}
		return fs, rest
	}
	var fs []string
	for f := range strings.SplitSeq(head, ", ") {
		// "haproxy (12000 ACLs)": a format with a count.
		f, _, _ = strings.Cut(f, " (")
		if !slices.Contains(redirects.Formats, f) {
			return nil, line
		}
		fs = append(fs, f)
	}
	return fs, rest
}
