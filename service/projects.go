package service

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"redirects"
)

var _ redirects.ProjectService = (*Service)(nil)

// Projects returns the projects of an organization, or of every one the
// caller may read.
func (s *Service) Projects(ctx context.Context, orgID string) ([]*redirects.Project, error) {
	if orgID != "" {
		o, err := s.org(ctx, orgID, redirects.ActionRead)
		if err != nil {
			return nil, err
		}
		return s.store.FindProjects(ctx, o.ID)
	}
	all, err := s.store.FindProjects(ctx, "")
	if err != nil {
		return nil, err
	}
	out := make([]*redirects.Project, 0, len(all))
	for _, p := range all {
		if authorize(ctx, p.OrgID, redirects.ActionRead) == nil {
			out = append(out, p)
		}
	}
	return out, nil
}

// CreateProject creates a project in its organization.
func (s *Service) CreateProject(ctx context.Context, p *redirects.Project) error {
	if _, err := s.org(ctx, p.OrgID, redirects.ActionManageProjects); err != nil {
		return err
	}
	if err := p.Validate(); err != nil {
		return err
	}
	return s.store.CreateProject(ctx, p)
}

// Project returns a project the caller may read.
func (s *Service) Project(ctx context.Context, id string) (*redirects.Project, error) {
	return s.project(ctx, id, redirects.ActionRead)
}

// ProjectOverview returns a project with its live deployment and number
// of draft rules.
func (s *Service) ProjectOverview(ctx context.Context, id string) (*redirects.ProjectOverview, error) {
	p, err := s.project(ctx, id, redirects.ActionRead)
	if err != nil {
		return nil, err
	}
	out := &redirects.ProjectOverview{Project: p}
	d, _, err := s.store.FindDeployment(ctx, p.ID, 0)
	switch {
	case err == nil:
		out.Live = d
	case redirects.ErrorCode(err) != redirects.ENOTFOUND:
		return nil, err
	}
	page, err := s.store.FindRulePage(ctx, p.ID, redirects.RulePageQuery{Limit: 1})
	if err != nil {
		return nil, err
	}
	out.RuleCount = page.Total
	return out, nil
}

// UpdateProject checks every field u sets, then stores them: the
// matching settings first, so that their refusal changes nothing.
func (s *Service) UpdateProject(ctx context.Context, id string, u redirects.ProjectUpdate) (*redirects.Project, error) {
	p, err := s.project(ctx, id, redirects.ActionManageProjects)
	if err != nil {
		return nil, err
	}
	if u.IsEmpty() {
		return nil, redirects.Errorf(redirects.EINVALID, "a project update needs at least one of name, hosts, keepExports, shrinkLimit, caseSensitive, trailingSlash, requireStage")
	}
	if u.Name != nil {
		check := *p
		check.Name = *u.Name
		if err := check.Validate(); err != nil {
			return nil, err
		}
	}
	if u.ExportRetention != nil {
		if err := redirects.ValidateExportRetention(*u.ExportRetention); err != nil {
			return nil, err
		}
	}
	if u.ShrinkLimit != nil {
		if err := redirects.ValidateShrinkLimit(*u.ShrinkLimit); err != nil {
			return nil, err
		}
	}
	hosts := []string{}
	if u.Hosts != nil {
		if _, err := redirects.NormalizeHosts(*u.Hosts); err != nil {
			return nil, err
		}
		if *u.Hosts != nil {
			hosts = *u.Hosts
		}
	}
	settings := p.Settings
	if u.CaseInsensitive != nil {
		settings.CaseInsensitive = *u.CaseInsensitive
	}
	if u.IgnoreTrailingSlash != nil {
		settings.IgnoreTrailingSlash = *u.IgnoreTrailingSlash
	}
	if settings != p.Settings {
		rules, err := s.store.FindRules(ctx, p.ID)
		if err != nil {
			return nil, err
		}
		if clashes := redirects.Clashes(rules, settings, 0); len(clashes) > 0 {
			return nil, projectClashes(settings, clashes)
		}
		if p, err = s.store.SetProjectSettings(ctx, p.ID, settings); err != nil {
			return nil, err
		}
	}
	if u.Name != nil {
		if p, err = s.store.UpdateProject(ctx, p.ID, *u.Name); err != nil {
			return nil, err
		}
	}
	if u.ExportRetention != nil {
		if p, err = s.store.SetExportRetention(ctx, p.ID, *u.ExportRetention); err != nil {
			return nil, err
		}
	}
	if u.ShrinkLimit != nil {
		if p, err = s.store.SetProjectShrinkLimit(ctx, p.ID, *u.ShrinkLimit); err != nil {
			return nil, err
		}
	}
	if u.Hosts != nil {
		if p, err = s.store.SetProjectHosts(ctx, p.ID, hosts); err != nil {
			return nil, err
		}
	}
	if u.RequireStage != nil {
		if p, err = s.store.SetProjectRequireStage(ctx, p.ID, *u.RequireStage); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// maxShownClashes caps the pairs a refusal of settings lists.
const maxShownClashes = 100

// projectClashes returns the ECONFLICT error that refuses settings st:
// the pairs of draft rules that would clash under them, one pair a line
// (the first maxShownClashes, and how many more). It opens with the words
// of the store's own refusal (redirects.ClashError), which the dashboard
// shows too.
func projectClashes(st redirects.Settings, clashes []redirects.Clash) error {
	var b strings.Builder
	pairs := "a pair"
	if len(clashes) > 1 {
		pairs = strconv.Itoa(len(clashes)) + " pairs"
	}
	fmt.Fprintf(&b, "the settings %s would make rules clash (%s of draft rules, sources of one match type that they compare as one); nothing changed:", st, pairs)
	for i, c := range clashes {
		if i == maxShownClashes {
			fmt.Fprintf(&b, "\n  ... and %d more", len(clashes)-maxShownClashes)
			break
		}
		fmt.Fprintf(&b, "\n  %s rule %d %q and rule %d %q", c.A.MatchType, c.A.ID, c.A.Source, c.B.ID, c.B.Source)
	}
	return redirects.Errorf(redirects.ECONFLICT, "%s", b.String())
}

// DeleteProject deletes a project with everything of its own, its name
// typed back.
func (s *Service) DeleteProject(ctx context.Context, id, confirm string) error {
	p, err := s.project(ctx, id, redirects.ActionManageProjects)
	if err != nil {
		return err
	}
	if err := redirects.ConfirmName("project", p.ID, p.Name, confirm); err != nil {
		return err
	}
	return s.store.DeleteProject(ctx, p.ID)
}
