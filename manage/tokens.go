package manage

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"redirects"
)

// tokenJSON is a management token as the API shows one: the CLI's token
// list --json shape, never the secret or its hash. Secret is set once, in
// the answer to its creation.
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
	Secret     string  `json:"secret,omitempty"`
}

func toTokenJSON(t *redirects.ManagementToken, createdBy string) tokenJSON {
	j := tokenJSON{ID: t.ID, Label: t.Label, Role: string(t.Role), Last4: t.Last4, CreatedAt: formatTime(t.CreatedAt),
		ExpiresAt: formatTimePtr(t.ExpiresAt), LastUsedAt: formatTimePtr(t.LastUsedAt), RevokedAt: formatTimePtr(t.RevokedAt)}
	if t.CreatedBy != "" {
		j.CreatedBy = &createdBy
	}
	return j
}

func (h *handler) tokenList(w http.ResponseWriter, r *http.Request) error {
	o, err := h.authorizeOrg(r, redirects.ActionRead)
	if err != nil {
		return err
	}
	ctx := r.Context()
	ts, err := h.accounts.FindTokens(ctx, o.ID)
	if err != nil {
		return err
	}
	// Creators are named by email; the tokens of one org have few.
	emails := map[string]string{}
	out := make([]tokenJSON, 0, len(ts))
	for _, t := range ts {
		if _, ok := emails[t.CreatedBy]; t.CreatedBy != "" && !ok {
			emails[t.CreatedBy] = t.CreatedBy
			if u, err := h.accounts.FindUserByID(ctx, t.CreatedBy); err == nil {
				emails[t.CreatedBy] = u.Email
			}
		}
		out = append(out, toTokenJSON(t, emails[t.CreatedBy]))
	}
	writeJSON(w, http.StatusOK, map[string]any{"tokens": out})
	return nil
}

type tokenCreateRequest struct {
	Role  *string `json:"role"`
	Label string  `json:"label"`
	// ExpiresIn is a duration ("720h") or days ("30d"); "" never expires.
	ExpiresIn string `json:"expiresIn"`
}

// parseExpiresIn parses a token lifetime as the CLI's --expires does.
func parseExpiresIn(s string) (time.Duration, error) {
	if s == "" {
		return 0, nil
	}
	var d time.Duration
	if n, ok := strings.CutSuffix(s, "d"); ok {
		days, err := strconv.Atoi(n)
		if err != nil || days > 100*366 {
			return 0, redirects.Errorf(redirects.EINVALID, "expiresIn %q is not a whole number of days such as 30d", s)
		}
		d = time.Duration(days) * 24 * time.Hour
	} else {
		var err error
		if d, err = time.ParseDuration(s); err != nil {
			return 0, redirects.Errorf(redirects.EINVALID, "expiresIn %q is not a duration such as 720h or 30d", s)
		}
	}
	if d <= 0 {
		return 0, redirects.Errorf(redirects.EINVALID, "expiresIn %q is not above zero", s)
	}
	return d, nil
}

// tokenCreate makes a management token of the caller's: a user, with a
// role at least the token's. It answers the secret, this once.
func (h *handler) tokenCreate(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("org")
	// Read access first, so an organization the caller has no role in is
	// not found before the body is looked at.
	if err := authorize(r, id, redirects.ActionRead); err != nil {
		return err
	}
	var req tokenCreateRequest
	if err := h.decodeJSON(w, r, &req, false); err != nil {
		return err
	}
	if req.Role == nil {
		return missingField("role")
	}
	role, err := redirects.ParseRole(*req.Role)
	if err != nil {
		return err
	}
	o, err := h.authorizeOrg(r, redirects.CreateTokenAction(role))
	if err != nil {
		return err
	}
	ttl, err := parseExpiresIn(req.ExpiresIn)
	if err != nil {
		return err
	}
	c := callerOf(r)
	t, secret := redirects.NewManagementToken(o.ID, role, req.Label, c.user.ID, h.clock.Now(), ttl)
	if err := t.Validate(); err != nil {
		return err
	}
	if err := h.accounts.CreateToken(r.Context(), t); err != nil {
		return err
	}
	j := toTokenJSON(t, c.user.Email)
	j.Secret = secret
	writeJSON(w, http.StatusCreated, j)
	return nil
}

// tokenRevoke revokes a token of the organization: any, for an owner; the
// caller's own, for any member.
func (h *handler) tokenRevoke(w http.ResponseWriter, r *http.Request) error {
	o, err := h.authorizeOrg(r, redirects.ActionRead)
	if err != nil {
		return err
	}
	ctx := r.Context()
	id := r.PathValue("id")
	ts, err := h.accounts.FindTokens(ctx, o.ID)
	if err != nil {
		return err
	}
	var t *redirects.ManagementToken
	for _, x := range ts {
		if x.ID == id {
			t = x
		}
	}
	if t == nil {
		return notFound("management token", id)
	}
	if err := authorizeTokenRevoke(r, t); err != nil {
		return err
	}
	if _, err := h.accounts.RevokeToken(ctx, o.ID, t.ID); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}
