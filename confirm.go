package redirects

import "errors"

// ConfirmName guards a destructive action on a named thing: the caller must
// type the thing's name back. It returns nil when typed is name, else an
// EINVALID error that says nothing was done, with ErrNotConfirmed in its
// chain. what is "project" or "organization"; id names the thing in the
// message.
func ConfirmName(what, id, name, typed string) error {
	if typed == name {
		return nil
	}
	return Mark(Errorf(EINVALID, "the name typed back, %s, is not the name of %s %s (%s): nothing was deleted", quoteShort(typed), what, id, quoteShort(name)), ErrNotConfirmed)
}

// ErrNotConfirmed marks the error of ConfirmName, so that a front door can
// tell a name typed back wrong from other invalid input.
var ErrNotConfirmed = errors.New("not confirmed")

// markedError is a domain error with a mark in its chain: ErrorCode and
// ErrorMessage read the domain error, errors.Is finds the mark.
type markedError struct {
	err  *Error
	mark error
}

func (e *markedError) Error() string   { return e.err.Error() }
func (e *markedError) Unwrap() []error { return []error{e.err, e.mark} }

// Mark returns err with mark in its chain (nil for nil). A door tests for
// the mark with errors.Is; everyone else sees err.
func Mark(err error, mark error) error {
	if err == nil {
		return nil
	}
	var e *Error
	if !errors.As(err, &e) {
		return err
	}
	return &markedError{err: e, mark: mark}
}
