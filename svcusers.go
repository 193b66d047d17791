package redirects

import "context"

// UserService is the service layer's users (see Services). Each method
// authorizes the caller in the context, validates, and changes or reads
// the store once. Users are the operators' (ActionManageUsers): the
// management API serves none of it, so it is in LocalServices only.
//
// A user is named by their user ID ("usr_...") or their email address.
type UserService interface {
	// Users returns every user, oldest first. Errors: EFORBIDDEN.
	Users(ctx context.Context) ([]*User, error)
	// CreateUser creates user u, whose email address is normalized and
	// whose password is hashed (User.Validate), setting its ID and
	// CreatedAt. Errors: EFORBIDDEN, EINVALID, ECONFLICT (the email
	// address is taken).
	CreateUser(ctx context.Context, u *User) error
	// DisableUser disables a user: their sessions end and the tokens
	// they created are revoked. It returns the user, and whether they
	// were disabled already (then nothing changed). Errors: ENOTFOUND,
	// EFORBIDDEN, EINVALID.
	DisableUser(ctx context.Context, user string) (*User, bool, error)
	// SetUserPassword replaces a user's password hash; with
	// mustChange the user must choose another at their next sign-in. It
	// returns the user. Errors: ENOTFOUND, EFORBIDDEN, EINVALID.
	SetUserPassword(ctx context.Context, user, passwordHash string, mustChange bool) (*User, error)
}
