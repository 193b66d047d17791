package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"

	"redirects"
	"redirects/api"
	"redirects/export"
	"redirects/importer"
	"redirects/manage"
)

// maxShownOutcomes caps the changed and skipped lines that the terminal
// report of an import lists; --json lists every one.
const maxShownOutcomes = 100

// ruleImportFrom is rule import with --from: the file is read by its
// format's reader (importer.Read), the report of every line printed, and the
// rules imported as the mode says.
func (c *cmd) ruleImportFrom(ctx context.Context, in io.Reader, name, from string, placeholders map[string][]string,
	project string, mode redirects.ImportMode, dryRun, asJSON bool, errorsFile string) error {
	svc, err := c.services(ctx)
	if err != nil {
		return err
	}
	p, err := svc.Imports.ImportTarget(ctx, project)
	if err != nil {
		return err
	}
	fileName := ""
	if name != "standard input" {
		fileName = filepath.Base(name)
	}
	res, err := importer.Read(ctx, in, from, importer.Options{Settings: p.Settings, Hosts: p.Hosts, Placeholders: placeholders, FileName: fileName, MaxRules: manage.MaxImportRows})
	if err != nil {
		var bad *importer.BadLinesError
		if errors.As(err, &bad) {
			problems := make([]string, len(bad.Lines))
			for i, l := range bad.Lines {
				problems[i] = fmt.Sprintf("line %d: %s", l.Line, l.Message)
			}
			return importFailed(redirects.EINVALID, name+" (read as "+bad.Format+")", strings.Join(problems, "\n"), errorsFile)
		}
		return redirects.Errorf(redirects.ErrorCode(err), "%s: nothing imported: %s", name, redirects.ErrorMessage(err))
	}
	rep, err := svc.Imports.Import(ctx, p.ID, res.Rules, redirects.ImportOptions{Mode: mode, DryRun: dryRun})
	if err != nil {
		if code := redirects.ErrorCode(err); code == redirects.EINVALID || code == redirects.ECONFLICT {
			return importFailed(code, name, export.RuleLines(redirects.ErrorMessage(err), res.RuleLines), errorsFile)
		}
		return err
	}
	if errorsFile != "" {
		if err := os.WriteFile(errorsFile, nil, 0o644); err != nil {
			return redirects.Errorf(redirects.EINVALID, "imported %d rules, but cannot write --errors-file: %v", len(res.Rules), err)
		}
	}
	if asJSON {
		return api.WriteMigrationCounts(c.m.Stdout, api.MigrationCounts{ImportCounts: api.ImportCountsOf(rep), UndoID: rep.UndoID, Migration: res})
	}
	bw := bufio.NewWriter(c.m.Stdout)
	printMigration(bw, res)
	w := tabwriter.NewWriter(bw, 0, 4, 2, ' ', 0)
	fmt.Fprintf(w, "added\t%d\nupdated\t%d\nunchanged\t%d\nremoved\t%d\n", rep.Added, rep.Updated, rep.Unchanged, rep.Removed)
	if err := w.Flush(); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	if dryRun {
		c.infof("dry run of %s %s import: nothing written", article(string(mode)), mode)
	} else if rep.UndoID > 0 {
		c.infof("undo it, until the draft changes again, with: redirects rule undo-import --project %s --import %d", p.ID, rep.UndoID)
	}
	return nil
}

// printMigration writes the terminal report of a read file: its format,
// the count of each class, every changed and skipped line (up to
// maxShownOutcomes) and the settings suggestion.
func printMigration(bw *bufio.Writer, res *importer.Result) {
	format := res.Format
	if res.Detected != "" {
		format += " (detected: " + res.Detected + ")"
	}
	w := tabwriter.NewWriter(bw, 0, 4, 2, ' ', 0)
	fmt.Fprintf(w, "format\t%s\n", format)
	fmt.Fprintf(w, "as is\t%s%s\n", lineCount(res.AsIs), rangesText(res.AsIsLines))
	fmt.Fprintf(w, "changed\t%s\n", lineCount(res.Changed))
	fmt.Fprintf(w, "skipped\t%s\n", lineCount(res.Skipped))
	w.Flush()
	if len(res.Lines) > 0 {
		w = tabwriter.NewWriter(bw, 0, 4, 2, ' ', 0)
		fmt.Fprintln(w, "LINE\tCLASS\tRULES\tWHAT")
		for i, o := range res.Lines {
			if i == maxShownOutcomes {
				w.Flush()
				fmt.Fprintf(bw, "... and %d more changed or skipped lines (--json lists every one)\n", len(res.Lines)-maxShownOutcomes)
				break
			}
			fmt.Fprintf(w, "%d\t%s\t%d\t%s\n", o.Line, o.Class, o.Rules, strings.Join(o.Notes, "; "))
		}
		w.Flush()
	}
	if res.Suggest != nil {
		fmt.Fprintf(bw, "suggestion: %s\n", res.Suggest.Why)
	}
	if res.SuggestHosts != nil {
		fmt.Fprintf(bw, "suggestion: %s\n", res.SuggestHosts.Why)
	}
}

func lineCount(n int) string {
	if n == 1 {
		return "1 line"
	}
	return strconv.Itoa(n) + " lines"
}

// rangesText is " (lines 1-10, 14)" for a few ranges, "" for none, and
// the first ranges then "..." for many.
func rangesText(r [][2]int) string {
	if len(r) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString(" (lines ")
	for i, x := range r {
		if i == 8 {
			b.WriteString(", ...")
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.Itoa(x[0]))
		if x[1] != x[0] {
			b.WriteString("-" + strconv.Itoa(x[1]))
		}
	}
	b.WriteString(")")
	return b.String()
}

// placeholderFlag collects --placeholder NAME=V1,V2 values.
type placeholderFlag map[string][]string

func (p placeholderFlag) String() string { return "" }
func (p placeholderFlag) Set(v string) error {
	return importer.ParsePlaceholder(p, v)
}

// ruleExport writes the draft in another platform's format (or as the
// draft CSV), and lists on stderr what that format cannot express.
func (c *cmd) ruleExport(ctx context.Context, args []string) error {
	fs := c.flags("rule export")
	project := fs.String("project", "", "project ID")
	to := fs.String("to", "csv", "the format: csv (the draft CSV, which rule import reads back), or "+strings.Join(writerNames(), ", "))
	out := fs.String("out", "", "write to `FILE` instead of standard output")
	asJSON := fs.Bool("json", false, "print what the format cannot express as JSON on stdout (needs --out)")
	if _, err := parse(fs, args); err != nil {
		return err
	}
	if err := required(fs, "project"); err != nil {
		return err
	}
	svc, err := c.services(ctx)
	if err != nil {
		return err
	}
	var wr *importer.Writer
	if *to != "csv" {
		if wr = importer.LookupWriter(*to); wr == nil {
			return usagef("rule export: --to %q is not one of csv, %s", *to, strings.Join(writerNames(), ", "))
		}
	}
	if *asJSON && *out == "" {
		return usagef("rule export: --json prints the report on stdout, so it needs --out FILE for the rules")
	}
	p, rules, err := svc.Rules.FindDraft(ctx, *project)
	if err != nil {
		return err
	}
	var dst io.Writer = c.m.Stdout
	var f *os.File
	if *out != "" {
		// Written beside the target and renamed, so a failure leaves no
		// half file.
		f, err = os.CreateTemp(filepath.Dir(*out), "."+filepath.Base(*out)+".*")
		if err != nil {
			return redirects.Errorf(redirects.EINVALID, "cannot write %s: %v", *out, errors.Unwrap(err))
		}
		defer os.Remove(f.Name())
		defer f.Close()
		dst = f
	}
	bw := bufio.NewWriter(dst)
	var unexpressed []importer.Unexpressed
	if wr == nil {
		err = export.WriteDraftCSV(bw, rules)
	} else {
		unexpressed, err = wr.Write(bw, rules, p.Settings, p.Hosts)
	}
	if err == nil {
		err = bw.Flush()
	}
	if err != nil {
		return err
	}
	if f != nil {
		if err := f.Close(); err != nil {
			return err
		}
		if err := os.Rename(f.Name(), *out); err != nil {
			return redirects.Errorf(redirects.EINVALID, "cannot write %s: %v", *out, errors.Unwrap(err))
		}
	}
	if *asJSON {
		if unexpressed == nil {
			unexpressed = []importer.Unexpressed{}
		}
		return c.printJSON(api.RulesExported{Format: *to, Rules: len(rules), Unexpressed: unexpressed})
	}
	for _, u := range unexpressed {
		what := "answers otherwise"
		if u.Dropped {
			what = "left out"
		}
		c.infof("rule %d (%s): %s: %s", u.RuleID, u.Source, what, u.Reason)
	}
	if len(unexpressed) > 0 {
		c.infof("%d of %d rules could not be written as they answer here (listed above)", len(unexpressed), len(rules))
	}
	return nil
}

func writerNames() []string {
	var names []string
	for _, w := range importer.Writers() {
		names = append(names, w.Name)
	}
	return names
}
