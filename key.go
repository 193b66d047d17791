package redirects

import "time"

// Key is an API key of a project. The full key is shown once, at creation;
// the store keeps only its SHA-256 hash and last four characters.
type Key struct {
	ID        string
	ProjectID string
	Name      string
	Test      bool
	Hash      string
	Last4     string
	CreatedAt time.Time
	RevokedAt *time.Time
}

// Mode returns "live" or "test".
func (k *Key) Mode() string {
	if k.Test {
		return "test"
	}
	return "live"
}

// NewKey returns a key for a project and its full secret, which the caller
// shows once and then forgets.
func NewKey(projectID, name string, test bool, now time.Time) (*Key, string) {
	secret := NewSecret(test)
	return &Key{
		ID:        NewKeyID(),
		ProjectID: projectID,
		Name:      name,
		Test:      test,
		Hash:      HashKey(secret),
		Last4:     secret[len(secret)-4:],
		CreatedAt: now,
	}, secret
}

// Validate checks a key's label before it is stored.
func (k *Key) Validate() error {
	if len(k.Name) > 200 {
		return Errorf(EINVALID, "key name is %d bytes long, more than the 200 allowed", len(k.Name))
	}
	return checkName("key name", k.Name)
}
