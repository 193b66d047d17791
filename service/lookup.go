package service

import (
	"context"

	"redirects"
	"redirects/engine"
)

// Lookup answers a lookup of path on host in spec's rules with the edge's
// engine (see redirects.DeployService).
func (s *Service) Lookup(ctx context.Context, projectID, spec, host, path string) (*redirects.LookupResult, error) {
	if path == "" || path[0] != '/' || len(path) > redirects.MaxSourceLen {
		return nil, redirects.Errorf(redirects.EINVALID, "path %q must start with / and be at most %d bytes", path, redirects.MaxSourceLen)
	}
	// The path is matched decoded once (docs/contract.md#matching): an
	// escape that cannot decode is refused, as the edge refuses it.
	if _, err := redirects.DecodePath(path); err != nil {
		return nil, err
	}
	if host != "" && !redirects.ValidLookupHost(host) {
		return nil, redirects.Errorf(redirects.EINVALID, "host %q is not a host name (labels of letters, digits and '-', an optional :port)", host)
	}
	rs, err := s.RuleSet(ctx, projectID, spec, false)
	if err != nil {
		return nil, err
	}
	body, err := engine.AnswerJSON(rs.Rules, rs.Settings, host, path)
	if err != nil {
		return nil, err
	}
	return &redirects.LookupResult{Version: rs.Version, Draft: rs.Draft, Body: body}, nil
}
