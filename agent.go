package redirects

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// AgentReport is what one sync agent last said about one of its targets
// (docs/delivery.md#which-servers-have-which-version): the version of a
// project's export, in one format, that it applied, as of SeenAt.
type AgentReport struct {
	ProjectID string `json:"-"`
	// Agent names the agent: the name it sends in the Redirects-Agent
	// header, or else its User-Agent and address.
	Agent          string    `json:"agent"`
	Format         string    `json:"format"`
	AppliedVersion int       `json:"appliedVersion"`
	SeenAt         time.Time `json:"seenAt"`
}

// Headers of the export requests in which an agent reports itself.
const (
	// AppliedVersionHeader carries the deployment version the agent has
	// applied, a positive integer.
	AppliedVersionHeader = "Redirects-Applied-Version"
	// AgentHeader carries a stable name of the agent (its host and
	// target); without it the edge names the agent by its User-Agent and
	// address.
	AgentHeader = "Redirects-Agent"
)

// MaxAgentName bounds an agent's name as stored; a longer one is cut.
const MaxAgentName = 200

// MaxAgentsPerFormat bounds the agents a project keeps reports of in one
// format: past it, the reports seen longest ago go. Anyone with a live key
// can name an agent; the list a person reads stays short.
const MaxAgentsPerFormat = 100

// AgentRetention is how long an agent's last report is kept: an agent
// silent for longer is gone (a server taken down need not be deleted).
const AgentRetention = 30 * 24 * time.Hour

// ParseAppliedVersion reads the Redirects-Applied-Version header: a
// positive decimal integer. Anything else (empty, signed, too large) is
// not a report, and ok is false.
func ParseAppliedVersion(s string) (v int, ok bool) {
	if s == "" || len(s) > 9 {
		return 0, false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
	}
	v, err := strconv.Atoi(s)
	return v, err == nil && v > 0
}

// AgentName returns the name an agent is shown under: its Redirects-Agent
// header when it sent one, else its User-Agent and the address it came
// from (without the port, which changes with each connection). NUL and
// bytes that are not UTF-8 become U+FFFD (a database may refuse them),
// other control characters are dropped, and the name is cut at
// MaxAgentName bytes.
func AgentName(header, userAgent, remoteAddr string) string {
	name := strings.TrimSpace(header)
	if name == "" {
		host := remoteAddr
		if i := strings.LastIndexByte(host, ':'); i >= 0 && !strings.HasSuffix(host, "]") {
			host = host[:i]
		}
		host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
		ua := strings.TrimSpace(userAgent)
		if ua == "" {
			ua = "unknown agent"
		}
		name = ua
		if host != "" {
			name += " (" + host + ")"
		}
	}
	name = strings.Map(func(r rune) rune {
		switch {
		case r == 0:
			return utf8.RuneError
		case r < 0x20 || r == 0x7f:
			return -1
		}
		// An invalid byte arrives as utf8.RuneError, and is written as
		// U+FFFD.
		return r
	}, name)
	if len(name) > MaxAgentName {
		name = strings.ToValidUTF8(name[:MaxAgentName], "")
	}
	return name
}

// Behind reports whether the agent applied an older version than live,
// the project's live version (0: none yet).
func (a AgentReport) Behind(live int) bool { return a.AppliedVersion < live }

// ValidateAgentReports checks the arguments of AgentStore.RecordAgents: a
// project, an agent name, a format and a positive version in each.
// Errors: EINVALID.
func ValidateAgentReports(reports []AgentReport) error {
	for _, r := range reports {
		switch {
		case r.ProjectID == "":
			return Errorf(EINVALID, "agent report of %q names no project", r.Agent)
		case r.Agent == "" || len(r.Agent) > MaxAgentName:
			return Errorf(EINVALID, "agent name %q is empty or longer than %d bytes", r.Agent, MaxAgentName)
		case !utf8.ValidString(r.Agent) || strings.ContainsRune(r.Agent, 0):
			return Errorf(EINVALID, "agent name %q holds NUL or bytes that are not UTF-8 (see AgentName)", r.Agent)
		case !slices.Contains(Formats, r.Format):
			return Errorf(EINVALID, "agent %q reports the unknown format %q", r.Agent, r.Format)
		case r.AppliedVersion <= 0:
			return Errorf(EINVALID, "agent %q reports the version %d, not a positive one", r.Agent, r.AppliedVersion)
		}
	}
	return nil
}

// AgentStore keeps what sync agents last reported (both SQL stores
// implement it). Edge nodes write it with their counts; the management
// API and the dashboard read it.
type AgentStore interface {
	// RecordAgents keeps, for each (project, agent, format), the report
	// seen last: a report older than the one kept changes nothing.
	// Reports of unknown projects are dropped. Errors: EINVALID (see
	// ValidateAgentReports).
	RecordAgents(ctx context.Context, reports []AgentReport) error
	// RecordAgents also keeps, per project and format, only the
	// MaxAgentsPerFormat reports seen last, and drops reports older than
	// AgentRetention.
	//
	// FindAgents returns a project's agents' last reports of the past
	// AgentRetention, by agent then format.
	FindAgents(ctx context.Context, projectID string) ([]AgentReport, error)
	// DeleteAgents forgets a project's agents' reports that match f, and
	// returns how many it forgot; when it forgot any it records an
	// agent.delete audit entry. Errors: EINVALID (see
	// AgentFilter.Validate), ENOTFOUND (the project).
	DeleteAgents(ctx context.Context, projectID string, f AgentFilter) (int, error)
}

// AgentFilter picks agents' reports to delete: those of one agent, of one
// format, both, or (zero) all of a project's.
type AgentFilter struct {
	Agent  string
	Format string
}

// Validate checks a filter: a known format, a name no longer than a stored
// one. Errors: EINVALID.
func (f AgentFilter) Validate() error {
	if f.Format != "" && !slices.Contains(Formats, f.Format) {
		return Errorf(EINVALID, "format %q is not one of %s", f.Format, strings.Join(Formats, ", "))
	}
	if len(f.Agent) > MaxAgentName || !utf8.ValidString(f.Agent) || strings.ContainsRune(f.Agent, 0) {
		return Errorf(EINVALID, "agent: a name of at most %d bytes of UTF-8 text without NUL, not %d bytes", MaxAgentName, len(f.Agent))
	}
	return nil
}

// ProjectAgents returns a project's live version (the one its live pointer
// names, never a staged one; 0 before the first deploy) and its agents'
// last reports, for the management API and the dashboard alike. Errors:
// ENOTFOUND (the project).
func ProjectAgents(ctx context.Context, deployments interface {
	FindDeployments(ctx context.Context, projectID string) ([]*Deployment, error)
}, agents AgentStore, projectID string) (live int, reports []AgentReport, err error) {
	ds, err := deployments.FindDeployments(ctx, projectID)
	if err != nil {
		return 0, nil, err
	}
	// A staged version is newer than the live one until it is promoted
	// (docs/contract.md#staged-deploys): the servers are judged against
	// what lookups and exports answer with.
	for _, d := range ds {
		if d.Live {
			live = d.Version
		}
	}
	reports, err = agents.FindAgents(ctx, projectID)
	return live, reports, err
}
