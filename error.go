// Package redirects holds the domain of the redirect service: organizations,
// projects, draft rules, API keys and deployments, the errors they raise, the
// compiled rule engine, and the interfaces that storage adapters implement.
// It imports no database driver and no HTTP code.
package redirects

import (
	"errors"
	"fmt"
)

// Error codes of the domain. Adapters map them to exit codes, HTTP statuses
// and the spec's error codes in one place each.
const (
	ECONFLICT    = "conflict"    // the action conflicts with existing state
	EINTERNAL    = "internal"    // an unexpected failure
	EINVALID     = "invalid"     // the input is not acceptable
	ENOTFOUND    = "not_found"   // the thing does not exist
	EREVISION    = "revision"    // the thing changed since the revision the caller read
	EUNAVAILABLE = "unavailable" // a backing service cannot be reached
)

// Error codes of access control: Authorize and logins. A principal that may
// not know of a thing gets ENOTFOUND, not EFORBIDDEN (see Authorize).
const (
	EFORBIDDEN    = "forbidden"    // the actor may see the thing but not do this to it
	EUNAUTHORIZED = "unauthorized" // no valid credentials: unknown account, wrong password, bad token
)

// Error is a domain error: a code for machines and a message for people.
type Error struct {
	Code    string
	Message string
}

// Error returns the message.
func (e *Error) Error() string { return e.Message }

// Errorf returns an *Error with the given code and a formatted message.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// ErrorCode returns the code of the first *Error in err's chain, EINTERNAL for
// any other non-nil error, and "" for nil.
func ErrorCode(err error) string {
	var e *Error
	if err == nil {
		return ""
	} else if errors.As(err, &e) {
		return e.Code
	}
	return EINTERNAL
}

// ErrorMessage returns the message of the first *Error in err's chain, or a
// generic message for any other error, so internals never leak to clients.
func ErrorMessage(err error) string {
	var e *Error
	if err == nil {
		return ""
	} else if errors.As(err, &e) {
		return e.Message
	}
	return "Internal error."
}
