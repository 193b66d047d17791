package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"redirects"
	"redirects/api"
	"redirects/safety"
)

// testCommands are test and test set: expected-outcome tests.
var testCommands = []command{
	{
		name:     "test",
		synopsis: []string{"--project P [FILE] [--version N|draft|live] [--junit FILE] [--host H]... [--json]"},
		summary:  "check expected outcomes from a file against a version",
		about: "FILE is CSV with the header path,status,destination[,final_destination][,host] (the last two\n" +
			"optional, in either order), one case a line. path is the request as a client sends it (a query\n" +
			"string included); status is 301, 302, 303, 307 or 308 with the destination the answer must\n" +
			"carry, 410 (gone) with an empty destination, or none (or 204) with an empty destination for a\n" +
			"path no rule may answer; final_destination is where following the project's own rules must end;\n" +
			"host is the host the case's request is for (empty: a lookup without a host, which only rules\n" +
			"without a host answer). Exits 1 when a case fails.\n" +
			"Without FILE, the project's stored test file.",
		example:  `redirects test --project "$PROJECT" cases.txt --junit results.xml`,
		readOnly: true,
		run:      (*cmd).test,
	},
	{
		name:     "test set",
		synopsis: []string{"--project P FILE|-"},
		remark:   "store the test file every deploy runs",
		summary:  "store the project's test file, which every deploy runs against the rules it puts live",
		about: "The file is checked first: a bad line is reported with its number and nothing is stored.\n" +
			"An empty file is refused; FILE - reads standard input.",
		example: `redirects test set --project "$PROJECT" cases.csv`,
		run:     (*cmd).testSet,
	},
}

func (c *cmd) test(ctx context.Context, args []string) error {
	fs := c.flags("test")
	project := fs.String("project", "", "project ID")
	version := fs.String("version", "draft", "draft, live or a version number")
	junit := fs.String("junit", "", "also write the results as JUnit XML to this file")
	var hosts hostsFlag
	fs.Var(&hosts, "host", "a `HOST` of the project's own (repeatable), for final destinations")
	asJSON := fs.Bool("json", false, "print JSON")
	pos, err := parseOptional(fs, args, "FILE")
	if err != nil {
		return err
	}
	if err := required(fs, "project"); err != nil {
		return err
	}
	spec, err := parseVersion("version", *version, true)
	if err != nil {
		return err
	}
	var cases []safety.Case
	if len(pos) == 1 {
		f, err := os.Open(pos[0])
		if err != nil {
			return redirects.Errorf(redirects.EINVALID, "test file: %v", err)
		}
		cases, err = safety.ParseCases(f)
		f.Close()
		if err != nil {
			return redirects.Errorf(redirects.EINVALID, "%s: %s", pos[0], redirects.ErrorMessage(err))
		}
	}
	svc, err := c.services(ctx)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		csv, err := svc.Deploys.Tests(ctx, *project)
		if err != nil {
			return err
		}
		if csv == "" {
			return usagef("test takes FILE: project %s has no stored test file (store one with \"redirects test set --project %s FILE\")", *project, *project)
		}
		if cases, err = safety.ParseCases(strings.NewReader(csv)); err != nil {
			return redirects.Errorf(redirects.EINVALID, "the stored test file: %s", redirects.ErrorMessage(err))
		}
	}
	t, err := c.load(ctx, *project, spec, false)
	if err != nil {
		return err
	}
	results := t.RunCases(cases, safety.LintOptions{Hosts: hosts})
	failed := safety.Failed(results)
	if *junit != "" {
		if err := writeJUnit(*junit, "redirects."+*project, results); err != nil {
			return err
		}
	}
	if *asJSON {
		if err := c.printJSON(api.TestReport{Target: t.Name, Cases: len(results), Failed: failed, Results: results}); err != nil {
			return err
		}
	} else {
		bw := bufio.NewWriter(c.m.Stdout)
		for _, r := range results {
			if r.Pass {
				fmt.Fprintf(bw, "ok    line %d: %s%s: %s\n", r.Case.Line, r.Case.Path, onHost(r.Case.Host), r.Got)
			} else {
				fmt.Fprintf(bw, "FAIL  line %d: %s%s: %s\n", r.Case.Line, r.Case.Path, onHost(r.Case.Host), strings.Join(r.Problems, "; "))
			}
		}
		if err := bw.Flush(); err != nil {
			return err
		}
	}
	summary := fmt.Sprintf("test of %s: %s, %d failed", t.Name, plural(len(results), "case", "cases"), failed)
	if failed > 0 {
		return blocked("%s", summary)
	}
	c.infof("%s", summary)
	return nil
}

func (c *cmd) testSet(ctx context.Context, args []string) error {
	fs := c.flags("test set")
	project := fs.String("project", "", "project ID")
	pos, err := parse(fs, args, "FILE")
	if err != nil {
		return err
	}
	if err := required(fs, "project"); err != nil {
		return err
	}
	var body []byte
	if pos[0] == "-" {
		body, err = io.ReadAll(io.LimitReader(c.m.Stdin, redirects.MaxTestsLen+1))
	} else {
		body, err = os.ReadFile(pos[0])
	}
	if err != nil {
		return redirects.Errorf(redirects.EINVALID, "test file: %v", err)
	}
	if len(body) == 0 {
		return redirects.Errorf(redirects.EINVALID, "%s is empty; its first line must be the header %s", pos[0], strings.Join(safety.CasesHeader[:3], ","))
	}
	n, err := safety.CountTests(string(body))
	if err != nil {
		return redirects.Errorf(redirects.EINVALID, "%s: %s", pos[0], redirects.ErrorMessage(err))
	}
	svc, err := c.services(ctx)
	if err != nil {
		return err
	}
	if _, err := svc.Deploys.SetTests(ctx, *project, string(body)); err != nil {
		return err
	}
	c.infof("stored the test file of %s: %s; every deploy runs them", *project, plural(n, "case", "cases"))
	return nil
}

// writeJUnit writes the JUnit report to path, replacing it only once it is
// complete.
func writeJUnit(path, suite string, results []safety.CaseResult) error {
	tmp := path + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return redirects.Errorf(redirects.EINVALID, "--junit: %v", err)
	}
	err = safety.WriteJUnit(f, suite, results)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return redirects.Errorf(redirects.EINVALID, "--junit: %v", err)
	}
	return nil
}
