package importer

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// vcFastPieces are entries of a redirects array, common and odd: each
// odd one must reach the decoder and be read as it reads it.
var vcFastPieces = []string{
	`{"source":"/a-%d","destination":"/b-%d","permanent":true}`,
	`{ "source" : "/a-%d" ,` + "\n" + `  "destination": "https://example.com/b-%d", "statusCode": 301 }`,
	`{"source":"/a-%d/:path*","destination":"/b-%d/:path*","permanent":false}`,
	`{"destination":"/b-%d","source":"/a-%d"}`,
	`{"source":"/a-%d","destination":"/b-%d","statusCode":0}`,
	`{"source":"/a-%d","destination":"/b-%d","statusCode":3010}`,
	`{"source":"/a-%d","destination":"/b-%d","statusCode":301.0}`,
	`{"source":"/a-%d","destination":"/b-%d","statusCode":-301}`,
	`{"source":"/a-%d","destination":"/b-%d","statusCode":"301"}`,
	`{"source":"/a-%d","destination":"/b-%d","statusCode":301,"permanent":true}`,
	`{"source":"/a-%d","destination":"/b-%d","has":[{"type":"host","value":"x.example.com"}]}`,
	`{"source":"/a-%d","destination":"/b-%d","missing":[{"type":"query","key":"q"}]}`,
	`{"source":"/a-%d","destination":"/b-%d","Permanent":true}`,
	`{"Source":"/a-%d","destination":"/b-%d"}`,
	`{"source":"/a-%d","destination":"/b-%d","extra":1}`,
	`{"source":"\/a-%d","destination":"/b-%d?x=1&y=<2>"}`,
	`{"source":"/é-%d","destination":"/b-%d"}`,
	"{\"source\":\"/\xff-%d\",\"destination\":\"/b-%d\"}",
	"{\"source\":\"/a\x01-%d\",\"destination\":\"/b-%d\"}",
	`{"source":"/a-%d","source":"/c","destination":"/b-%d"}`,
	`{"source":null,"destination":"/b-%d%.0d"}`,
	`{"source":"/a-%d%.0d"}`,
	`{}`,
	`{"source":"/a-%d","destination":"/b-%d",}`,
	`{"source":"/a-%d" "destination":"/b-%d"}`,
	`{"source":"/a-%d","destination":"/b-%d","permanent":tru}`,
	`{"source":"/a-%d","destination":"/b-%d","permanent":truex}`,
	`{"source":"/(a-%d","destination":"/b-%d"}`,
	`"/a-%d%.0d"`,
	`[%d,%d]`,
	`{"source":"/a-%d","destination":"/b-%d","permanent":true}` + "\n\n\t",
}

// TestVercelFastReaderAsDecoder holds the hand-written reader of a
// vercel.json's common entries to encoding/json's: for files of common and
// odd entries, separators and endings (a trailing comma, a missing one, a
// file cut short, settings after the array), the read with it and the read
// with every entry decoded give the same result, or the same error.
func TestVercelFastReaderAsDecoder(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var b strings.Builder
		b.WriteString(rapid.SampledFrom([]string{"{\"redirects\": [", "{\n  \"cleanUrls\": true,\n  \"redirects\":[\n", "\uFEFF{\"redirects\":["}).Draw(t, "head"))
		n := rapid.IntRange(0, 12).Draw(t, "entries")
		noComma := false
		for i := range n {
			if i > 0 {
				sep := rapid.SampledFrom([]string{",", ",\n  ", " ,", "\n,", "", ",,", ".5,", "e5,", "E+1,", ".x,", "0,"}).Draw(t, "comma")
				noComma = noComma || sep == ""
				b.WriteString(sep)
			}
			piece := rapid.SampledFrom(vcFastPieces).Draw(t, "piece")
			if rapid.IntRange(0, 3).Draw(t, "common") > 0 {
				piece = vcFastPieces[rapid.IntRange(0, 3).Draw(t, "which")]
			}
			fmt.Fprintf(&b, piece, i, i)
			if rapid.IntRange(0, 30).Draw(t, "long") == 0 {
				fmt.Fprintf(&b, `,{"source":"/%s","destination":"/x"}`, strings.Repeat("y", rapid.SampledFrom([]int{100, 20 << 10, MaxLineLen + 1}).Draw(t, "len")))
			}
		}
		b.WriteString(rapid.SampledFrom([]string{"]}", "\n]\n}\n", "],\"trailingSlash\":false}", "],\"trailingSlash\":1}", ",]}", "]", "]}x", "]} {}"}).Draw(t, "tail"))
		doc := b.String()
		if rapid.IntRange(0, 5).Draw(t, "cut") == 0 {
			doc = doc[:rapid.IntRange(0, len(doc)).Draw(t, "at")]
		}
		read := func(off bool) string {
			vcFastOff = off
			defer func() { vcFastOff = false }()
			res, err := Read(context.Background(), strings.NewReader(doc), "vercel", Options{MaxRules: 9})
			if err != nil {
				return "error: " + err.Error()
			}
			js, _ := json.Marshal(res)
			return fmt.Sprintf("%s %v %v", js, res.Rules, res.RuleLines)
		}
		fast, slow := read(false), read(true)
		if noComma && fast != slow {
			// Two entries without a comma between them: the decoder says
			// "expected comma after array element", and the report names
			// that, or the next entry's own syntax error when the decoder
			// holds all of it, as it did before the fast reader (where it
			// depended on where the decoder's buffer ended). The file is
			// refused either way.
			cut := func(s string) string { s, _, _ = strings.Cut(s, "\n"); return s }
			if !strings.HasPrefix(slow, "error: ") || cut(fast) != cut(slow) {
				t.Fatalf("file %q:\nread by hand: %s\ndecoded:      %s", doc, fast, slow)
			}
			return
		}
		if fast != slow {
			t.Fatalf("file %q:\nread by hand: %s\ndecoded:      %s", doc, fast, slow)
		}
	})
}

// TestVercelEntryTextAsMarshal holds vcEntryText to json.Marshal.
func TestVercelEntryTextAsMarshal(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		str := func(name string) *string {
			if rapid.Bool().Draw(t, name+"?") {
				return nil
			}
			s := rapid.SampledFrom([]string{"/a", "/a?b=1&c=2", "/<x>", "/é", "/\u2028", "/\"q\"", "/\\", "/\x7f", "/\x01", "\xff", ""}).Draw(t, name) +
				rapid.StringMatching(`[a-z/:*]{0,8}`).Draw(t, name+"+")
			return &s
		}
		e := vcEntry{Source: str("source"), Destination: str("destination")}
		if rapid.Bool().Draw(t, "permanent?") {
			p := rapid.Bool().Draw(t, "permanent")
			e.Permanent = &p
		}
		if rapid.Bool().Draw(t, "status?") {
			n := json.Number(rapid.SampledFrom([]string{"301", "0", "1e3", "302"}).Draw(t, "status"))
			e.StatusCode = &n
		}
		if rapid.IntRange(0, 4).Draw(t, "has?") == 0 {
			e.Has = []vcCondition{{Type: "host", Value: json.RawMessage(`"x"`)}}
		}
		want, _ := json.Marshal(&e)
		if got := vcEntryText(&e); got != string(want) {
			t.Fatalf("vcEntryText(%+v) = %s, json.Marshal gives %s", e, got, want)
		}
	})
}

// TestVercelFastReaderTakesCommonEntries checks that the fast reader is
// used at all: a file of common entries is read whole by hand.
func TestVercelFastReaderTakesCommonEntries(t *testing.T) {
	doc := `{"redirects":[{"source":"/a","destination":"/b","permanent":true},` + "\n" + `{"source":"/c","destination":"/d"}]}`
	j := newJSONLines(strings.NewReader(doc))
	for range 3 {
		if _, err := j.token(); err != nil {
			t.Fatal(err)
		}
	}
	f := vcFastStart(j)
	var got []int
	for first := true; ; first = false {
		var e vcEntry
		line, ok := f.next(first, &e)
		if !ok {
			break
		}
		got = append(got, line)
	}
	if want := []int{1, 2}; !reflect.DeepEqual(got, want) {
		t.Fatalf("the fast reader took entries of lines %v, want %v", got, want)
	}
}

// TestVercelSourceLiteralAsScan holds parseVercelSource's path for a
// literal source to the scan of every character.
func TestVercelSourceLiteralAsScan(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := rapid.StringOf(rapid.SampledFrom([]rune(`/a.-_~%é\:(){}*+?`))).Draw(t, "source")
		got, gerr := parseVercelSource(s)
		want, werr := parseVercelSourceScan(s)
		if fmt.Sprint(gerr) != fmt.Sprint(werr) || !reflect.DeepEqual(got, want) {
			t.Fatalf("parseVercelSource(%q) = %+v, %v; the scan gives %+v, %v", s, got, gerr, want, werr)
		}
	})
}
