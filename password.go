package redirects

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"fmt"
	"strings"
	"sync"
	"unicode/utf8"

	"golang.org/x/crypto/argon2"
)

// Password rules.
const (
	// MinPasswordLength is the fewest characters a password may have.
	MinPasswordLength = 12
	// MaxPasswordLength bounds the bytes hashed, so a huge "password" cannot
	// make a login cost more than any other.
	MaxPasswordLength = 1024
	// OneTimePasswordLength is the length of NewPassword's passwords: 24
	// base62 characters, about 143 bits.
	OneTimePasswordLength = 24
)

// Argon2id parameters: the first of OWASP's recommended settings (19 MiB,
// two passes, one lane), which costs a few tens of milliseconds on a server
// core. They are written into each hash, so they can be raised later
// without invalidating stored hashes.
const (
	argonMemory  = 19 * 1024 // KiB
	argonTime    = 2
	argonThreads = 1
	argonSaltLen = 16
	argonKeyLen  = 32
)

// CheckPasswordRules returns an EINVALID error if pw may not be a password.
// It never repeats the password.
func CheckPasswordRules(pw string) error {
	switch n := utf8.RuneCountInString(pw); {
	case n < MinPasswordLength:
		return Errorf(EINVALID, "password has %d characters, fewer than the %d required", n, MinPasswordLength)
	case len(pw) > MaxPasswordLength:
		return Errorf(EINVALID, "password is %d bytes long, more than the %d allowed", len(pw), MaxPasswordLength)
	case !utf8.ValidString(pw):
		return Errorf(EINVALID, "password is not valid UTF-8")
	}
	return nil
}

// NewPassword returns a fresh one-time password from crypto/rand.
func NewPassword() string { return randomBase62(OneTimePasswordLength) }

// HashPassword checks pw against the password rules and returns its
// argon2id hash with a fresh salt, in the PHC string format:
// $argon2id$v=19$m=19456,t=2,p=1$SALT$HASH (unpadded standard base64).
func HashPassword(pw string) (string, error) {
	if err := CheckPasswordRules(pw); err != nil {
		return "", err
	}
	salt := make([]byte, argonSaltLen)
	if _, err := rand.Read(salt); err != nil {
		return "", fmt.Errorf("hash password: %w", err)
	}
	key := argon2.IDKey([]byte(pw), salt, argonTime, argonMemory, argonThreads, argonKeyLen)
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s", argon2.Version, argonMemory, argonTime, argonThreads,
		base64.RawStdEncoding.EncodeToString(salt), base64.RawStdEncoding.EncodeToString(key)), nil
}

// CheckPasswordHash returns an EINVALID error unless h has the shape of a
// HashPassword hash, so a store never keeps a password in clear by mistake.
func CheckPasswordHash(h string) error {
	if !strings.HasPrefix(h, "$argon2id$") || strings.Count(h, "$") != 5 {
		return Errorf(EINVALID, "the password hash is not an argon2id hash: make it with HashPassword")
	}
	return nil
}

// VerifyPassword reports whether pw matches a hash made by HashPassword,
// with the parameters written in the hash. The final comparison takes the
// same time wherever the first difference is. A malformed hash matches
// nothing.
func VerifyPassword(encoded, pw string) bool {
	if len(pw) > MaxPasswordLength {
		return false
	}
	parts := strings.Split(encoded, "$")
	// "", "argon2id", "v=19", "m=...,t=...,p=...", salt, hash
	if len(parts) != 6 || parts[0] != "" || parts[1] != "argon2id" {
		return false
	}
	var version int
	if _, err := fmt.Sscanf(parts[2], "v=%d", &version); err != nil || version != argon2.Version {
		return false
	}
	var (
		memory, passes uint32
		threads        uint8
	)
	if _, err := fmt.Sscanf(parts[3], "m=%d,t=%d,p=%d", &memory, &passes, &threads); err != nil {
		return false
	}
	// Bounds keep a tampered hash from asking for gigabytes or hours.
	if memory < 8 || memory > 1<<20 || passes < 1 || passes > 16 || threads < 1 {
		return false
	}
	salt, err := base64.RawStdEncoding.DecodeString(parts[4])
	if err != nil || len(salt) < 8 {
		return false
	}
	want, err := base64.RawStdEncoding.DecodeString(parts[5])
	if err != nil || len(want) < 16 || len(want) > 64 {
		return false
	}
	got := argon2.IDKey([]byte(pw), salt, passes, memory, threads, uint32(len(want)))
	return subtle.ConstantTimeCompare(got, want) == 1
}

// dummyHash is a hash no password of a real user has, verified against
// when a login names no user, so an unknown address costs the same time as
// a wrong password and the two cannot be told apart.
var dummyHash = sync.OnceValue(func() string {
	h, err := HashPassword(NewPassword())
	if err != nil {
		panic(err) // crypto/rand never fails on supported platforms
	}
	return h
})

// CheckLogin checks a login: u is the user found by the address given (nil
// for none) and pw the password given. It does the same work in every case
// and returns one EUNAUTHORIZED error for an unknown address, a disabled
// user and a wrong password, so an answer tells nothing about which
// addresses have accounts.
func CheckLogin(u *User, pw string) error {
	hash := dummyHash()
	if u != nil {
		hash = u.PasswordHash
	}
	ok := VerifyPassword(hash, pw)
	if u == nil || u.Disabled() || !ok {
		return Errorf(EUNAUTHORIZED, "the email address or password is wrong")
	}
	return nil
}
