package engine

import (
	"redirects"

	"encoding/binary"
	"time"
)

// The first byte of EncodeRules' output is the format's version, so the
// format can change without misreading stored deployments. Version 2 adds a
// byte of option flags per rule; version 3 adds the rule's host after the
// flags, and match types beyond exact and starts_with. EncodeRules writes
// the lowest version that holds its rules: version 1 when no rule has an
// option flag, so the snapshots of rules without options are stored byte
// for byte as before options existed, and version 3 only when some rule is
// Extended (a pattern or regex rule, a host, query conditions), so that a
// node older than pattern rules refuses such a version instead of answering
// it wrongly (it reads versions 1 and 2 only, and calls any other
// corrupt). Version 4 is version 3's layout with one more flag,
// queryAfterFragment, written only when some rule has it, so that a node
// older than the option refuses the version instead of answering its
// rules with the query before the fragment. Version 5 is version 4's
// layout with one more flag, mergeQuery, written only when some rule has
// it, so that a node older than the option refuses the version instead of
// answering its rules with the request's query appended whole. Version 6
// is version 5's layout with, after each rule's host, its exceptHosts: a
// count and the host keys, written only when some rule has exceptHosts,
// so that a node older than the field refuses the version instead of
// answering the excepted hosts.
const (
	ruleEncodingVersion            = 1
	ruleEncodingOptions            = 2
	ruleEncodingPatterns           = 3
	ruleEncodingQueryAfterFragment = 4
	ruleEncodingMergeQuery         = 5
	ruleEncodingExceptHosts        = 6
	ruleEncodingNewest             = ruleEncodingExceptHosts
	encPreservePath                = 1
	encPreserveQuery               = 2
	encQueryAfterFragment          = 4
	encMergeQuery                  = 8
	ruleEncodingFlagMask           = encPreservePath | encPreserveQuery
)

// EncodeRules returns a compact binary form of rules, for stores to keep a
// deployment's snapshot in one value. DecodeRules reverses it.
func EncodeRules(rules []redirects.Rule) []byte {
	size := 1 + binary.MaxVarintLen64
	for i := range rules {
		size += len(rules[i].Source) + len(rules[i].Destination) + len(rules[i].Host) + 6*binary.MaxVarintLen64 + 3
		for _, h := range rules[i].ExceptHosts {
			size += len(h) + binary.MaxVarintLen64
		}
	}
	version := byte(ruleEncodingVersion)
	for i := range rules {
		if len(rules[i].ExceptHosts) > 0 {
			version = ruleEncodingExceptHosts
			break
		}
		if rules[i].MergeQuery {
			version = max(version, ruleEncodingMergeQuery)
		}
		if rules[i].QueryAfterFragment {
			version = max(version, ruleEncodingQueryAfterFragment)
		}
		if rules[i].Extended() {
			version = max(version, ruleEncodingPatterns)
		}
		if rules[i].PreservePath || rules[i].PreserveQuery {
			version = max(version, ruleEncodingOptions)
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
		if version >= ruleEncodingOptions {
			var flags byte
			if r.PreservePath {
				flags |= encPreservePath
			}
			if r.PreserveQuery {
				flags |= encPreserveQuery
			}
			if r.QueryAfterFragment {
				flags |= encQueryAfterFragment
			}
			if r.MergeQuery {
				flags |= encMergeQuery
			}
			b = append(b, flags)
		}
		if version >= ruleEncodingPatterns {
			b = binary.AppendUvarint(b, uint64(len(r.Host)))
			b = append(b, r.Host...)
		}
		if version >= ruleEncodingExceptHosts {
			b = binary.AppendUvarint(b, uint64(len(r.ExceptHosts)))
			for _, h := range r.ExceptHosts {
				b = binary.AppendUvarint(b, uint64(len(h)))
				b = append(b, h...)
			}
		}
	}
	return b
}

// DecodeRules parses the output of EncodeRules. Every rule gets projectID.
// A version this node does not know was written by a newer redirects: the
// error says so, and that this node must be upgraded to read it.
func DecodeRules(projectID string, b []byte) ([]redirects.Rule, error) {
	bad := redirects.Errorf(redirects.EINTERNAL, "stored rule snapshot of project %s is corrupt", projectID)
	if len(b) == 0 {
		return nil, bad
	}
	version := b[0]
	if version > ruleEncodingNewest {
		return nil, redirects.Errorf(redirects.EINTERNAL,
			"stored rule snapshot of project %s has encoding version %d, which a newer redirects wrote; this node reads versions 1 to %d: upgrade it to read this version",
			projectID, version, ruleEncodingNewest)
	}
	if version < ruleEncodingVersion {
		return nil, bad
	}
	d := decoder{b: b[1:]}
	n := d.uvarint()
	if d.err || n > uint64(len(b)) {
		return nil, bad
	}
	mask := byte(ruleEncodingFlagMask)
	if version >= ruleEncodingQueryAfterFragment {
		mask |= encQueryAfterFragment
	}
	if version >= ruleEncodingMergeQuery {
		mask |= encMergeQuery
	}
	maxType := redirects.StartsWith
	if version >= ruleEncodingPatterns {
		maxType = redirects.Regex
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
		if version >= ruleEncodingOptions {
			flags := d.byte()
			if flags&^mask != 0 {
				return nil, bad
			}
			r.PreservePath, r.PreserveQuery = flags&encPreservePath != 0, flags&encPreserveQuery != 0
			r.QueryAfterFragment = flags&encQueryAfterFragment != 0
			r.MergeQuery = flags&encMergeQuery != 0
		}
		if version >= ruleEncodingPatterns {
			r.Host = d.str()
		}
		if version >= ruleEncodingExceptHosts {
			k := d.uvarint()
			if k > redirects.MaxExceptHosts {
				return nil, bad
			}
			for range k {
				r.ExceptHosts = append(r.ExceptHosts, d.str())
			}
		}
		if d.err || r.MatchType > maxType {
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
