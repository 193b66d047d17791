//go:build linux

package main

import (
	"context"
	"fmt"
	"os"
	"strings"
	"syscall"
	"time"

	"redirects/importer"
	"redirects/internal/hostileimport"
)

// imports sends every hostile import shape (internal/hostileimport) of
// -import-mb through the management API of a node of its own, with
// dry_run=true, and prints for each: the answer and its size, the node's
// RSS growth, and the CPU ticks it used in the second after the answer;
// a shape slower than a second is sent again and the client leaves after
// a second, to see the node stop. Each shape has a node of its own. Its goals, as the resource test's
// (cmd/redirects/resources_test.go): the node up after each shape, RSS
// growth under 4 times the file's size, answers under 1 MiB, at most 20
// ticks (0.2 s) of CPU in that second.
func (b *bench) imports(ctx context.Context) (missed int, err error) {
	ds, err := b.dataset(ctx, "imports", 1000, 1)
	if err != nil {
		return 0, err
	}
	token, err := b.cli(ctx, ds, "token", "create", "--org", ds.org, "--role", "editor", "--name", "hostile imports")
	if err != nil {
		return 0, err
	}
	n, err := b.quietServe(ctx, ds)
	if err != nil {
		return 0, err
	}
	defer func() { n.stop() }()
	size := int64(b.cfg.importMB) << 20
	fmt.Printf("\n== imports: hostile files of %d MiB through POST .../imports?dry_run=true, pid %d\n", b.cfg.importMB, n.pid)
	fmt.Printf("%-32s %6s %10s %9s %9s %10s %6s  %s\n", "shape", "status", "reply", "sent MiB", "took", "RSS+ MiB", "ticks", "notes")
	const idle = 20
	for _, s := range hostileimport.Shapes(importer.FormatNames()[1:]) {
		if ctx.Err() != nil {
			return missed, ctx.Err()
		}
		if !wanted(s.Name, b.cfg.importShapes) {
			continue
		}
		node := hostileimport.Node{PID: n.pid, Manage: "http://" + n.manage, Project: ds.project, Token: token}
		runs := []hostileimport.Result{hostileimport.Send(node, s, size, hostileimport.Options{})}
		if runs[0].Took > time.Second && runs[0].Cut == "" {
			runs = append(runs, hostileimport.Send(node, s, size, hostileimport.Options{CutAfter: time.Second}))
		}
		for i, r := range runs {
			var notes []string
			if r.Cut != "" {
				notes = append(notes, "cut: "+r.Cut)
			}
			if r.Status == 0 && r.Cut == "" {
				notes = append(notes, fmt.Sprintf("no answer: %v", r.Err))
			}
			if r.Growth >= 4*size || r.Reply >= 1<<20 || r.IdleTicks > idle || r.IdleTicks < 0 || (i == 0 && r.Cut != "") {
				missed++
				notes = append(notes, "GOAL MISSED")
			}
			name := r.Shape
			if i > 0 {
				name += " (left)"
			}
			fmt.Printf("%-32s %6d %10d %9d %8.2fs %10d %6d  %s\n", name, r.Status, r.Reply, r.Sent>>20, r.Took.Seconds(), r.Growth>>20, r.IdleTicks, strings.Join(notes, "; "))
		}
		if up, _ := get("http://"+n.edge+lookupPath(ds, ds.hit), ds.keys[0]); up != 200 {
			missed++
			fmt.Printf("%-32s the node does not answer lookups (%d): GOAL MISSED\n", s.Name, up)
		}
		// A node of its own for each shape: Go keeps the heap an import
		// grew, so a node that took one shape would take the next within
		// it, and its growth would read as none.
		syscall.Kill(n.pid, syscall.SIGKILL)
		<-n.exited
		if n, err = b.quietServe(ctx, ds); err != nil {
			return missed, err
		}
	}
	return missed, nil
}

// wanted reports whether a shape's name holds one of the comma-separated
// words of filter (all when filter is empty).
func wanted(name, filter string) bool {
	if filter == "" {
		return true
	}
	for _, w := range strings.Split(filter, ",") {
		if w = strings.TrimSpace(w); w != "" && strings.Contains(name, w) {
			return true
		}
	}
	return false
}

// quietServe is serve without its line on the standard output, for the
// node of each shape.
func (b *bench) quietServe(ctx context.Context, ds *dataset) (*node, error) {
	out := os.Stdout
	os.Stdout, _ = os.Open(os.DevNull)
	defer func() { os.Stdout.Close(); os.Stdout = out }()
	return b.serve(ctx, ds)
}
