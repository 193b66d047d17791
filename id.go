package redirects

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

const base62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// randomBase62 returns n characters drawn uniformly from base62 with
// crypto/rand.
func randomBase62(n int) string {
	out := make([]byte, n)
	buf := make([]byte, n*2)
	for i := 0; i < n; {
		if _, err := rand.Read(buf); err != nil {
			panic(err) // crypto/rand never fails on supported platforms
		}
		for _, b := range buf {
			if b >= 248 { // 248 = 4*62: reject to keep the draw uniform
				continue
			}
			out[i] = base62[b%62]
			i++
			if i == n {
				break
			}
		}
	}
	return string(out)
}

// NewOrgID returns a fresh, unguessable organization ID.
func NewOrgID() string { return "org_" + randomBase62(16) }

// NewProjectID returns a fresh, unguessable project ID.
func NewProjectID() string { return "prj_" + randomBase62(16) }

// NewKeyID returns a fresh API key ID (not secret: it names the key).
func NewKeyID() string { return "key_" + randomBase62(16) }

// Key prefixes of docs/contract.md#resources.
const (
	LiveKeyPrefix = "redir_live_"
	TestKeyPrefix = "redir_test_"
	keySuffixLen  = 32
)

// NewSecret returns a fresh full API key: the prefix for the mode and 32
// base62 characters.
func NewSecret(test bool) string {
	if test {
		return TestKeyPrefix + randomBase62(keySuffixLen)
	}
	return LiveKeyPrefix + randomBase62(keySuffixLen)
}

// WellFormedKey reports whether s has the shape of an API key.
func WellFormedKey(s string) bool {
	var rest string
	switch {
	case strings.HasPrefix(s, LiveKeyPrefix):
		rest = s[len(LiveKeyPrefix):]
	case strings.HasPrefix(s, TestKeyPrefix):
		rest = s[len(TestKeyPrefix):]
	default:
		return false
	}
	if len(rest) != keySuffixLen {
		return false
	}
	for i := 0; i < len(rest); i++ {
		c := rest[i]
		if !('0' <= c && c <= '9' || 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z') {
			return false
		}
	}
	return true
}

// HashKey returns the hex SHA-256 of a full key: the only form a key is
// stored in.
func HashKey(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(sum[:])
}
