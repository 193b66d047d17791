package manage

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"redirects"
	"redirects/api"
)

func (h *handler) tokenList(w http.ResponseWriter, r *http.Request) error {
	ts, err := h.svc.Tokens.FindTokens(r.Context(), r.PathValue("org"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, api.TokenList{Tokens: api.TokensOf(ts)})
	return nil
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
	// not found before the body is read: the service decides the same
	// again, after the body.
	if err := authorize(r, id, redirects.ActionRead); err != nil {
		return err
	}
	var req api.TokenCreateRequest
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
	// The role asked for is authorized before the rest of the body is
	// read, so a caller who may not make such a token learns that first;
	// the service decides the same again.
	if err := authorize(r, id, redirects.CreateTokenAction(role)); err != nil {
		return err
	}
	ttl, err := parseExpiresIn(req.ExpiresIn)
	if err != nil {
		return err
	}
	t, secret, err := h.svc.Issuer.CreateToken(r.Context(), redirects.TokenRequest{OrgID: id, Role: role, Label: req.Label, TTL: ttl})
	if err != nil {
		return err
	}
	creator := ""
	if c := callerOf(r); c.user != nil && t.CreatedBy == c.user.ID {
		creator = c.user.Email
	}
	j := api.TokenOf(t, creator)
	j.Secret = secret
	writeJSON(w, http.StatusCreated, j)
	return nil
}

// tokenRevoke revokes a token of the organization: any, for an owner; the
// caller's own, for any member.
func (h *handler) tokenRevoke(w http.ResponseWriter, r *http.Request) error {
	if id := r.PathValue("id"); redirects.WellFormedManagementToken(id) {
		// A full token names no token in a URL, where it does not belong;
		// the answer never repeats it.
		if err := authorize(r, r.PathValue("org"), redirects.ActionRead); err != nil {
			return err
		}
		return redirects.Errorf(redirects.ENOTFOUND, "the token ending in %q is not a management token ID (tok_...)", id[len(id)-4:])
	}
	if _, _, err := h.svc.Tokens.RevokeToken(r.Context(), r.PathValue("org"), r.PathValue("id")); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}
