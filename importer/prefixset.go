package importer

import (
	"math/bits"
	"math/rand/v2"
	"slices"
)

// prefixSet answers "which recorded prefixes does s start with" in time
// linear in s, however many and however long the prefixes: a lookup of
// s[:n] in a map of strings costs n to hash, and trying every recorded
// length n made a file of long sources and many prefix lengths quadratic.
// Each prefix is known by a pair of polynomial hashes modulo 2^61-1 with
// bases drawn at random per set, computed over s once, byte by byte; two
// different strings share both with a probability below 2^-100 per pair,
// which no file can arrange without knowing the bases.
type prefixSet struct {
	lines map[[2]uint64]int // the hashes of a prefix -> the line that recorded it first
	lens  []int             // the distinct lengths of the prefixes, sorted
	b     [2]uint64
}

const mersenne61 = 1<<61 - 1

func newPrefixSet() *prefixSet {
	return &prefixSet{lines: map[[2]uint64]int{}, b: [2]uint64{256 + rand.Uint64N(mersenne61-512), 256 + rand.Uint64N(mersenne61-512)}}
}

// mulMod returns a*b mod 2^61-1, for a, b below it.
func mulMod(a, b uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	x := (hi<<3 | lo>>61) + lo&mersenne61
	if x >= mersenne61 {
		x -= mersenne61
	}
	return x
}

func (p *prefixSet) step(h [2]uint64, c byte) [2]uint64 {
	for i := range h {
		h[i] = mulMod(h[i], p.b[i]) + uint64(c) + 1
		if h[i] >= mersenne61 {
			h[i] -= mersenne61
		}
	}
	return h
}

func (p *prefixSet) hash(s string) [2]uint64 {
	var h [2]uint64
	for i := 0; i < len(s); i++ {
		h = p.step(h, s[i])
	}
	return h
}

// add records prefix at line, unless it is recorded already.
func (p *prefixSet) add(prefix string, line int) {
	h := p.hash(prefix)
	if _, ok := p.lines[h]; ok {
		return
	}
	p.lines[h] = line
	if j, found := slices.BinarySearch(p.lens, len(prefix)); !found {
		p.lens = slices.Insert(p.lens, j, len(prefix))
	}
}

// each calls f with the line of every recorded prefix of s, shortest
// first, until f returns false.
func (p *prefixSet) each(s string, f func(line int) bool) {
	var h [2]uint64
	done := 0
	for _, n := range p.lens {
		if n > len(s) {
			return
		}
		for ; done < n; done++ {
			h = p.step(h, s[done])
		}
		if l, ok := p.lines[h]; ok && !f(l) {
			return
		}
	}
}
