package remote

import (
	"cmp"
	"context"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"redirects"
)

// The account side of the management API an organization's member reaches:
// its members, its management tokens and its audit log. Users are the
// operators' and have no route: the command line manages them with --db.

type memberJSON struct {
	UserID    string `json:"userId"`
	Email     string `json:"email"`
	Role      string `json:"role"`
	CreatedAt string `json:"createdAt"`
}

func (j *memberJSON) membership(orgID string) *redirects.Membership {
	return &redirects.Membership{OrgID: orgID, UserID: j.UserID, Email: j.Email, Role: redirects.Role(j.Role), CreatedAt: parseTime(j.CreatedAt)}
}

// FindMembers returns the members of an organization, oldest first.
func (s *Store) FindMembers(ctx context.Context, orgID string) ([]*redirects.Membership, error) {
	var j struct{ Members []memberJSON }
	if err := s.c.do(ctx, "GET", "/orgs/"+pathEscape(orgID)+"/members", nil, nil, "", &j); err != nil {
		return nil, err
	}
	out := make([]*redirects.Membership, len(j.Members))
	for i := range j.Members {
		out[i] = j.Members[i].membership(orgID)
	}
	return out, nil
}

// AddMember gives the user with the email address, or the user ID
// ("usr_..."), a role in the organization (or changes a member's role)
// and returns the membership.
func (s *Store) AddMember(ctx context.Context, orgID, user string, role redirects.Role) (*redirects.Membership, error) {
	body := map[string]string{"email": user, "role": string(role)}
	if strings.HasPrefix(user, "usr_") {
		body = map[string]string{"userId": user, "role": string(role)}
	}
	var j memberJSON
	err := s.c.do(ctx, "POST", "/orgs/"+pathEscape(orgID)+"/members", nil, body, "", &j)
	if redirects.ErrorCode(err) == redirects.ENOTFOUND && strings.HasPrefix(redirects.ErrorMessage(err), "no user has the ID") {
		return nil, redirects.Errorf(redirects.ENOTFOUND, "user %q not found", user) // the store's words, as with --db
	}
	if redirects.ErrorCode(err) == redirects.ENOTFOUND && strings.HasPrefix(redirects.ErrorMessage(err), "no user has the email address") {
		// The store's words, as with --db.
		e, nerr := redirects.NormalizeEmail(user)
		if nerr != nil {
			return nil, nerr
		}
		return nil, redirects.Errorf(redirects.ENOTFOUND, "user %q not found", e)
	}
	if err != nil {
		return nil, err
	}
	return j.membership(orgID), nil
}

// findMember finds a member of the organization by user ID or email
// address. A user who is no member is not found: with the store's words
// for one that exists (the API tells no more, and the user may not).
func (s *Store) findMember(ctx context.Context, orgID, ref string) (*redirects.Membership, error) {
	ms, err := s.FindMembers(ctx, orgID)
	if err != nil {
		return nil, err
	}
	email, _ := redirects.NormalizeEmail(ref)
	for _, m := range ms {
		if m.UserID == ref || email != "" && strings.EqualFold(m.Email, email) {
			return m, nil
		}
	}
	if strings.HasPrefix(ref, "usr_") {
		return nil, redirects.Errorf(redirects.ENOTFOUND, "user %q is no member of organization %q", ref, orgID)
	}
	if email == "" {
		_, err := redirects.NormalizeEmail(ref)
		return nil, err
	}
	return nil, redirects.Errorf(redirects.ENOTFOUND, "user %q is no member of organization %q", email, orgID)
}

// RemoveMember removes a member, found by user ID or email address, from
// the organization, and returns who it was; the API revokes the tokens
// they created in it.
func (s *Store) RemoveMember(ctx context.Context, orgID, user string) (*redirects.Membership, error) {
	m, err := s.findMember(ctx, orgID, user)
	if err != nil {
		return nil, err
	}
	if err := s.c.do(ctx, "DELETE", "/orgs/"+pathEscape(orgID)+"/members/"+pathEscape(m.UserID), nil, nil, "", nil); err != nil {
		return nil, err
	}
	return m, nil
}

type tokenJSON struct {
	ID         string  `json:"id"`
	Label      string  `json:"label"`
	Role       string  `json:"role"`
	Last4      string  `json:"last4"`
	CreatedBy  *string `json:"createdBy"`
	CreatedAt  string  `json:"createdAt"`
	ExpiresAt  *string `json:"expiresAt"`
	LastUsedAt *string `json:"lastUsedAt"`
	RevokedAt  *string `json:"revokedAt"`
	Secret     string  `json:"secret"`
}

func timePtr(s *string) *time.Time {
	if s == nil {
		return nil
	}
	t := parseTime(*s)
	return &t
}

func (j *tokenJSON) token(orgID string) *redirects.ManagementToken {
	t := &redirects.ManagementToken{ID: j.ID, OrgID: orgID, Role: redirects.Role(j.Role), Label: j.Label, Last4: j.Last4,
		CreatedAt: parseTime(j.CreatedAt), ExpiresAt: timePtr(j.ExpiresAt), LastUsedAt: timePtr(j.LastUsedAt), RevokedAt: timePtr(j.RevokedAt)}
	if j.CreatedBy != nil {
		t.CreatedBy = *j.CreatedBy
	}
	return t
}

// FindTokens returns the organization's management tokens, oldest first.
// Through the API, a token's CreatedBy is its creator's email address
// rather than their user ID.
func (s *Store) FindTokens(ctx context.Context, orgID string) ([]*redirects.ManagementToken, error) {
	var j struct{ Tokens []tokenJSON }
	if err := s.c.do(ctx, "GET", "/orgs/"+pathEscape(orgID)+"/tokens", nil, nil, "", &j); err != nil {
		return nil, err
	}
	out := make([]*redirects.ManagementToken, len(j.Tokens))
	for i := range j.Tokens {
		out[i] = j.Tokens[i].token(orgID)
	}
	return out, nil
}

// RevokeToken revokes a token of the organization by ID and returns it as
// it was before; revoking a revoked token changes nothing. An unknown ID is
// not found, with the store's words.
func (s *Store) RevokeToken(ctx context.Context, orgID, id string) (*redirects.ManagementToken, error) {
	ts, err := s.FindTokens(ctx, orgID)
	if err != nil {
		return nil, err
	}
	for _, t := range ts {
		if t.ID != id {
			continue
		}
		if t.RevokedAt == nil {
			if err := s.c.do(ctx, "DELETE", "/orgs/"+pathEscape(orgID)+"/tokens/"+pathEscape(id), nil, nil, "", nil); err != nil {
				return nil, err
			}
		}
		return t, nil
	}
	return nil, redirects.Errorf(redirects.ENOTFOUND, "token %q is not a management token of organization %s", id, orgID)
}

// FindAudit returns a page of audit entries, newest first, as the store's
// FindAudit does. The API keeps each organization's log apart: a filter
// without an organization reads the project's, or, with neither, every
// organization the token reaches, merged (entries about no organization,
// such as a user's creation, are the operators' and not among them).
func (s *Store) FindAudit(ctx context.Context, f redirects.AuditFilter) ([]*redirects.AuditEntry, error) {
	if err := f.Validate(); err != nil {
		return nil, err
	}
	orgs := []string{f.OrgID}
	switch {
	case f.OrgID != "":
	case f.ProjectID != "":
		p, err := s.FindProjectByID(ctx, f.ProjectID)
		if err != nil {
			return nil, err
		}
		orgs[0] = p.OrgID
	default:
		os, err := s.FindOrgs(ctx)
		if err != nil {
			return nil, err
		}
		orgs = orgs[:0]
		for _, o := range os {
			orgs = append(orgs, o.ID)
		}
	}
	q := url.Values{"limit": {strconv.Itoa(f.Limit)}}
	for k, v := range map[string]string{"project": f.ProjectID, "actor": f.Actor, "action": f.Action} {
		if v != "" {
			q.Set(k, v)
		}
	}
	if !f.Since.IsZero() {
		q.Set("since", f.Since.UTC().Format(time.RFC3339Nano))
	}
	if !f.Until.IsZero() {
		q.Set("until", f.Until.UTC().Format(time.RFC3339Nano))
	}
	if f.BeforeID > 0 {
		q.Set("before", strconv.FormatInt(f.BeforeID, 10))
	}
	var out []*redirects.AuditEntry
	for _, org := range orgs {
		var j struct{ Entries []*redirects.AuditEntry }
		if err := s.c.do(ctx, "GET", "/orgs/"+pathEscape(org)+"/audit", q, nil, "", &j); err != nil {
			return nil, err
		}
		for _, e := range j.Entries {
			// An absent side is JSON null in the API's answer, nil in
			// the store's entry.
			if string(e.Before) == "null" {
				e.Before = nil
			}
			if string(e.After) == "null" {
				e.After = nil
			}
		}
		out = append(out, j.Entries...)
	}
	slices.SortFunc(out, func(a, b *redirects.AuditEntry) int { return cmp.Compare(b.ID, a.ID) })
	if len(out) > f.Limit {
		out = out[:f.Limit]
	}
	return out, nil
}
