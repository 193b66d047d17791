package api

import "redirects"

// Token is a management token as the management API and the command
// line's token list --json show one: never the secret or its hash.
// CreatedBy is the creator's email address, null for a token with no
// creator. Secret is set once, in the answer to its creation.
type Token struct {
	ID         string  `json:"id"`
	Label      string  `json:"label"`
	Role       string  `json:"role"`
	Last4      string  `json:"last4"`
	CreatedBy  *string `json:"createdBy"`
	CreatedAt  string  `json:"createdAt"`
	ExpiresAt  *string `json:"expiresAt"`
	LastUsedAt *string `json:"lastUsedAt"`
	RevokedAt  *string `json:"revokedAt"`
	Secret     string  `json:"secret,omitempty"`
}

// TokenOf is t as the API shows it, created by the user named creator
// ("" for none), without its secret.
func TokenOf(t *redirects.ManagementToken, creator string) Token {
	j := Token{ID: t.ID, Label: t.Label, Role: string(t.Role), Last4: t.Last4, CreatedAt: accessTime(t.CreatedAt),
		ExpiresAt: accessTimePtr(t.ExpiresAt), LastUsedAt: accessTimePtr(t.LastUsedAt), RevokedAt: accessTimePtr(t.RevokedAt)}
	if creator != "" {
		j.CreatedBy = &creator
	}
	return j
}

// Domain is the token j shows, of organization orgID. The API names its
// creator by email only: CreatedBy is empty, Creator names them.
func (j *Token) Domain(orgID string) *redirects.ListedToken {
	t := &redirects.ListedToken{ManagementToken: &redirects.ManagementToken{ID: j.ID, OrgID: orgID, Role: redirects.Role(j.Role),
		Label: j.Label, Last4: j.Last4, CreatedAt: parseAccessTime(j.CreatedAt), ExpiresAt: parseAccessTimePtr(j.ExpiresAt),
		LastUsedAt: parseAccessTimePtr(j.LastUsedAt), RevokedAt: parseAccessTimePtr(j.RevokedAt)}}
	if j.CreatedBy != nil {
		t.Creator = *j.CreatedBy
	}
	return t
}

// TokenList answers GET /orgs/{org}/tokens.
type TokenList struct {
	Tokens []Token `json:"tokens"`
}

// TokensOf is ts as the API's lists show them.
func TokensOf(ts []*redirects.ListedToken) []Token {
	out := make([]Token, 0, len(ts))
	for _, t := range ts {
		out = append(out, TokenOf(t.ManagementToken, t.Creator))
	}
	return out
}

// TokenCreateRequest is the body of POST /orgs/{org}/tokens.
type TokenCreateRequest struct {
	Role  *string `json:"role"`
	Label string  `json:"label"`
	// ExpiresIn is a duration ("720h") or days ("30d"); "" never expires.
	ExpiresIn string `json:"expiresIn"`
}
