package main

import (
	"bufio"
	"context"
	"fmt"
	"log/slog"
	"time"

	"redirects"
	"redirects/api"
	"redirects/destcheck"
	"redirects/service"
)

// destCheckCommands are the "check" commands: where the live version's
// destinations lead (docs/contract.md#destination-checks).
var destCheckCommands = []command{
	{
		name:     "check",
		synopsis: []string{"--project P [--base-url URL] [--check-allow-private] [--json]", "--project P --last [--json]"},
		summary:  "request every destination of the live version and record where each leads",
		about: "Each distinct destination of the live version is requested (HEAD, GET when the server refuses\n" +
			"HEAD), following up to 5 redirects, at most 2 requests at a time per host and 16 in all, 5 s\n" +
			"each; relative destinations against --base-url (default: https:// and the project's first\n" +
			"host); destinations that insert captures are skipped and counted. The results replace the\n" +
			"last check's when every destination is done; lint then warns of rules whose destination is\n" +
			"broken or leads off-site. Loopback, private and link-local targets are refused unless\n" +
			"--check-allow-private (with --db; through --api, the server's serve --check-allow-private\n" +
			"decides). --last prints the last check's results without checking (broken first).\n" +
			"Output: one line per destination that is broken, leads off-site or was refused, and a summary\n" +
			"on stderr; --json prints a done check's report (or, with --last, what GET .../destination-checks\n" +
			"answers). Through --api the server runs the check: the command starts it and reads it until it\n" +
			"ends, however long it takes; a check of the project that runs already is an error naming it.",
		example: `redirects check --project "$PROJECT" --base-url https://www.example.com`,
		run:     (*cmd).check,
	},
}

func (c *cmd) check(ctx context.Context, args []string) error {
	fs := c.flags("check")
	project := fs.String("project", "", "project ID")
	base := fs.String("base-url", "", "resolve relative destinations against `URL` (default: https:// and the project's first host)")
	allowPrivate := fs.Bool("check-allow-private", false, "let the check request loopback, private and link-local addresses (with --db)")
	last := fs.Bool("last", false, "print the last check's results instead of checking")
	asJSON := fs.Bool("json", false, "print JSON")
	if _, err := parse(fs, args); err != nil {
		return err
	}
	if err := required(fs, "project"); err != nil {
		return err
	}
	if *last && (*base != "" || *allowPrivate) {
		return usagef("check --last reads the last results: it takes no --base-url or --check-allow-private")
	}
	cl, err := c.remote()
	if err != nil {
		return err
	}
	if *last {
		j, err := runOp(ctx, c, api.DestinationChecksOp, *project, api.None{})
		if err != nil {
			return err
		}
		if *asJSON {
			return c.printJSON(j)
		}
		return c.printChecks(j.Checks, fmt.Sprintf("check --last: %s, %d broken", plural(len(j.Checks), "destination", "destinations"), j.Broken))
	}
	// Through --api the check runs on the server, started by one request
	// and read by others until it ends (remote.Client.CheckDestinations),
	// so that no request lasts as long as a large check.
	var checks redirects.CheckService
	if cl != nil {
		if *allowPrivate {
			return usagef("check --check-allow-private applies with --db; through --api the server decides (serve --check-allow-private)")
		}
		checks = cl
	} else {
		s, oerr := c.open(ctx)
		if oerr != nil {
			return oerr
		}
		checks = service.New(service.Deps{Store: s, Accounts: s, Webhooks: s, Agents: s, Clock: c.m.Clock, Builder: builder,
			Checker: destcheck.New(*allowPrivate)})
	}
	report, err := checks.CheckDestinations(ctx, *project, redirects.CheckOptions{BaseURL: *base})
	if err != nil {
		return err
	}
	rep := api.CheckReportOf(report)
	if *asJSON {
		return c.printJSON(rep)
	}
	summary := fmt.Sprintf("check: %s checked, %d broken (%d newly), %d skipped (captures)",
		plural(len(rep.Checks), "destination", "destinations"), rep.Broken, len(rep.NewlyBroken), rep.Skipped)
	return c.printChecks(rep.Checks, summary)
}

// printChecks prints a line per result that is not plainly ok, then the
// summary on stderr.
func (c *cmd) printChecks(cs []api.DestinationCheck, summary string) error {
	bw := bufio.NewWriter(c.m.Stdout)
	for _, d := range cs {
		if d.Outcome == string(redirects.CheckOK) {
			continue
		}
		fmt.Fprintf(bw, "%s\t%s\t%d\t%s\t%d hops", d.Outcome, d.Destination, d.Status, d.FinalURL, d.Hops)
		if d.Error != "" {
			fmt.Fprintf(bw, "\t%s", d.Error)
		}
		fmt.Fprintln(bw)
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	c.infof("%s", summary)
	return nil
}

// lastChecks returns the project's last destination checks by
// destination, for lint's warnings.
func (c *cmd) lastChecks(ctx context.Context, project string) (map[string]redirects.DestinationCheck, error) {
	svc, err := c.services(ctx)
	if err != nil {
		return nil, err
	}
	cs, err := svc.Checks.FindDestinationChecks(ctx, project)
	if err != nil {
		return nil, err
	}
	out := make(map[string]redirects.DestinationCheck, len(cs))
	for _, d := range cs {
		out[d.Destination] = d
	}
	return out, nil
}

// startChecks starts the scheduled destination checks of serve
// --check-destinations-every on this node, and returns the function that
// stops them (a check cut short stores nothing). Every node runs the
// schedule; the store's lease per project lets one node check a project
// at a time, and a project once a period whichever node does. A database
// that cannot be opened yet (down as serve starts) is tried again, with
// a warning each time, until it opens or serve stops.
func (c *cmd) startChecks(ctx context.Context, logger *slog.Logger) (stop func()) {
	every := c.cfg.checkEvery
	if every <= 0 {
		return func() {}
	}
	owner := "node_" + redirects.NewWebhookDeliveryID()[4:]
	tick := min(every, time.Minute)
	ctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	done := make(chan struct{})
	go func() {
		defer close(done)
		s, err := waitForDatabase(ctx, logger, "scheduled destination checks", c.open, 2*time.Second, time.Minute)
		if err != nil {
			return // serve stopped first
		}
		svc := service.New(service.Deps{Store: s, Accounts: s, Clock: c.m.Clock, Builder: builder, Checker: destcheck.New(c.cfg.checkAllowPrivate)})
		for {
			fails := svc.RunScheduledChecks(ctx, owner, every, func(project string, rep *redirects.CheckReport, err error) {
				switch {
				case err != nil && ctx.Err() == nil:
					logger.Warn("destination check", "project", project, "err", err)
				case rep != nil:
					logger.Info("destination check", "project", project, "checked", len(rep.Checks), "newly_broken", len(rep.NewlyBroken), "skipped", rep.Skipped)
				}
			})
			logScheduleFailures(logger, fails)
			select {
			case <-ctx.Done():
				return
			case <-time.After(tick):
			}
		}
	}()
	return func() {
		cancel()
		<-done
	}
}

// logScheduleFailures logs a warning per failure of a pass of the
// schedule (one per cause, not per project or destination): what could
// not be done, how many projects it struck and the first of them, and
// the first error.
func logScheduleFailures(logger *slog.Logger, fails []service.ScheduleFailure) {
	for _, f := range fails {
		args := []any{"err", f.Err}
		if len(f.Projects) > 0 {
			args = []any{"projects", len(f.Projects), "first_project", f.Projects[0], "err", f.Err}
		}
		logger.Warn("scheduled destination checks could not "+f.Cause, args...)
	}
}

// waitForDatabase calls open until it succeeds, and returns what it
// opened, or until ctx ends, and returns ctx's error. Each failure is
// logged as a warning naming what waits, then tried again after retry,
// doubled each time up to most.
func waitForDatabase(ctx context.Context, logger *slog.Logger, what string, open func(context.Context) (Database, error), retry, most time.Duration) (Database, error) {
	for {
		s, err := open(ctx)
		if err == nil {
			return s, nil
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		logger.Warn(what+" wait for the database", "err", err, "retry_in", retry.String())
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(retry):
		}
		retry = min(2*retry, most)
	}
}
