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

// TestDraftEncodingQueryAfterFragment: drafts with queryAfterFragment rules
// round-trip in encoding 3, which the readers of encodings 1 and 2 refuse
// rather than misread; the encoder writes 3 only for such drafts.
func TestDraftEncodingQueryAfterFragment(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for range 200 {
		rows := randomRows(r, 1+r.IntN(30))
		qaf := false
		for i := range rows {
			if r.IntN(3) == 0 {
				rows[i].queryAfterFragment, rows[i].preserveQuery = true, true
				qaf = true
			}
		}
		var enc draftEncoder
		for i := range rows {
			enc.add(appendRow(nil, &rows[i]), rowFlags(&rows[i]), false)
		}
		if got := enc.qaf; got != qaf {
			t.Fatalf("the encoder saw queryAfterFragment %v, the draft has it %v", got, qaf)
		}
		b := []byte{draftEncodingQueryAfterFragment}
		for i := range rows {
			b = appendRow(b, &rows[i])
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
		if qaf {
			for _, v := range []byte{draftEncoding, draftEncodingExtended} {
				if _, err := decodeRows(append([]byte{v}, b[1:]...)); err == nil {
					t.Fatalf("encoding %d took the queryAfterFragment flag, which it does not know", v)
				}
			}
		}
	}
}

// TestDraftEncodingMergeQuery: drafts with mergeQuery rules round-trip in
// encoding 4, which the readers of encodings 1 to 3 refuse rather than
// misread; the encoder writes 4 only for such drafts.
func TestDraftEncodingMergeQuery(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 9))
	for range 200 {
		rows := randomRows(r, 1+r.IntN(30))
		mq := false
		for i := range rows {
			switch r.IntN(4) {
			case 0:
				rows[i].mergeQuery, rows[i].preserveQuery = true, true
				mq = true
			case 1:
				rows[i].queryAfterFragment, rows[i].preserveQuery = true, true
			}
		}
		var enc draftEncoder
		for i := range rows {
			enc.add(appendRow(nil, &rows[i]), rowFlags(&rows[i]), len(rows[i].exceptHosts) > 0)
		}
		if got := enc.mq; got != mq {
			t.Fatalf("the encoder saw mergeQuery %v, the draft has it %v", got, mq)
		}
		b := []byte{draftEncodingMergeQuery}
		for i := range rows {
			b = appendRow(b, &rows[i])
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
		if mq {
			for _, v := range []byte{draftEncoding, draftEncodingExtended, draftEncodingQueryAfterFragment} {
				if _, err := decodeRows(append([]byte{v}, b[1:]...)); err == nil {
					t.Fatalf("encoding %d took the mergeQuery flag, which it does not know", v)
				}
			}
		}
	}
}

// TestDraftEncodingExceptHosts: drafts with exceptHosts rules round-trip in
// encoding 5, which the readers of encodings 2 to 4 refuse rather than
// read as a host; the encoder writes 5 only for such drafts.
func TestDraftEncodingExceptHosts(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	hosts := []string{"example.com", "*.example.com", "xn--bcher-kva.example", "a.b.example.org"}
	for range 200 {
		rows := randomRows(r, 1+r.IntN(30))
		except := false
		for i := range rows {
			switch r.IntN(3) {
			case 0:
				var hs []string
				for k := 1 + r.IntN(3); k > 0; k-- {
					hs = append(hs, hosts[r.IntN(len(hosts))])
				}
				rows[i].exceptHosts = []byte(JoinHosts(hs))
				except = true
			case 1:
				rows[i].host = []byte(hosts[r.IntN(len(hosts))])
			}
		}
		var enc draftEncoder
		for i := range rows {
			enc.add(appendRow(nil, &rows[i]), rowFlags(&rows[i]), len(rows[i].exceptHosts) > 0)
		}
		if enc.except != except {
			t.Fatalf("the encoder saw exceptHosts %v, the draft has them %v", enc.except, except)
		}
		b := []byte{draftEncodingExceptHosts}
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
		if except {
			for _, v := range []byte{draftEncodingExtended, draftEncodingQueryAfterFragment, draftEncodingMergeQuery} {
				if _, err := decodeRows(append([]byte{v}, b[1:]...)); err == nil {
					t.Fatalf("encoding %d took exceptHosts, which it does not know", v)
				}
			}
		}
	}
}
