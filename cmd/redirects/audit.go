package main

import (
	"context"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"redirects"
	"redirects/export"
)

// auditCommands is "audit": the audit log.
var auditCommands = []command{
	{
		name:     "audit",
		synopsis: []string{"[--org ORG_ID] [--project P] [--actor A] [--action A] [--since T] [--until T] [--limit N] [--csv|--json]"},
		summary:  "print the audit log: who changed what, when",
		about:    "--since and --until take a time (RFC 3339), a date (2006-01-02) or a duration ago (24h, 7d).",
		example:  `redirects audit --project "$PROJECT" --since 7d --action 'rule.*'`,
		readOnly: true,
		run:      (*cmd).audit,
	},
}

// timeFlag is a --since or --until value: an RFC 3339 time, a date
// (midnight UTC), or a duration back from now ("24h", "7d").
type timeFlag struct {
	t   time.Time
	now func() time.Time
}

func (f *timeFlag) String() string {
	if f.t.IsZero() {
		return ""
	}
	return f.t.Format(time.RFC3339)
}

func (f *timeFlag) Set(s string) error {
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		f.t = t.UTC()
		return nil
	}
	if t, err := time.Parse(time.DateOnly, s); err == nil {
		f.t = t
		return nil
	}
	var d durationFlag
	if err := d.Set(s); err == nil {
		f.t = f.now().Add(-d.d)
		return nil
	}
	return fmt.Errorf("%q is not a time (2026-03-14T15:09:26Z), a date (2026-03-14) or a duration ago (24h, 7d)", s)
}

func (c *cmd) audit(ctx context.Context, args []string) error {
	fs := c.flags("audit")
	var f redirects.AuditFilter
	fs.StringVar(&f.OrgID, "org", "", "only this organization's entries")
	fs.StringVar(&f.ProjectID, "project", "", "only this project's entries")
	fs.StringVar(&f.Actor, "actor", "", "only this actor's entries: an ID, email, token label or OS user name")
	fs.StringVar(&f.Action, "action", "", "only this action (rule.create), or an object's actions (rule.*)")
	since := &timeFlag{now: c.m.Clock.Now}
	until := &timeFlag{now: c.m.Clock.Now}
	fs.Var(since, "since", "entries at or after `T`: a time, a date, or a duration ago (24h, 7d)")
	fs.Var(until, "until", "entries before `T`: a time, a date, or a duration ago")
	limit := fs.Int("limit", redirects.DefaultAuditLimit, "at most this many entries, newest first; 0 for all")
	asCSV := fs.Bool("csv", false, "print CSV")
	asJSON := fs.Bool("json", false, "print JSON")
	if _, err := parse(fs, args); err != nil {
		return err
	}
	svc, err := c.services(ctx)
	if err != nil {
		return err
	}
	if *asCSV && *asJSON {
		return usagef("audit takes --csv or --json, not both")
	}
	if *limit < 0 {
		return usagef("audit: --limit %d is below zero", *limit)
	}
	f.Since, f.Until = since.t, until.t
	entries, err := findAudit(ctx, svc.Insight, f, *limit)
	if err != nil {
		return err
	}

	switch {
	case *asJSON:
		out := entries
		if out == nil {
			out = []*redirects.AuditEntry{}
		}
		return c.printJSON(out)
	case *asCSV:
		return export.WriteAuditCSV(c.m.Stdout, entries)
	}
	w := tabwriter.NewWriter(c.m.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "TIME\tACTOR\tFROM\tACTION\tOBJECT\tORG\tPROJECT\tCHANGE")
	for _, e := range entries {
		actor := string(e.Actor.Kind)
		if e.Actor.Label != "" {
			actor += ":" + e.Actor.Label
		} else if e.Actor.ID != "" {
			actor += ":" + e.Actor.ID
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", e.Time.Format(timeFormat), oneLine(actor), orDash(&e.Actor.RemoteAddr),
			e.Action, oneLine(e.ObjectType+" "+e.ObjectID), orDash(&e.OrgID), orDash(&e.ProjectID), oneLine(change(e)))
	}
	return w.Flush()
}

// findAudit reads up to limit entries (0 for all), a page at a time.
func findAudit(ctx context.Context, a redirects.InsightService, f redirects.AuditFilter, limit int) ([]*redirects.AuditEntry, error) {
	var out []*redirects.AuditEntry
	for {
		f.Limit = redirects.MaxAuditLimit
		if limit > 0 {
			f.Limit = min(limit-len(out), redirects.MaxAuditLimit)
		}
		page, err := a.FindAudit(ctx, f)
		if err != nil {
			return nil, err
		}
		out = append(out, page...)
		if len(page) < f.Limit || limit > 0 && len(out) >= limit {
			return out, nil
		}
		f.BeforeID = page[len(page)-1].ID
	}
}

// change returns "before -> after" for the table.
func change(e *redirects.AuditEntry) string {
	switch {
	case e.Before == nil && e.After == nil:
		return "-"
	case e.Before == nil:
		return string(e.After)
	case e.After == nil:
		return string(e.Before) + " -> (deleted)"
	}
	return string(e.Before) + " -> " + string(e.After)
}

// oneLine keeps a table cell on its line: labels may not hold control
// characters, but a JSON value shown whole could be long.
func oneLine(s string) string {
	return strings.NewReplacer("\n", `\n`, "\r", `\r`, "\t", " ").Replace(s)
}
