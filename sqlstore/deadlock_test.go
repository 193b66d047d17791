package sqlstore

import (
	"context"
	"errors"
	"fmt"
	"testing"
)

// stateError is a driver error with a SQLSTATE, as pgx's are.
type stateError string

func (e stateError) Error() string    { return "ERROR: (SQLSTATE " + string(e) + ")" }
func (e stateError) SQLState() string { return string(e) }

// TestRetryDeadlock: a try that fails as deadlocked (40P01, wrapped as
// DB.wrap does) is run again, three times in all; any other error, or
// success, ends it at once.
func TestRetryDeadlock(t *testing.T) {
	deadlock := fmt.Errorf("postgres: delete project: %w", stateError("40P01"))
	for _, c := range []struct {
		name  string
		errs  []error
		tries int
		fails bool
	}{
		{"success", []error{nil}, 1, false},
		{"one deadlock", []error{deadlock, nil}, 2, false},
		{"two deadlocks", []error{deadlock, deadlock, nil}, 3, false},
		{"always deadlocked", []error{deadlock, deadlock, deadlock, nil}, 3, true},
		{"other SQLSTATE", []error{stateError("23505"), nil}, 1, true},
		{"plain error", []error{errors.New("gone"), nil}, 1, true},
	} {
		tries := 0
		err := retryDeadlock(context.Background(), func() error {
			tries++
			return c.errs[tries-1]
		})
		if tries != c.tries || (err != nil) != c.fails {
			t.Errorf("%s: %d tries, error %v; want %d tries, failing %v", c.name, tries, err, c.tries, c.fails)
		}
	}
}
