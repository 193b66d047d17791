package redirects

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Tier is an organization's plan. It sets the default per-minute rate limit
// and monthly quota.
type Tier string

// The tiers of docs/contract.md#limits-and-counting.
const (
	TierFree       Tier = "free"
	TierPro        Tier = "pro"
	TierEnterprise Tier = "enterprise"
)

// ParseTier parses a tier name.
func ParseTier(s string) (Tier, error) {
	switch t := Tier(s); t {
	case TierFree, TierPro, TierEnterprise:
		return t, nil
	}
	return "", Errorf(EINVALID, "tier %q is not one of free, pro, enterprise", s)
}

// Limit is a count of requests, or Unlimited.
type Limit int64

// Unlimited is the Limit that is never reached.
const Unlimited Limit = -1

// IsUnlimited reports whether l is never reached.
func (l Limit) IsUnlimited() bool { return l < 0 }

// String returns the number, or "unlimited".
func (l Limit) String() string {
	if l.IsUnlimited() {
		return "unlimited"
	}
	return strconv.FormatInt(int64(l), 10)
}

// ParseLimit parses a non-negative whole number or "unlimited".
func ParseLimit(name, s string) (Limit, error) {
	if s == "unlimited" {
		return Unlimited, nil
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 {
		return 0, Errorf(EINVALID, "%s %q is neither a whole number >= 0 nor \"unlimited\"", name, s)
	}
	return Limit(n), nil
}

// RateLimit returns the tier's requests per minute.
func (t Tier) RateLimit() Limit {
	switch t {
	case TierFree:
		return 100
	case TierPro:
		return 1000
	}
	return Unlimited
}

// MonthlyQuota returns the tier's requests per calendar month.
func (t Tier) MonthlyQuota() Limit {
	switch t {
	case TierFree:
		return 10_000
	case TierPro:
		return 1_000_000
	}
	return Unlimited
}

// TestRateLimit is the per-minute limit of test-key traffic: the Free tier's,
// so test traffic can never starve live traffic.
const TestRateLimit Limit = 100

// Org is an organization: the unit that owns projects and is limited.
type Org struct {
	ID   string
	Name string
	Tier Tier
	// RateLimitOverride and QuotaOverride, when set, replace the tier's
	// defaults (custom plans).
	RateLimitOverride *Limit
	QuotaOverride     *Limit
	CreatedAt         time.Time
}

// RateLimit returns the live per-minute limit in force.
func (o *Org) RateLimit() Limit {
	if o.RateLimitOverride != nil {
		return *o.RateLimitOverride
	}
	return o.Tier.RateLimit()
}

// MonthlyQuota returns the monthly quota in force.
func (o *Org) MonthlyQuota() Limit {
	if o.QuotaOverride != nil {
		return *o.QuotaOverride
	}
	return o.Tier.MonthlyQuota()
}

// TestRateLimit returns the per-minute limit of test-key traffic: the Free
// tier's 100, or the org's own limit if that is lower.
func (o *Org) TestRateLimit() Limit {
	if l := o.RateLimit(); !l.IsUnlimited() && l < TestRateLimit {
		return l
	}
	return TestRateLimit
}

// Validate checks an organization before it is stored.
func (o *Org) Validate() error {
	if o.Name == "" {
		return Errorf(EINVALID, "organization name is empty")
	}
	if len(o.Name) > 200 {
		return Errorf(EINVALID, "organization name is %d bytes long, more than the 200 allowed", len(o.Name))
	}
	if err := checkName("organization name", o.Name); err != nil {
		return err
	}
	if _, err := ParseTier(string(o.Tier)); err != nil {
		return err
	}
	return nil
}

// OrgUpdate lists the fields of an organization to change; nil leaves a field
// as it is. ClearRateLimit and ClearQuota drop an override, so the tier's
// default applies again.
type OrgUpdate struct {
	Name           *string
	Tier           *Tier
	RateLimit      *Limit
	MonthlyQuota   *Limit
	ClearRateLimit bool
	ClearQuota     bool
}

// Apply changes o as u says.
func (u OrgUpdate) Apply(o *Org) {
	if u.Name != nil {
		o.Name = *u.Name
	}
	if u.Tier != nil {
		o.Tier = *u.Tier
	}
	if u.ClearRateLimit {
		o.RateLimitOverride = nil
	}
	if u.ClearQuota {
		o.QuotaOverride = nil
	}
	if u.RateLimit != nil {
		l := *u.RateLimit
		o.RateLimitOverride = &l
	}
	if u.MonthlyQuota != nil {
		l := *u.MonthlyQuota
		o.QuotaOverride = &l
	}
}

// Project groups the rules, keys and deployments of one site.
type Project struct {
	ID        string
	OrgID     string
	Name      string
	CreatedAt time.Time
	// ExportRetention is how many of the project's latest deployments keep
	// their export files in the store; older deployments keep their rules,
	// and their exports are rendered again on demand (see FindExport). 0
	// when creating a project means DefaultExportRetention.
	ExportRetention int
	// ShrinkLimit is the percentage of the live rules a deploy may remove
	// without an explicit confirmation (see package safety); stores default
	// it to DefaultShrinkLimit.
	ShrinkLimit int
	// Hosts are the host names the project's site answers on, lower-case
	// and each once (see NormalizeHosts): an import reads a full URL on
	// one of them as its path.
	Hosts []string
	// Settings are the project's matching settings as the draft has them;
	// a deploy freezes them into the deployment (Deployment.Settings).
	Settings Settings
	// LiveVersion is the version lookups and exports without a version
	// answer from (the project's live pointer), 0 when none is live.
	LiveVersion int
	// RequireStage refuses deploys that are not staged: every version goes
	// live by a promote (docs/contract.md#staged-deploys).
	RequireStage bool
	// NewestVersion is the highest version number the project handed out,
	// staged and discarded versions included (0: none); the next deploy
	// takes the one after it. Stores set it when they read a project.
	NewestVersion int
}

// Bounds of Project.ExportRetention.
const (
	DefaultExportRetention = 20
	MaxExportRetention     = 10000
)

// ValidateExportRetention checks a number of deployments that keep their
// export files. Errors: EINVALID.
func ValidateExportRetention(n int) error {
	if n < 1 || n > MaxExportRetention {
		return Errorf(EINVALID, "export retention %d is outside 1..%d deployments", n, MaxExportRetention)
	}
	return nil
}

// Validate checks a project before it is stored.
func (p *Project) Validate() error {
	if p.Name == "" {
		return Errorf(EINVALID, "project name is empty")
	}
	if len(p.Name) > 200 {
		return Errorf(EINVALID, "project name is %d bytes long, more than the 200 allowed", len(p.Name))
	}
	if err := checkName("project name", p.Name); err != nil {
		return err
	}
	if p.OrgID == "" {
		return Errorf(EINVALID, "project has no organization")
	}
	if p.ExportRetention != 0 {
		if err := ValidateExportRetention(p.ExportRetention); err != nil {
			return err
		}
	}
	if _, err := NormalizeHosts(p.Hosts); err != nil {
		return err
	}
	return nil
}

// checkName refuses names that are not valid UTF-8 or hold control
// characters: they would garble tables and logs, and PostgreSQL cannot store
// a NUL byte. Bidirectional controls are refused too: a U+202E in a name
// shown beside others makes it read as another.
func checkName(field, s string) error {
	if i := InvalidUTF8At(s); i >= 0 {
		return Errorf(EINVALID, "%s %s is not valid UTF-8 at byte %d", field, quoteShort(s), i)
	}
	for i, c := range s {
		if unicode.IsControl(c) {
			return Errorf(EINVALID, "%s %s holds a control character (%U) at byte %d", field, quoteShort(s), c, i)
		}
		if IsBidiControl(c) {
			return Errorf(EINVALID, "%s %s holds a bidirectional control character (%U) at byte %d: it would make the name read as another", field, quoteShort(s), c, i)
		}
	}
	return nil
}

// IsBidiControl reports whether c is one of Unicode's bidirectional
// formatting controls: the embeddings and overrides U+202A-U+202E, the
// isolates U+2066-U+2069, and the marks U+200E, U+200F and U+061C.
func IsBidiControl(c rune) bool {
	return c >= 0x202A && c <= 0x202E || c >= 0x2066 && c <= 0x2069 || c == 0x200E || c == 0x200F || c == 0x061C
}

// InvalidUTF8At returns the offset of the first byte of s that is not
// part of valid UTF-8, or -1 when s is valid.
func InvalidUTF8At(s string) int {
	if utf8.ValidString(s) {
		return -1
	}
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			return i
		}
		i += n
	}
	return -1
}

// MaxProjectHosts is the most hosts a project declares.
const MaxProjectHosts = 50

// NormalizeHosts checks a project's hosts and returns them lower-case,
// without a trailing dot, each once, in their order. A host is a DNS name
// (letters, digits and hyphens in dot-separated labels of at most 63
// bytes, at most 253 bytes in all, no hyphen at a label's ends) such as
// www.example.com, without a scheme, port or path. Errors: EINVALID.
func NormalizeHosts(hosts []string) ([]string, error) {
	var out []string
	seen := map[string]bool{}
	for _, h := range hosts {
		n := strings.TrimSuffix(strings.ToLower(strings.TrimSpace(h)), ".")
		if err := validateHost(n); err != nil {
			return nil, Errorf(EINVALID, "host %s %s", quoteShort(h), err.Error())
		}
		if !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	if len(out) > MaxProjectHosts {
		return nil, Errorf(EINVALID, "a project declares at most %d hosts, not %d", MaxProjectHosts, len(out))
	}
	return out, nil
}

// validateHost checks a lower-case host name.
func validateHost(h string) error {
	switch {
	case h == "":
		return errors.New("is empty")
	case strings.Contains(h, "://"):
		return errors.New("is a URL; give the host alone, such as www.example.com")
	case len(h) > 253:
		return fmt.Errorf("is %d bytes long, more than the 253 allowed", len(h))
	}
	for _, label := range strings.Split(h, ".") {
		if label == "" || len(label) > 63 {
			return errors.New("has an empty label or one longer than 63 bytes")
		}
		if label[0] == '-' || label[len(label)-1] == '-' {
			return errors.New("has a label that starts or ends with '-'")
		}
		for i := 0; i < len(label); i++ {
			if c := label[i]; !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-') {
				return fmt.Errorf("holds %q; a host has letters, digits, '-' and '.' only", c)
			}
		}
	}
	return nil
}
