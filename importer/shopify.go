package importer

import (
	"bytes"
	"encoding/csv"
	"errors"
	"io"
	"strings"

	"redirects"
)

// Shopify's URL redirects CSV (help.shopify.com, "URL redirects":
// "Redirect from,Redirect to", the file its admin imports and exports).
// Each row redirects one path with a 301; Shopify has no wildcards, and
// never redirects paths under /apps, /application, /cart, /carts,
// /orders, /shop or /services.
func init() {
	Register(&Format{
		Name:     "shopify",
		Title:    "Shopify URL redirects CSV",
		Defaults: &redirects.Settings{CaseInsensitive: true, IgnoreTrailingSlash: true},
		DefaultsWhy: "Shopify matches a redirect's path without regard to its letters' case " +
			"(its storefronts look redirects up by the lower-cased path) or a trailing slash",
		Detect: detectShopify,
		Read:   readShopify,
		Example: "Redirect from,Redirect to\n" +
			"/old-product,/products/new-product\n" +
			"/pages/About-Us,/pages/about\n" +
			"https://shop.example.com/legacy,https://example.com/new\n" +
			"/blog?page=2,/blogs/news\n" +
			"/cart/old,/cart\n",
	})
}

// shopifyReserved are the path prefixes Shopify never redirects (its help
// page "URL redirects"), read as whole segments.
var shopifyReserved = []string{"/apps", "/application", "/cart", "/carts", "/orders", "/shop", "/services"}

// detectShopify: a first line that names the columns Redirect from and
// Redirect to.
func detectShopify(head []byte, _ string) (bool, string) {
	head = bytes.TrimPrefix(head, []byte("\uFEFF"))
	first, _, _ := bytes.Cut(head, []byte("\n"))
	cols := map[string]bool{}
	for _, c := range strings.Split(string(first), ",") {
		cols[foldHeader(c)] = true
	}
	if cols["redirectfrom"] && cols["redirectto"] {
		return true, "its header names the columns Redirect from and Redirect to"
	}
	return false, ""
}

func readShopify(in io.Reader, o *Options, sink *Sink) error {
	r := newCSVReader(in)
	from, to := -1, -1
	for first := true; ; first = false {
		rec, err := r.Read()
		if err == io.EOF {
			if first {
				sink.Bad(1, "the file is empty; it needs the header Redirect from,Redirect to")
			}
			return nil
		}
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				sink.Bad(pe.StartLine, "%v", pe.Err)
				if pe.Err == csv.ErrBareQuote || pe.Err == csv.ErrQuote {
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
			for i, c := range rec {
				switch foldHeader(c) {
				case "redirectfrom":
					from = i
				case "redirectto":
					to = i
				}
			}
			if from < 0 || to < 0 {
				sink.Bad(line, "the header must name the columns Redirect from and Redirect to")
				return nil
			}
			continue
		}
		if len(rec) == 1 && strings.TrimSpace(rec[0]) == "" {
			continue
		}
		if from >= len(rec) || to >= len(rec) {
			sink.Bad(line, "want the columns Redirect from and Redirect to, got %d values", len(rec))
			continue
		}
		readShopifyRow(line, strings.TrimSpace(rec[from]), strings.TrimSpace(rec[to]), o, sink)
		if sink.KeepsText(line) {
			// Only the text of a changed or skipped line, or of one that
			// became a rule (finish may skip it as shadowed), is kept: the
			// join is not made for the others.
			sink.Text(line, strings.Join(rec, ","))
		}
	}
}

func readShopifyRow(n int, src, dst string, o *Options, sink *Sink) {
	if src == "" || dst == "" {
		sink.Bad(n, "Redirect from and Redirect to must both be given")
		return
	}
	if _, host, p, ok := splitSourceURL(src); ok {
		// Shopify keeps the path of a full URL.
		note, skip := hostDecision(o, host, false)
		if skip != "" {
			sink.Skip(n, "%s", skip)
			return
		}
		if note != "" {
			sink.Note(n, "%s", note)
		}
		src = p
	} else if !strings.HasPrefix(src, "/") {
		// Shopify puts a '/' before a path without one.
		src = "/" + src
	}
	if i := strings.IndexByte(src, '?'); i >= 0 {
		sink.Skip(n, "query %s: our rules do not match on the query string, so they would redirect %s without it too", src[i:], src[:i])
		return
	}
	if i := strings.IndexByte(src, '#'); i >= 0 {
		src = src[:i] // a fragment never reaches the server
	}
	for _, pre := range shopifyReserved {
		if hasSegmentPrefixFold(src, pre) {
			sink.Skip(n, "Shopify never redirects paths under %s, so this row never answered there", pre)
			return
		}
	}
	if !strings.HasPrefix(dst, "/") && !strings.Contains(dst, "://") {
		dst = "/" + dst
	}
	// Shopify answers with the target as stored: Hydrogen's
	// storefrontRedirect (Shopify/hydrogen, routing/redirect.ts) sends the
	// redirect's target as the Location, without the request's query.
	sink.Rule(n, redirects.Rule{Source: src, Destination: dst, StatusCode: 301, Priority: redirects.DefaultPriority})
}

// hasSegmentPrefixFold reports whether p is pre or begins with pre + "/",
// without regard to ASCII case.
func hasSegmentPrefixFold(p, pre string) bool {
	if len(p) < len(pre) || !strings.EqualFold(p[:len(pre)], pre) {
		return false
	}
	return len(p) == len(pre) || p[len(pre)] == '/'
}
