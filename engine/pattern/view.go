package pattern

// A View is a compiled rule as an export writes it: the exports render each
// rule into a server's own matching (package export), in the contract's
// order, from the same parse the engine matches with, so that a file and
// the lookup API cannot read a source differently.
type View struct {
	Index  int    // in the rules given to Compile
	Kind   Kind   //
	Host   string // the host key: "" for every host, "*.example.com" for its subdomains
	Path   string // exact, starts_with: the source's path part (the conditions cut off)
	Pieces []Piece
	Conds  []Cond
	Dest   []DestPart
}

// PieceKind is what one piece of a pattern source matches.
type PieceKind uint8

const (
	// PieceLiteral is decoded text, compared byte for byte.
	PieceLiteral PieceKind = PieceKind(tokLiteral)
	// PieceSegment is :name, one or more bytes within a segment.
	PieceSegment PieceKind = PieceKind(tokSegment)
	// PieceOptional is /:name?: nothing, or '/' and one segment.
	PieceOptional PieceKind = PieceKind(tokOptional)
	// PieceStar is /:name* or /*: nothing, or '/' and any text (non-empty
	// and ending before a '/' unless it ends the source).
	PieceStar PieceKind = PieceKind(tokStar)
	// PiecePlus is /:name+: '/' and non-empty text.
	PiecePlus PieceKind = PieceKind(tokPlus)
)

// Piece is one piece of a pattern source; the multi-segment and optional
// kinds include the '/' written before them.
type Piece struct {
	Kind       PieceKind
	Text       string // PieceLiteral: the decoded text
	Name       string // placeholders: the capture's name
	Constraint string // placeholders: the RE2 constraint as written, or ""
}

// CondOp is what a query condition asks of a parameter.
type CondOp uint8

const (
	CondEqual   CondOp = CondOp(condEqual)   // key=value
	CondCapture CondOp = CondOp(condCapture) // key=:name
	CondPresent CondOp = CondOp(condPresent) // key
	CondEmpty   CondOp = CondOp(condEmpty)   // key=
)

// Cond is one query condition, its key and value decoded (one
// percent-decoding, '+' a space).
type Cond struct {
	Key, Value string
	Op         CondOp
	Name       string // CondCapture: the capture's name
}

// DestPart is a piece of a destination: literal text, or a capture by name
// (a regex rule's numbered group by its number, "1" to "9").
type DestPart struct {
	Text    string
	Capture string
}

// Views returns the rules of the set in the contract's order
// (docs/contract.md#precedence): the first of them that matches a request
// is the one Lookup answers with.
func (s *Set) Views() []View {
	out := make([]View, len(s.rules))
	for rank := range s.rules {
		c := &s.rules[rank]
		v := View{Index: c.index, Kind: c.kind, Host: c.host, Path: c.path}
		for _, t := range c.toks {
			v.Pieces = append(v.Pieces, Piece{Kind: PieceKind(t.kind), Text: t.lit, Name: t.name, Constraint: t.constraint})
		}
		for _, q := range c.conds {
			v.Conds = append(v.Conds, Cond{Key: q.key, Value: q.value, Op: CondOp(q.op), Name: q.name})
		}
		for _, d := range c.dest {
			if d.slot < 0 {
				v.Dest = append(v.Dest, DestPart{Text: d.lit})
			} else {
				v.Dest = append(v.Dest, DestPart{Capture: c.names[d.slot]})
			}
		}
		out[rank] = v
	}
	return out
}
