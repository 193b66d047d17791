package importer

import (
	"bytes"
	"encoding/csv"
	"errors"
	"io"
	"regexp"
	"strconv"
	"strings"

	"redirects"
)

// Cloudflare Bulk Redirects, the CSV file of a Bulk Redirect List
// (https://developers.cloudflare.com/rules/url-forwarding/bulk-redirects/,
// its "CSV file format", "URL redirect parameters" and "How Bulk Redirects
// work"): no header, one URL redirect a line,
//
//	source_url,target_url[,status,preserve_query_string,include_subdomains,subpath_matching,preserve_path_suffix]
//
// The source URL has a host and no query; Cloudflare picks the most
// specific source that matches, not the first line.
func init() {
	Register(&Format{
		Name:     "cloudflare",
		Title:    "Cloudflare Bulk Redirects CSV",
		Defaults: &redirects.Settings{},
		DefaultsWhy: "Cloudflare Bulk Redirects compare the path exactly: its letters' case and a trailing slash count " +
			"(Cloudflare's URL normalisation changes neither)",
		Detect: detectCloudflare,
		Read:   readCloudflare,
		Example: "example.com/contacts,https://example.com/contact-us,301,,,,\n" +
			"example.com/about,/about-us,,TRUE,,,\n" +
			"example.com/docs/,https://docs.example.com/,308,TRUE,,TRUE,\n" +
			"example.com/blog,https://example.com/news,302,,,TRUE,FALSE\n" +
			"https://shop.example.com/sale,https://example.com/offers,307,,TRUE,,\n",
	})
}

// cfSourceShape is a source URL: an optional http(s) scheme, a host name
// with a dot, then nothing or a path.
var cfSourceShape = regexp.MustCompile(`^(?i:https?://)?[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)+(/|$)`)

// detectCloudflare: no header, and the first lines (up to five) are 2 to 7
// cells whose first is a host with a path (example.com/a), second a URL or
// path, and third empty or a status. The other CSV formats start with a
// header, whose first cell is a word.
func detectCloudflare(head []byte, _ string) (bool, string) {
	head = bytes.TrimPrefix(head, []byte("\uFEFF"))
	lines := strings.Split(string(head), "\n")
	if len(head) == HeadSize && len(lines) > 1 {
		lines = lines[:len(lines)-1]
	}
	seen := 0
	for _, l := range lines {
		l = strings.TrimSpace(l)
		if l == "" {
			continue
		}
		r := csv.NewReader(strings.NewReader(l))
		r.FieldsPerRecord = -1
		f, err := r.Read()
		if err != nil || len(f) < 2 || len(f) > 7 || !cfSourceShape.MatchString(f[0]) {
			return false, ""
		}
		if !strings.Contains(f[1], "://") && !strings.HasPrefix(f[1], "/") {
			return false, ""
		}
		if len(f) > 2 && f[2] != "" {
			if n, err := strconv.Atoi(f[2]); err != nil || n < 300 || n > 399 {
				return false, ""
			}
		}
		if seen++; seen == 5 {
			break
		}
	}
	if seen == 0 {
		return false, ""
	}
	return true, "its lines are source_url,target_url[,status,...] with a host in each source URL and no header"
}

// cfBool reads a boolean cell: TRUE, true, FALSE, false, or empty (def).
func cfBool(s string, def bool) (bool, bool) {
	switch strings.TrimSpace(s) {
	case "":
		return def, true
	case "TRUE", "true", "True":
		return true, true
	case "FALSE", "false", "False":
		return false, true
	}
	return false, false
}

var cfColumns = []string{"source_url", "target_url", "status", "preserve_query_string", "include_subdomains", "subpath_matching", "preserve_path_suffix"}

func readCloudflare(in io.Reader, o *Options, sink *Sink) error {
	r := newCSVReader(in)
	first := true
	for {
		rec, err := r.Read()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				sink.Bad(pe.StartLine, "%v", pe.Err)
				if pe.Err == csv.ErrBareQuote || pe.Err == csv.ErrQuote {
					// A broken quote: the lines after it can no longer be told apart.
					return nil
				}
				continue
			}
			if csvRecordTooLong(err, sink) {
				return nil
			}
			return err
		}
		line, _ := r.FieldPos(0)
		if first {
			rec[0] = trimLineBOM(rec[0])
			first = false
		}
		readCloudflareLine(line, rec, o, sink)
		if len(rec) > 1 && sink.KeepsText(line) {
			// Only the text of a changed or skipped line, or of one that
			// became a rule (finish may skip it as shadowed), is kept: the
			// join is not made for the others.
			sink.Text(line, strings.Join(rec, ","))
		}
	}
}

func readCloudflareLine(n int, rec []string, o *Options, sink *Sink) {
	if len(rec) == 1 && strings.TrimSpace(rec[0]) == "" {
		return
	}
	if len(rec) < 2 || len(rec) > 7 {
		sink.Bad(n, "want 2 to 7 values (%s), got %d", strings.Join(cfColumns, ","), len(rec))
		return
	}
	src, target := strings.TrimSpace(rec[0]), strings.TrimSpace(rec[1])
	get := func(i int) string {
		if i < len(rec) {
			return rec[i]
		}
		return ""
	}
	status := 301
	if s := strings.TrimSpace(get(2)); s != "" {
		v, err := strconv.Atoi(s)
		if err != nil || (v != 301 && v != 302 && v != 307 && v != 308) {
			sink.Bad(n, "status %q is not one of 301, 302, 307, 308", s)
			return
		}
		status = v
	}
	flags := [4]bool{}
	for i := 0; i < 4; i++ {
		def := i == 3 // preserve_path_suffix defaults to true
		v, ok := cfBool(get(3+i), def)
		if !ok {
			sink.Bad(n, "%s %q is not TRUE or FALSE", cfColumns[3+i], get(3+i))
			return
		}
		flags[i] = v
	}
	pq, subdomains, subpath, suffix := flags[0], flags[1], flags[2], flags[3]
	if src == "" || target == "" {
		sink.Bad(n, "the source URL and the target URL are required")
		return
	}
	scheme, host, path := "", "", ""
	if sch, h, p, ok := splitSourceURL(src); ok {
		scheme, host, path = sch, h, p
	} else if strings.Contains(src, "://") {
		sink.Bad(n, "source URL %s: only http and https schemes are allowed", quoteField(src))
		return
	} else {
		host, path = src, "/"
		if i := strings.IndexByte(src, '/'); i >= 0 {
			host, path = src[:i], src[i:]
		}
	}
	if host == "" || strings.ContainsAny(host, " @") {
		sink.Bad(n, "source URL %s needs a host (example.com/path)", quoteField(src))
		return
	}
	if strings.ContainsAny(path, "?#") {
		sink.Bad(n, "source URL %s: Cloudflare's source URLs hold no query string or fragment", quoteField(src))
		return
	}
	if subpath && strings.Count(path, "/") > 16 {
		sink.Bad(n, "source URL %s: Cloudflare takes at most 16 '/' in a source path with subpath matching", quoteField(src))
		return
	}
	note, skip := hostDecision(o, host, false)
	if skip != "" {
		sink.Skip(n, "%s", skip)
		return
	}
	if note != "" {
		sink.Note(n, "%s", note)
	}
	if scheme != "" {
		sink.Note(n, "scheme condition dropped: Cloudflare redirects %s:// requests only; here the rule answers every request", scheme)
	}
	if subdomains {
		sink.Note(n, "include_subdomains dropped: Cloudflare also redirects the subdomains of %s; here the rule answers on the project's hosts only", strings.ToLower(host))
	}
	base := redirects.Rule{Source: path, Destination: target, StatusCode: status, Priority: redirects.DefaultPriority, PreserveQuery: pq}
	if !subpath {
		sink.Rule(n, base)
		return
	}
	// Subpath matching takes whole segments: /blog matches /blog and
	// /blog/x, not /blogger. The path suffix joins the target's path with
	// one '/'.
	dpath, _, _ := redirects.SplitDestination(target)
	if strings.HasSuffix(path, "/") && (!suffix || strings.HasSuffix(dpath, "/")) {
		r := base
		r.MatchType, r.PreservePath = redirects.StartsWith, suffix
		sink.Rule(n, r)
		return
	}
	sink.Rule(n, base)
	r := base
	r.MatchType, r.PreservePath = redirects.StartsWith, suffix
	if !strings.HasSuffix(path, "/") {
		r.Source = path + "/"
	}
	if suffix && !strings.HasSuffix(dpath, "/") {
		// The path part is target's prefix: the '/' goes after it.
		r.Destination = dpath + "/" + target[len(dpath):]
	}
	sink.Rule(n, r)
}
