package manage

import (
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"redirects/service"
)

// TestConcurrentGuessesReserveBeforeHashing: 50 wrong guesses for one
// account sent at once get at most the account's limit of 401s (each one
// hash); the rest are 429 with Retry-After, or 503 with Retry-After when
// the hashing queue is full, and never more hashes than the limit.
func TestConcurrentGuessesReserveBeforeHashing(t *testing.T) {
	limits := service.LoginLimits{PerAccount: 5, PerAddress: 20, Window: 10 * time.Minute}
	e := newEnv(t, newSQLite, false, func(c *Config) { c.LoginLimits = limits })
	u, pw := e.user("hana@example.com", false)
	var wg sync.WaitGroup
	codes := make([]*resp, 50)
	for i := range codes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			codes[i] = e.anon().do("POST", "/manage/v1/session", map[string]string{"email": u.Email, "password": "wrong password!"})
		}()
	}
	wg.Wait()
	count := map[int]int{}
	for _, r := range codes {
		count[r.status]++
		if r.status != 401 && r.header.Get("Retry-After") == "" {
			t.Errorf("%d without Retry-After: %s", r.status, r.body)
		}
	}
	if count[401] > limits.PerAccount || count[401]+count[429]+count[503] != 50 || count[429] < 50-limits.PerAccount-count[503] {
		t.Fatalf("50 concurrent wrong guesses answered %v: want at most %d 401s, the rest 429 (or 503)", count, limits.PerAccount)
	}
	// The right password is refused too while the account is locked.
	if count[401] == limits.PerAccount {
		e.anon().do("POST", "/manage/v1/session", map[string]string{"email": u.Email, "password": pw}).want(t, 429, codeLoginLimit)
	}
}

// TestSignInBodyIsSmall: a sign-in body over MaxSignInBytes is 413 before
// it is read (Content-Length) or once it passes the cap (chunked).
func TestSignInBodyIsSmall(t *testing.T) {
	e := newEnv(t, newSQLite, false, nil)
	big := `{"email":"a@example.com","password":"` + strings.Repeat("a", MaxSignInBytes) + `"}`
	e.anon().do("POST", "/manage/v1/session", big).want(t, 413, codeBodyTooLarge)
	req := e.anon().request("POST", "/manage/v1/session", big)
	req.Body, req.ContentLength = io.NopCloser(strings.NewReader(big)), -1
	e.anon().send(req).want(t, 413, codeBodyTooLarge)
}
