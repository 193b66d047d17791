package sqlstore

import (
	"bytes"
	"math/rand/v2"
	"reflect"
	"testing"

	"redirects"
)

func randomRows(r *rand.Rand, n int) []draftRow {
	rows := make([]draftRow, n)
	for i := range rows {
		src := make([]byte, r.IntN(40))
		for j := range src {
			src[j] = byte(r.IntN(256))
		}
		rows[i] = draftRow{id: r.Int64N(1 << 50), matchType: redirects.MatchType(r.IntN(2)), source: src, destination: []byte("/d" + string(src)),
			status: int64([]int{301, 302, 303, 307, 308, 410}[r.IntN(6)]), priority: r.Int64N(2_000_000) - 1000, created: r.Int64(),
			revision: 1 + r.Int64N(1000), preservePath: r.IntN(2) == 0, preserveQuery: r.IntN(2) == 0}
	}
	return rows
}

// TestDraftEncodingRoundTrip: random drafts encode and decode to the same
// rows; a cut encoding is an error, never a shorter draft.
func TestDraftEncodingRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 200 {
		rows := randomRows(r, r.IntN(50))
		b := []byte{draftEncoding}
		for i := range rows {
			b = appendRow(b, &rows[i])
		}
		got, err := decodeRows(b)
		if err != nil {
			t.Fatal(err)
		}
		if len(rows) == 0 && len(got) == 0 {
			continue
		}
		for i := range got {
			if got[i].source == nil {
				got[i].source = []byte{}
			}
			if rows[i].source == nil {
				rows[i].source = []byte{}
			}
		}
		if !reflect.DeepEqual(got, rows) {
			t.Fatalf("decoded %+v, want %+v", got, rows)
		}
		if len(b) > 2 {
			cut := b[:1+r.IntN(len(b)-2)]
			if d, err := decodeRows(cut); err == nil && len(d) == len(rows) {
				t.Fatalf("a cut encoding (%d of %d bytes) decoded to the whole draft", len(cut), len(b))
			}
		}
	}
	if _, err := decodeRows([]byte{9}); err == nil {
		t.Fatal("an unknown encoding version decoded")
	}
}

// TestDraftDigest: the digest does not depend on the order of the rows,
// and changes with any one field of any one row, a row more or less, or
// the settings.
func TestDraftDigest(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	sum := func(rows []draftRow, s redirects.Settings) []byte {
		var d draftDigest
		for i := range rows {
			d.add(&rows[i])
		}
		return d.sum(s)
	}
	for range 200 {
		rows := randomRows(r, 1+r.IntN(30))
		base := sum(rows, redirects.Settings{})
		shuffled := append([]draftRow(nil), rows...)
		r.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
		if !bytes.Equal(sum(shuffled, redirects.Settings{}), base) {
			t.Fatal("the digest depends on the rows' order")
		}
		if bytes.Equal(sum(rows, redirects.Settings{CaseInsensitive: true}), base) {
			t.Fatal("the digest ignores the settings")
		}
		if bytes.Equal(sum(rows[1:], redirects.Settings{}), base) {
			t.Fatal("the digest ignores a row less")
		}
		k := r.IntN(len(rows))
		for f := range 13 {
			changed := append([]draftRow(nil), rows...)
			c := &changed[k]
			switch f {
			case 0:
				c.id++
			case 1:
				c.matchType ^= 1
			case 2:
				c.source = append(append([]byte(nil), c.source...), 'x')
			case 3:
				c.destination = append(append([]byte(nil), c.destination...), 'x')
			case 4:
				c.status++
			case 5:
				c.priority++
			case 6:
				c.revision++
			case 7:
				c.preservePath = !c.preservePath
			case 8:
				c.preserveQuery = !c.preserveQuery
			case 9:
				c.host = append(append([]byte(nil), c.host...), 'h')
			case 10:
				c.matchType = redirects.Regex
			case 11:
				c.queryAfterFragment = !c.queryAfterFragment
			case 12:
				c.mergeQuery = !c.mergeQuery
			}
			if bytes.Equal(sum(changed, redirects.Settings{}), base) {
				t.Fatalf("the digest ignores a change of field %d", f)
			}
		}
	}
}

// TestDraftEncodingPatterns: drafts with pattern and regex rules and hosts
// round-trip in encoding 2, which the first encoding's reader refuses
// rather than misread; drafts without them are encoded as before.
func TestDraftEncodingPatterns(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for range 200 {
		rows := randomRows(r, 1+r.IntN(30))
		extended := false
		for i := range rows {
			switch r.IntN(4) {
			case 0:
				rows[i].matchType = redirects.MatchType(2 + r.IntN(2))
				extended = true
			case 1:
				rows[i].host = []byte("h" + string(rows[i].source))
				extended = true
			}
		}
		b := []byte{draftEncoding}
		for i := range rows {
			if rowFlags(&rows[i])&draftExtended != 0 {
				b[0] = draftEncodingExtended
			}
			b = appendRow(b, &rows[i])
		}
		if extended != (b[0] == draftEncodingExtended) {
			t.Fatalf("encoding %d for a draft with extended rules %v", b[0], extended)
		}
		got, err := decodeRows(b)
		if err != nil {
			t.Fatal(err)
		}
		for i := range got {
			for _, p := range []*[]byte{&got[i].source, &rows[i].source} {
				if *p == nil {
					*p = []byte{}
				}
			}
			if len(got[i].host) == 0 && len(rows[i].host) == 0 {
				got[i].host, rows[i].host = nil, nil
			}
		}
		if !reflect.DeepEqual(got, rows) {
			t.Fatalf("decoded %+v, want %+v", got, rows)
		}
		if extended {
			// Read as the first encoding, the extended flags are refused.
			old := append([]byte{draftEncoding}, b[1:]...)
			if _, err := decodeRows(old); err == nil {
				t.Fatal("encoding 1 took a rule flag it does not know")
			}
		}
	}
}

// TestDraftEncodingNewerFields: drafts with a rule field of a newer
// encoding round-trip in it, which the readers of the encodings before it
// refuse rather than misread; the encoder writes it only for drafts that
// use the field. Each case draws random rows, gives the field to some
// (with what it needs), and checks the three.
func TestDraftEncodingNewerFields(t *testing.T) {
	hosts := []string{"example.com", "*.example.com", "xn--bcher-kva.example", "a.b.example.org"}
	for _, tc := range []struct {
		name     string
		encoding byte
		older    []byte
		seed     uint64
		// set gives row the field, or something else new, and reports
		// whether it gave the field.
		set func(r *rand.Rand, row *draftRow) bool
		saw func(*draftEncoder) bool
	}{
		{"queryAfterFragment", draftEncodingQueryAfterFragment, []byte{draftEncoding, draftEncodingExtended}, 8,
			func(r *rand.Rand, row *draftRow) bool {
				if r.IntN(3) != 0 {
					return false
				}
				row.queryAfterFragment, row.preserveQuery = true, true
				return true
			},
			func(e *draftEncoder) bool { return e.qaf }},
		{"mergeQuery", draftEncodingMergeQuery, []byte{draftEncoding, draftEncodingExtended, draftEncodingQueryAfterFragment}, 9,
			func(r *rand.Rand, row *draftRow) bool {
				switch r.IntN(4) {
				case 0:
					row.mergeQuery, row.preserveQuery = true, true
					return true
				case 1:
					row.queryAfterFragment, row.preserveQuery = true, true
				}
				return false
			},
			func(e *draftEncoder) bool { return e.mq }},
		{"exceptHosts", draftEncodingExceptHosts, []byte{draftEncodingExtended, draftEncodingQueryAfterFragment, draftEncodingMergeQuery}, 10,
			func(r *rand.Rand, row *draftRow) bool {
				switch r.IntN(3) {
				case 0:
					var hs []string
					for k := 1 + r.IntN(3); k > 0; k-- {
						hs = append(hs, hosts[r.IntN(len(hosts))])
					}
					row.exceptHosts = []byte(JoinHosts(hs))
					return true
				case 1:
					row.host = []byte(hosts[r.IntN(len(hosts))])
				}
				return false
			},
			func(e *draftEncoder) bool { return e.except }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(7, tc.seed))
			for range 200 {
				rows := randomRows(r, 1+r.IntN(30))
				uses := false
				for i := range rows {
					uses = tc.set(r, &rows[i]) || uses
				}
				var enc draftEncoder
				for i := range rows {
					enc.add(appendRow(nil, &rows[i]), rowFlags(&rows[i]), len(rows[i].exceptHosts) > 0)
				}
				if got := tc.saw(&enc); got != uses {
					t.Fatalf("the encoder saw %s %v, the draft has it %v", tc.name, got, uses)
				}
				b := []byte{tc.encoding}
				for i := range rows {
					b = appendRow(b, &rows[i])
				}
				got, err := decodeRows(b)
				if err != nil {
					t.Fatal(err)
				}
				for i := range got {
					for _, p := range []*[]byte{&got[i].source, &rows[i].source, &got[i].host, &rows[i].host, &got[i].exceptHosts, &rows[i].exceptHosts} {
						if len(*p) == 0 {
							*p = nil
						}
					}
				}
				if !reflect.DeepEqual(got, rows) {
					t.Fatalf("decoded %+v, want %+v", got, rows)
				}
				if uses {
					for _, v := range tc.older {
						if _, err := decodeRows(append([]byte{v}, b[1:]...)); err == nil {
							t.Fatalf("encoding %d took %s, which it does not know", v, tc.name)
						}
					}
				}
			}
		})
	}
}
