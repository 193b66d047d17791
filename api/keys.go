package api

import (
	"time"

	"redirects"
)

// Key is an edge API key as the management API and the command line's
// key list --json show one: never the key's hash. Secret is set once, in
// the answer to its creation.
type Key struct {
	ID        string  `json:"id"`
	Name      string  `json:"name"`
	Mode      string  `json:"mode"`
	Last4     string  `json:"last4"`
	CreatedAt string  `json:"createdAt"`
	RevokedAt *string `json:"revokedAt"`
	Secret    string  `json:"secret,omitempty"`
}

// KeyOf is k as the API shows it, without its secret.
func KeyOf(k *redirects.Key) Key {
	return Key{ID: k.ID, Name: k.Name, Mode: k.Mode(), Last4: k.Last4, CreatedAt: accessTime(k.CreatedAt), RevokedAt: accessTimePtr(k.RevokedAt)}
}

// Domain is the key j shows, of project projectID (the API's key does not
// name its project).
func (j *Key) Domain(projectID string) *redirects.Key {
	return &redirects.Key{ID: j.ID, ProjectID: projectID, Name: j.Name, Test: j.Mode == "test", Last4: j.Last4,
		CreatedAt: parseAccessTime(j.CreatedAt), RevokedAt: parseAccessTimePtr(j.RevokedAt)}
}

// ListedKey is a key of the API's key list: Key and LastUsedAt, the last
// UTC day ("2026-03-04") of the current or previous month with a live
// lookup counted for the key, null (never left out) for none.
type ListedKey struct {
	Key
	LastUsedAt *string `json:"lastUsedAt"`
}

// KeyList answers GET /projects/{project}/keys.
type KeyList struct {
	Keys []ListedKey `json:"keys"`
}

// KeyListOf is l as the API shows it.
func KeyListOf(l *redirects.KeyList) KeyList {
	out := KeyList{Keys: make([]ListedKey, 0, len(l.Keys))}
	for _, k := range l.Keys {
		j := ListedKey{Key: KeyOf(k)}
		if day := l.LastUsed[k.ID]; day != "" {
			j.LastUsedAt = &day
		}
		out.Keys = append(out.Keys, j)
	}
	return out
}

// Domain is the key list j shows, of project projectID.
func (j *KeyList) Domain(projectID string) *redirects.KeyList {
	l := &redirects.KeyList{Keys: make([]*redirects.Key, len(j.Keys)), LastUsed: map[string]string{}}
	for i := range j.Keys {
		l.Keys[i] = j.Keys[i].Domain(projectID)
		if d := j.Keys[i].LastUsedAt; d != nil {
			l.LastUsed[j.Keys[i].ID] = *d
		}
	}
	return l
}

// KeyCreateRequest is the body of POST /projects/{project}/keys.
type KeyCreateRequest struct {
	Name string `json:"name"`
	Test bool   `json:"test"`
}

// KeyRevokeRequest is the body of POST /projects/{project}/revoke-key:
// the key's ID or its full secret, which does not belong in a URL.
type KeyRevokeRequest struct {
	Key *string `json:"key"`
}

// accessTime is the API's time format for keys, tokens and sessions:
// RFC 3339 in UTC, to the second.
func accessTime(t time.Time) string { return t.UTC().Format(time.RFC3339) }

func accessTimePtr(t *time.Time) *string {
	if t == nil {
		return nil
	}
	s := accessTime(*t)
	return &s
}

// parseAccessTime reads an accessTime; what is not one is the zero time.
func parseAccessTime(s string) time.Time {
	t, _ := time.Parse(time.RFC3339Nano, s)
	return t
}

func parseAccessTimePtr(s *string) *time.Time {
	if s == nil {
		return nil
	}
	t := parseAccessTime(*s)
	return &t
}
