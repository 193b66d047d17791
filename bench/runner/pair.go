//go:build linux

package main

import (
	"context"
	"fmt"
	"slices"
	"time"
)

// pairResult is the edge against nginx (maps) on exact hits in one
// placement, both servers running side by side and measured in turn, round
// after round, so that a drift of the host hits both alike.
type pairResult struct {
	at          placement
	target      target
	edge, nginx []*load // one per round
	edgeSrv     *server
	nginxSrv    *server
}

// median returns the run with the median value of f.
func median(ls []*load, f func(*load) float64) float64 {
	v := make([]float64, len(ls))
	for i, l := range ls {
		v[i] = f(l)
	}
	slices.Sort(v)
	if len(v) == 0 {
		return 0
	}
	return v[len(v)/2]
}

func rps(l *load) float64 { return l.RPS }
func cpu(l *load) float64 { return float64(l.CPUPerReq) }

// edgeVsNginx measures `redirects serve` against nginx (maps) on the exact
// hit t, one core each and then on all cores with every default.
func (r *runner) edgeVsNginx(ctx context.Context, d *dataset, t target) ([]*pairResult, error) {
	var res []*pairResult
	for _, at := range []placement{oneCore, allCores} {
		p, err := r.pair(ctx, d, t, at)
		if err != nil {
			return nil, err
		}
		res = append(res, p)
	}
	return res, nil
}

func (r *runner) pair(ctx context.Context, d *dataset, t target, at placement) (*pairResult, error) {
	where := map[placement]string{oneCore: "one core each", allCores: "all cores"}[at]
	r.logf("edge vs nginx, %s: starting both", where)
	n, err := r.startNginxMaps(ctx, d, at)
	if err != nil {
		return nil, fmt.Errorf("nginx (maps), %s: %w", where, err)
	}
	defer r.procs.stop(n.proc)
	e, err := r.startRedirectsOn(ctx, d, "redirects serve ("+where+")", at)
	if err != nil {
		return nil, fmt.Errorf("redirects serve, %s: %w", where, err)
	}
	defer r.procs.stop(e.proc)
	for _, s := range []*server{n, e} {
		if err := s.check(ctx, t); err != nil {
			return nil, fmt.Errorf("wrong answer, not measuring: %w", err)
		}
	}
	p := &pairResult{at: at, target: t, edgeSrv: e, nginxSrv: n}
	for i := range r.cfg.rounds {
		// Who goes first alternates, so neither always follows the other.
		order := []*server{n, e}
		if i%2 == 1 {
			order = []*server{e, n}
		}
		for _, s := range order {
			r.logf("edge vs nginx, %s: round %d of %d, %s, wrk %s", where, i+1, r.cfg.rounds, s.name, r.cfg.duration)
			l, err := r.measureAt(ctx, at, s.proc.pid(), 0, 0, s.url(t), s.header(), r.cfg.duration, r.cfg.warmup)
			if err != nil {
				return nil, fmt.Errorf("%s, %s: %w", s.name, where, err)
			}
			if s == e {
				p.edge = append(p.edge, l)
			} else {
				p.nginx = append(p.nginx, l)
			}
		}
	}
	return p, nil
}

// pairSection writes the edge against nginx in both placements.
func (rep *report) pairSection(p func(format string, args ...any)) {
	if len(rep.pairs) == 0 {
		return
	}
	t := rep.pairs[0].target
	p("## Edge vs nginx: one core each, and all cores\n\n")
	p("`redirects serve` against nginx (maps) on the exact hit `%s`, the two servers started side by side and measured in turn (%s, who goes first alternating), with wrk on the same machine:\n\n", t.path, rounds(rep.cfg.rounds))
	p("- one core each: the edge with `GOMAXPROCS=1` (one event loop) and nginx with `master_process off; worker_processes 1;`, both pinned to CPU 0 (`taskset -c 0`), wrk pinned to CPU 1;\n")
	p("- all cores: the defaults, nothing pinned: the edge with one event loop per CPU (GOMAXPROCS = %s), nginx with a master and `worker_processes auto;`, wrk (`-t1 -c64`) sharing the same CPUs. CPU/request counts nginx's master and workers.\n\n", rep.machine.nproc)
	p("| placement | server | req/s, each round | CPU/request, each round | req/s, median | CPU/request, median | vs nginx: req/s | vs nginx: CPU/request | errors |\n")
	p("|---|---|---|---|---:|---:|---:|---:|---|\n")
	for _, pr := range rep.pairs {
		where := map[placement]string{oneCore: "one core each", allCores: "all cores"}[pr.at]
		for _, side := range []struct {
			name string
			ls   []*load
		}{{"nginx (maps)", pr.nginx}, {"redirects serve", pr.edge}} {
			var rs, cs, errs []string
			for _, l := range side.ls {
				rs = append(rs, num(int(l.RPS)))
				cs = append(cs, us(l.CPUPerReq))
				if e := l.errorsNote(); e != "" {
					errs = append(errs, e)
				}
			}
			vr, vc := "-", "-"
			if side.name == "redirects serve" {
				vr = ratio(median(pr.edge, rps), median(pr.nginx, rps))
				vc = ratio(median(pr.edge, cpu), median(pr.nginx, cpu))
			}
			p("| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", where, side.name, join(rs), join(cs),
				num(int(median(side.ls, rps))), us(time.Duration(median(side.ls, cpu))), vr, vc, dash(join(errs)))
		}
	}
	p("\nThe ratios are of the medians. CPU/request is the server's user+system time over the run divided by the requests wrk completed; on all cores it includes what the server spends waking and sleeping while wrk has the CPU.\n\n")
}

func join(s []string) string {
	out := ""
	for i, x := range s {
		if i > 0 {
			out += ", "
		}
		out += x
	}
	return out
}

func rounds(n int) string {
	if n == 1 {
		return "one round"
	}
	return fmt.Sprintf("%d rounds", n)
}
