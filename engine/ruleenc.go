package engine

import (
	"redirects"

	"encoding/binary"
	"time"
)

// The first byte of EncodeRules' output is the format's version, so the
// format can change without misreading stored deployments. Version 2 adds a
// byte of option flags per rule; EncodeRules writes version 1 when no rule
// has an option flag, so the snapshots of rules without options are stored
// byte for byte as before options existed.
const (
	ruleEncodingVersion  = 1
	ruleEncodingOptions  = 2
	encPreservePath      = 1
	encPreserveQuery     = 2
	ruleEncodingFlagMask = encPreservePath | encPreserveQuery
)

// EncodeRules returns a compact binary form of rules, for stores to keep a
// deployment's snapshot in one value. DecodeRules reverses it.
func EncodeRules(rules []redirects.Rule) []byte {
	size := 1 + binary.MaxVarintLen64
	for i := range rules {
		size += len(rules[i].Source) + len(rules[i].Destination) + 5*binary.MaxVarintLen64 + 3
	}
	version := byte(ruleEncodingVersion)
	for i := range rules {
		if rules[i].PreservePath || rules[i].PreserveQuery {
			version = ruleEncodingOptions
			break
		}
	}
	b := make([]byte, 0, size)
	b = append(b, version)
	b = binary.AppendUvarint(b, uint64(len(rules)))
	for i := range rules {
		r := &rules[i]
		b = binary.AppendVarint(b, r.ID)
		b = binary.AppendUvarint(b, uint64(len(r.Source)))
		b = append(b, r.Source...)
		b = binary.AppendUvarint(b, uint64(len(r.Destination)))
		b = append(b, r.Destination...)
		b = binary.AppendUvarint(b, uint64(r.StatusCode))
		b = append(b, byte(r.MatchType))
		b = binary.AppendVarint(b, int64(r.Priority))
		b = binary.AppendVarint(b, r.CreatedAt.UnixNano())
		if version == ruleEncodingOptions {
			var flags byte
			if r.PreservePath {
				flags |= encPreservePath
			}
			if r.PreserveQuery {
				flags |= encPreserveQuery
			}
			b = append(b, flags)
		}
	}
	return b
}

// DecodeRules parses the output of EncodeRules. Every rule gets projectID.
func DecodeRules(projectID string, b []byte) ([]redirects.Rule, error) {
	bad := redirects.Errorf(redirects.EINTERNAL, "stored rule snapshot of project %s is corrupt", projectID)
	if len(b) == 0 || (b[0] != ruleEncodingVersion && b[0] != ruleEncodingOptions) {
		return nil, bad
	}
	options := b[0] == ruleEncodingOptions
	d := decoder{b: b[1:]}
	n := d.uvarint()
	if d.err || n > uint64(len(b)) {
		return nil, bad
	}
	rules := make([]redirects.Rule, n)
	for i := range rules {
		r := &rules[i]
		r.ProjectID = projectID
		r.ID = d.varint()
		r.Source = d.str()
		r.Destination = d.str()
		r.StatusCode = int(d.uvarint())
		r.MatchType = redirects.MatchType(d.byte())
		r.Priority = int(d.varint())
		r.CreatedAt = time.Unix(0, d.varint()).UTC()
		if options {
			flags := d.byte()
			if flags&^ruleEncodingFlagMask != 0 {
				return nil, bad
			}
			r.PreservePath, r.PreserveQuery = flags&encPreservePath != 0, flags&encPreserveQuery != 0
		}
		if d.err {
			return nil, bad
		}
	}
	if len(d.b) != 0 {
		return nil, bad
	}
	return rules, nil
}

type decoder struct {
	b   []byte
	err bool
}

func (d *decoder) uvarint() uint64 {
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.err = true
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) varint() int64 {
	v, n := binary.Varint(d.b)
	if n <= 0 {
		d.err = true
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) byte() byte {
	if len(d.b) == 0 {
		d.err = true
		return 0
	}
	c := d.b[0]
	d.b = d.b[1:]
	return c
}

func (d *decoder) str() string {
	n := d.uvarint()
	if d.err || n > uint64(len(d.b)) {
		d.err = true
		return ""
	}
	s := string(d.b[:n])
	d.b = d.b[n:]
	return s
}
