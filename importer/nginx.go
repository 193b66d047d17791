package importer

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"redirects"
	"redirects/engine/pattern"
)

// nginx configuration files and map files: location = / ^~ / prefix
// blocks with return, rewrite ... permanent|redirect, return in a server
// block, and map blocks (or map files) used by if ($var) { return NNN $var; }
// (https://nginx.org/en/docs/http/ngx_http_core_module.html#location,
// https://nginx.org/en/docs/http/ngx_http_rewrite_module.html,
// https://nginx.org/en/docs/http/ngx_http_map_module.html). It also reads
// the project's own nginx, nginx-map-exact and nginx-map-prefix exports.
// docs/migrate.md "nginx" says what each shape becomes.
//
// nginx does not answer with the first matching line: the server's rewrite
// directives run first, in order; then a location = with the path, else
// the longest matching prefix location (regular-expression locations,
// which this reader skips, are tried before a prefix location without ^~).
// Priorities model it: the server-level rules rank 0, 1, 2... in file order
// and beat every location; the prefix locations share priorityLocation, so
// the longest wins among them.
func init() {
	Register(&Format{
		Name:        "nginx",
		Title:       "nginx configuration or map file",
		Defaults:    &redirects.Settings{},
		DefaultsWhy: "nginx compares locations case-sensitively and with a trailing slash significant",
		Detect:      detectNginx,
		Read:        readNginx,
		Example: "server {\n" +
			"    rewrite ^/blog/(.*)$ /news/$1 permanent;\n" +
			"    location = /old { return 301 /new; }\n" +
			"    location ^~ /docs/ { return 308 https://docs.example.com/; }\n" +
			"    location = /gone { return 410; }\n" +
			"    if ($new_uri) { return 301 $new_uri; }\n" +
			"}\n" +
			"map $uri $new_uri {\n    /shop /store;\n    ~^/cart /basket;\n}\n",
	})
}

// priorityLocation is the priority of the rules of prefix locations: below
// (worse than) every server-level rule's.
const priorityLocation = redirects.MaxPriority

func detectNginx(head []byte, fileName string) (bool, string) {
	for line := range bytes.SplitSeq(head, []byte("\n")) {
		l := strings.TrimSpace(string(line))
		switch {
		case strings.HasPrefix(l, "location ") && strings.ContainsAny(l, "{"):
			return true, "a line opens an nginx location block"
		case strings.HasPrefix(l, "rewrite ") && strings.HasSuffix(l, ";"):
			return true, "a line is an nginx rewrite directive"
		case strings.HasPrefix(l, "map $") && strings.HasSuffix(l, "{"):
			return true, "a line opens an nginx map block"
		case strings.HasPrefix(l, "server {") || l == "server":
			return true, "a line opens an nginx server block"
		}
	}
	if strings.HasSuffix(fileName, ".map") {
		// A map file: every line "key value;".
		n := 0
		for line := range bytes.SplitSeq(head, []byte("\n")) {
			l := strings.TrimSpace(string(line))
			if l == "" || l[0] == '#' {
				continue
			}
			if !strings.HasSuffix(l, ";") || len(strings.Fields(l)) != 2 {
				return false, ""
			}
			n++
		}
		if n > 0 {
			return true, "the file is named .map and every line is \"key value;\""
		}
	}
	return false, ""
}

// nginxTokenizer splits nginx configuration text into words, ';', '{'
// and '}', with the line each starts on; quotes and backslashes as nginx
// reads them.
type nginxTokenizer struct {
	sc   *bufio.Scanner
	line int
	rest string
	err  error
	// raw is the text of the current line, for the report.
	raw string
}

type nginxToken struct {
	text   string
	line   int
	quoted bool
	punct  byte // ';', '{' or '}' for those, else 0
}

func (z *nginxTokenizer) next() (nginxToken, bool, string) {
	for {
		z.rest = strings.TrimLeft(z.rest, " \t\r")
		if z.rest == "" || z.rest[0] == '#' {
			if !z.sc.Scan() {
				z.err = z.sc.Err()
				return nginxToken{}, false, ""
			}
			z.line++
			z.raw = z.sc.Text()
			if z.line == 1 {
				z.raw = strings.TrimPrefix(z.raw, "\uFEFF")
			}
			z.rest = z.raw
			continue
		}
		c := z.rest[0]
		switch c {
		case ';', '{', '}':
			z.rest = z.rest[1:]
			return nginxToken{text: string(c), line: z.line, punct: c}, true, ""
		case '"', '\'':
			var b strings.Builder
			i := 1
			for {
				if i >= len(z.rest) {
					return nginxToken{}, false, "a quote is not closed on its line"
				}
				if z.rest[i] == '\\' && i+1 < len(z.rest) {
					switch n := z.rest[i+1]; n {
					case '"', '\'', '\\':
						b.WriteByte(n)
					case 't':
						b.WriteByte('\t')
					case 'r':
						b.WriteByte('\r')
					case 'n':
						b.WriteByte('\n')
					default:
						b.WriteByte('\\')
						b.WriteByte(n)
					}
					i += 2
					continue
				}
				if z.rest[i] == c {
					break
				}
				b.WriteByte(z.rest[i])
				i++
			}
			z.rest = z.rest[i+1:]
			return nginxToken{text: b.String(), line: z.line, quoted: true}, true, ""
		}
		// A '{' right after '$' opens a variable's braces (${name}), as
		// nginx's own reader takes it: it and its '}' belong to the word.
		i, braced := 0, false
		for i < len(z.rest) {
			d := z.rest[i]
			if d == '{' && i > 0 && z.rest[i-1] == '$' && !braced {
				braced = true
				i++
				continue
			}
			if d == '}' && braced {
				braced = false
				i++
				continue
			}
			if d == ' ' || d == '\t' || d == '\r' || d == ';' || d == '{' || (d == '}' && (i == 0 || z.rest[i-1] != '$')) {
				break
			}
			i++
		}
		t := z.rest[:i]
		z.rest = z.rest[i:]
		return nginxToken{text: t, line: z.line}, true, ""
	}
}

type nginxBlock struct {
	kind string // "server", "location", "if", "map", "http", "other"
	line int
	// location: its modifier and path; the rules of its return go there.
	mod, path string
	// if: the variable it tests, when it is "if ($var)" or "if ($var != '')".
	ifVar string
	// map: the variable it sets and the one it reads.
	mapVar, mapFrom string
	// returned: a return already ends the block at this line.
	returned int
	// skip is the count of path bytes the export's ifs on $request_uri
	// skip before the rest they append (the source of the rule that
	// answers the location), -1 before one.
	skip int
	// outer is the index in the reader's blocks of the innermost block
	// around this one, itself included, that is not an if (-1 for none),
	// set as it opens.
	outer int
}

// maxNginxDepth caps how deeply blocks nest: a deeper one is a bad line,
// and the read stops there.
const maxNginxDepth = 64

// nginxMap is what the reader knows of a map: the rules its entries
// became, whose status and priority its use sets.
type nginxMap struct {
	from      string
	rules     []int // indices in the sink's rules
	firstLine int
	used      bool
	ours      bool // the project's nginx-map-prefix export: "STATUS DEST" values
	oursExact bool // the project's nginx-map-exact export: served as 301
	// helper: a map of the project's exports that computes a destination
	// (redirect_prefix_rule_K) or "&$args"; def is its default value, and
	// query says it appends the request's query.
	helper bool
	def    string
	query  bool
	// qaf says the query is appended after the fragment.
	qaf bool
	// code is the status of the use above the map's definition, 0 else.
	code int
}

// ifCondition returns what an if tests: the variable name for "($var)"
// and "($var != ”)", else "?" and the condition's words.
func ifCondition(w []nginxToken) string {
	var words []string
	for i, t := range w {
		x := t.text
		if i == 0 && !t.quoted {
			x = strings.TrimPrefix(x, "(")
		}
		if i == len(w)-1 && !t.quoted {
			x = strings.TrimSuffix(x, ")")
			if x == "" && !t.quoted {
				continue
			}
		}
		words = append(words, x)
	}
	switch {
	case len(words) == 1 && strings.HasPrefix(words[0], "$"):
		return words[0][1:]
	case len(words) == 3 && strings.HasPrefix(words[0], "$") && words[1] == "!=" && (words[2] == "" || words[2] == "0"):
		return words[0][1:]
	}
	return "?" + strings.Join(words, " ")
}

type nginxExact struct {
	src string
	// raw is the line's text, kept once the server has a prefix rewrite.
	raw         string
	line        int32
	serverLevel bool
}

type nginxReader struct {
	o      *Options
	sink   *Sink
	blocks []nginxBlock
	maps   map[string]*nginxMap
	// rank is the next server-level priority.
	rank    int
	servers int
	// regexLocs: a regular-expression location was seen in this server.
	regexLocs int
	plain     []int // lines of the rules of plain prefix locations in this server
	// regexRead: lines of regular-expression locations read as literals;
	// strict counts the = and ^~ locations of the server.
	regexRead []int
	strict    int
	// regexRules: lines of regular-expression locations read as regex
	// rules; carets counts the ^~ locations of the server, which nginx
	// prefers to them when the longest prefix.
	regexRules []int
	carets     int
	// serverRegex are the server-level rewrites read as regex rules, for
	// the exact rules whose paths they take first.
	serverRegex []earlierRegex
	// serverPrefix maps the source of each server-level starts_with rule
	// of this server to its line; exacts are the server's exact rules.
	serverPrefix map[string]int
	exacts       []nginxExact
	// spans are the server blocks, in file order.
	spans []nginxServer
	// mapFile: entries at the top level make the file a map file.
	mapFile *nginxMap
	// pending are the uses of maps defined further down: variable ->
	// the line and status of the if's return.
	pending map[string][2]int
	// serverReturns are the lines of the returns in server blocks, noted
	// once the file is read (noteServerReturns).
	serverReturns []int
}

// noteServerReturns notes each return of a server block: it redirects
// every path of the server, whatever port or scheme the server listens on,
// unless every server block of the file listens with ssl only and on the
// same ports, where the edge, behind TLS, answers what the file's servers
// answer.
func (r *nginxReader) noteServerReturns() {
	uniform := len(r.spans) > 0
	for _, sv := range r.spans {
		if !sv.ssl || sv.plain || !slices.Equal(sv.portsOf(), r.spans[0].portsOf()) {
			uniform = false
		}
	}
	for _, line := range r.serverReturns {
		if !uniform {
			r.sink.Note(line, "a return in the server block redirects every path of the server: read as starts_with /, whatever port or scheme the server listens on")
		}
	}
}

func readNginx(in io.Reader, o *Options, sink *Sink) error {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	z := &nginxTokenizer{sc: sc}
	r := &nginxReader{o: o, sink: sink, maps: map[string]*nginxMap{}, pending: map[string][2]int{}}
	var words []nginxToken
	for {
		tok, ok, bad := z.next()
		if bad != "" {
			sink.Bad(z.line, "%s", bad)
			z.rest = ""
			words = words[:0]
			continue
		}
		if !ok {
			break
		}
		switch tok.punct {
		case ';':
			if len(words) == 0 {
				sink.Bad(tok.line, "an empty directive (a stray ';')")
				continue
			}
			r.directive(words, z.raw)
			words = words[:0]
		case '{':
			if len(r.blocks) >= maxNginxDepth {
				sink.Bad(tok.line, "the block is nested more than %d levels deep", maxNginxDepth)
				return nil
			}
			if len(words) == 0 {
				sink.Bad(tok.line, "a block with no directive before '{'")
				words = words[:0]
				r.push(nginxBlock{kind: "other", line: tok.line})
				continue
			}
			r.open(words, z.raw)
			words = words[:0]
		case '}':
			if len(words) > 0 {
				sink.Bad(words[0].line, "the directive %s does not end with ';'", words[0].text)
				words = words[:0]
			}
			if len(r.blocks) == 0 {
				sink.Bad(tok.line, "'}' closes no block")
				continue
			}
			r.close()
		default:
			words = append(words, tok)
		}
	}
	if z.err != nil {
		return z.err
	}
	if len(words) > 0 {
		sink.Bad(words[0].line, "the directive %s does not end with ';'", words[0].text)
	}
	for _, b := range r.blocks {
		sink.Bad(b.line, "the %s block is not closed", b.kind)
	}
	r.scopeHosts()
	r.noteServerReturns()
	r.finishMaps()
	return nil
}

func (r *nginxReader) top() *nginxBlock {
	if len(r.blocks) == 0 {
		return nil
	}
	return &r.blocks[len(r.blocks)-1]
}

func (r *nginxReader) open(w []nginxToken, raw string) {
	line := w[0].line
	b := nginxBlock{kind: "other", line: line}
	switch w[0].text {
	case "http":
		b.kind = "http"
	case "server":
		if t := r.top(); t == nil || t.kind == "http" {
			b.kind = "server"
			r.servers++
			r.spans = append(r.spans, nginxServer{line: line, start: r.sink.numRules(), end: -1})
			r.regexLocs, r.plain, r.regexRead, r.strict = 0, nil, nil, 0
			r.regexRules, r.carets, r.serverRegex = nil, 0, nil
			r.serverPrefix, r.exacts = map[string]int{}, nil
		}
	case "location":
		b.kind = "location"
		switch {
		case len(w) == 3:
			b.mod, b.path = w[1].text, w[2].text
		case len(w) == 2:
			b.path = w[1].text
			if strings.HasPrefix(b.path, "=") && len(b.path) > 1 {
				b.mod, b.path = "=", b.path[1:]
			}
		default:
			r.sink.Bad(line, "location takes [modifier] uri")
		}
		switch b.mod {
		case "", "=", "^~":
			if b.mod != "" {
				r.strict++
			}
			if b.mod == "^~" {
				r.carets++
			}
		case "~", "~*":
			r.regexLocs++
			// ~* of a path with letters is read as a regex rule with
			// (?i) unless the project compares regardless of case.
			ciLetters := w[1].text == "~*" && !r.o.Settings.CaseInsensitive
			if src, exact, ok := ourRegexLocation(b.path); ok && !(ciLetters && hasLetter(src)) {
				b.mod, b.path = "ours~", src
				r.regexRead = append(r.regexRead, line)
				if exact {
					b.mod = "ours~="
				}
				if w[1].text == "~*" && !r.o.Settings.CaseInsensitive && hasLetter(src) {
					r.sink.Note(line, "~* matches regardless of case; here as the project compares, case-sensitively")
				}
			}
		case "@":
		default:
			r.sink.Bad(line, "unknown location modifier %s", b.mod)
		}
	case "if":
		b.kind = "if"
		b.ifVar = ifCondition(w[1:])
	case "map":
		b.kind = "map"
		if len(w) != 3 || !strings.HasPrefix(w[1].text, "$") || !strings.HasPrefix(w[2].text, "$") {
			r.sink.Bad(line, "map takes $source $variable")
			break
		}
		b.mapFrom, b.mapVar = w[1].text[1:], w[2].text[1:]
		m := &nginxMap{from: b.mapFrom}
		r.maps[b.mapVar] = m
		if p, ok := r.pending[b.mapVar]; ok {
			// Used above: nginx defines maps for the whole http block.
			delete(r.pending, b.mapVar)
			m.used, m.code = true, p[1]
		}
		switch {
		case b.mapVar == "redirect_prefix" && b.mapFrom == "uri":
			m.ours = true
		case b.mapVar == "redirect_exact" && b.mapFrom == "uri":
			m.oursExact = true
		case strings.HasPrefix(b.mapVar, "redirect_prefix_rule_") && b.mapFrom == "request_uri",
			b.mapFrom == "args" && (b.mapVar == "redirect_exact_args" || b.mapVar == "redirect_prefix_args"):
			// The helper maps of the project's own exports: read with
			// the map that uses them.
			m.helper = true
		}
	}
	r.push(b)
}

// push opens b, noting the innermost block around it that is not an if.
func (r *nginxReader) push(b nginxBlock) {
	b.outer = len(r.blocks)
	if b.kind == "if" {
		b.outer = -1
		if t := r.top(); t != nil {
			b.outer = t.outer
		}
	}
	r.blocks = append(r.blocks, b)
}

// outerOf returns the innermost block around t (the top block), t
// included, that is not an if, or nil.
func (r *nginxReader) outerOf(t *nginxBlock) *nginxBlock {
	if t == nil || t.outer < 0 {
		return nil
	}
	return &r.blocks[t.outer]
}

func (r *nginxReader) close() {
	b := r.blocks[len(r.blocks)-1]
	r.blocks = r.blocks[:len(r.blocks)-1]
	if b.kind != "server" {
		return
	}
	if n := len(r.spans); n > 0 {
		r.spans[n-1].end = r.sink.numRules()
	}
	if r.regexLocs > 0 {
		for _, l := range r.plain {
			r.sink.Note(l, "nginx tries the server's regular-expression locations before a prefix location without ^~: one of them may take a path here answered by this location")
		}
	}
	if r.strict > 0 {
		for _, l := range r.regexRead {
			r.sink.Note(l, "a regular-expression location, read as a literal: nginx prefers the server's = and ^~ locations to it, here it comes first")
		}
	}
	if r.carets > 0 {
		for _, l := range r.regexRules {
			r.sink.Note(l, "nginx prefers the server's ^~ location to a regular-expression location when it is the longest prefix of the path; here this rule comes first")
		}
	}
	// An exact rule whose path a server-level rewrite read as a regex
	// rule takes first.
	for _, e := range r.exacts {
		if l := coveringRegex(r.serverRegex, "", e.src); l != 0 {
			r.sink.Note(int(e.line), "nginx answers %s with line %d, a rewrite in the server block, which runs before the locations; here the exact rule wins", e.src, l)
			r.sink.Text(int(e.line), e.raw)
		}
	}
	// An exact rule whose path a server-level prefix rule takes first.
	if len(r.serverPrefix) > 0 {
		// A set of the prefixes, so that each exact path is looked at
		// once, not once per length.
		set := newPrefixSet()
		for src, l := range r.serverPrefix {
			set.add(src, l)
		}
		for _, e := range r.exacts {
			set.each(e.src, func(pl int) bool {
				if line := int(e.line); !e.serverLevel || pl < line {
					r.sink.Note(line, "nginx answers %s with line %d, a rewrite or map used in the server block, which runs before the locations (or comes first); here the exact rule wins", e.src, pl)
					r.sink.Text(line, e.raw)
					return false
				}
				return true
			})
		}
	}
}

// scopeNote notes on line what the enclosing blocks change: nothing, as
// scopeHosts scopes a server block's rules once the file is read.
func (r *nginxReader) scopeNote(line int) {}

// nginxServer is a server block: its rules (indexes start to end of the
// sink's), its names and whether it is the default server of its port.
type nginxServer struct {
	line, start, end int
	names            []string
	dflt             bool
	// ssl and plain: whether the server listens with ssl, and without.
	ssl, plain bool
	// ports are the ports it listens on (listenPort), "80" without a
	// listen directive; addrs the addresses with their ports
	// (listenAddr); defaults those of its listens with default_server.
	ports, addrs, defaults []string
}

// listenPort is the port of a listen directive's address, by which two
// server blocks share a listen: "443" of "[::]:443", "443" and
// "127.0.0.1:443"; "80" of an address without a port; a unix socket as
// written.
func listenPort(addr string) string {
	if strings.HasPrefix(addr, "unix:") {
		return addr
	}
	if i := strings.LastIndexByte(addr, ':'); i >= 0 && !strings.HasSuffix(addr, "]") {
		return addr[i+1:]
	}
	if addr != "" && strings.Trim(addr, "0123456789") == "" {
		return addr
	}
	return "80"
}

// listenAddr is a listen directive's address and port, by which nginx
// picks the server blocks that may answer a connection: "*:80" of "80",
// "*:80" and "0.0.0.0:80"; "127.0.0.1:80" of "127.0.0.1"; "[::]:443" as it
// is; a unix socket as written. A connection to 127.0.0.2:80 is answered
// by the blocks that listen on 127.0.0.2:80 if any, never by one on
// 127.0.0.1:80.
func listenAddr(addr string) string {
	if strings.HasPrefix(addr, "unix:") {
		return addr
	}
	port := listenPort(addr)
	host := addr
	if i := strings.LastIndexByte(addr, ':'); i >= 0 && !strings.HasSuffix(addr, "]") {
		host = addr[:i]
	} else if addr == port {
		host = ""
	}
	if host == "" || host == "*" || host == "0.0.0.0" {
		host = "*"
	}
	return strings.ToLower(host) + ":" + port
}

// portSet is ports sorted, each once.
func portSet(ports []string) []string {
	return slices.Compact(slices.Sorted(slices.Values(ports)))
}

// addrsOf is sv's addresses, "*:80" when it has no listen directive.
func (sv *nginxServer) addrsOf() []string {
	if len(sv.addrs) == 0 {
		return []string{"*:80"}
	}
	return sv.addrs
}

// portsOf is sv's ports, "80" when it has no listen directive.
func (sv *nginxServer) portsOf() []string {
	if len(sv.ports) == 0 {
		return []string{"80"}
	}
	return sv.ports
}

// defaultExcept returns the hosts the default server block d answers no
// request for, as a rule's exceptHosts (docs/contract.md#hosts): the names
// of every other server block, or why they cannot be (a block that listens
// on other addresses or ports than d, whose hosts d answers on its own,
// where a rule answers every address and port; a name that is not a host or a leading
// wildcard, a block without a name, which takes the requests without a
// host, one of d's own names another block's wildcard covers, more than
// MaxExceptHosts).
func (r *nginxReader) defaultExcept(d int, own []string) ([]string, string) {
	var except []string
	addrs := portSet(r.spans[d].addrsOf())
	for k := range r.spans {
		sv := &r.spans[k]
		if k == d {
			continue
		}
		if other := portSet(sv.addrsOf()); !slices.Equal(other, addrs) {
			return nil, fmt.Sprintf("server block %d (line %d) listens on %s, this one on %s, and a rule answers every address and port", k+1, sv.line,
				strings.Join(other, ", "), strings.Join(addrs, ", "))
		}
	}
	// nginx picks the default server of each address and port: the block
	// that says default_server there, else the first that listens there.
	for _, a := range addrs {
		dflt := -1
		for k := range r.spans {
			if slices.Contains(r.spans[k].defaults, a) {
				dflt = k
				break
			}
		}
		if dflt < 0 {
			dflt = slices.IndexFunc(r.spans, func(sv nginxServer) bool { return slices.Contains(sv.addrsOf(), a) })
		}
		if dflt != d {
			return nil, fmt.Sprintf("server block %d (line %d) is the default server of %s, and a rule answers every address and port", dflt+1, r.spans[dflt].line, a)
		}
	}
	for k := range r.spans {
		sv := &r.spans[k]
		if k == d {
			continue
		}
		hosts, why := serverHosts(sv.names)
		if why != "" {
			return nil, fmt.Sprintf("server block %d (line %d): %s", k+1, sv.line, why)
		}
		for _, h := range hosts {
			if !slices.Contains(except, h) && !slices.Contains(own, h) {
				except = append(except, h)
			}
		}
	}
	for _, o := range own {
		for _, e := range except {
			if w, ok := strings.CutPrefix(e, "*"); ok && strings.HasSuffix(o, w) && o != e {
				return nil, fmt.Sprintf("its name %s is a subdomain of another block's %s", o, e)
			}
		}
	}
	if len(except) > redirects.MaxExceptHosts {
		return nil, fmt.Sprintf("the other server blocks name %d hosts, more than a rule's exceptHosts holds (%d)", len(except), redirects.MaxExceptHosts)
	}
	return except, ""
}

// serverHosts returns the host keys of a server block's names (a
// wildcard *.example.com as is, .example.com as example.com and
// *.example.com), or why they cannot scope its rules.
func serverHosts(names []string) ([]string, string) {
	var hosts []string
	for _, n := range names {
		switch {
		case n == "" || n == "_" || n == `""`:
			continue
		case strings.HasPrefix(n, "~"):
			return nil, fmt.Sprintf("the server name %s is a regular expression", excerpt(n))
		case strings.HasSuffix(n, ".*") || strings.Contains(n, "$"):
			return nil, fmt.Sprintf("the server name %s is not a host or a leading wildcard", excerpt(n))
		}
		wild := ""
		if strings.HasPrefix(n, "*.") {
			n, wild = n[2:], "*."
		} else if strings.HasPrefix(n, ".") {
			n = n[1:]
			if h, ok := pattern.HostKey(n); ok {
				hosts = append(hosts, h)
			}
			wild = "*."
		}
		h, ok := pattern.HostKey(n)
		if !ok {
			return nil, fmt.Sprintf("the server name %s is not a host name", excerpt(n))
		}
		hosts = append(hosts, wild+h)
	}
	if len(hosts) == 0 {
		return nil, "it has no server name"
	}
	return hosts, ""
}

// scopeHosts scopes the rules of each server block of a file of several
// to the block's names (host-scoped rules, one per name), as nginx answers
// a server block only for its names; a file of one server block answers
// every host, as nginx does with the only server of a port.
func (r *nginxReader) scopeHosts() {
	if len(r.spans) < 2 || r.sink.held.noBodies {
		return
	}
	// Without listen ... default_server, the first server block is the
	// default one.
	if !slices.ContainsFunc(r.spans, func(s nginxServer) bool { return s.dflt }) {
		r.spans[0].dflt = true
	}
	for k, sv := range r.spans {
		if sv.end < 0 {
			sv.end = r.sink.numRules()
		}
		hosts, why := serverHosts(sv.names)
		if why != "" {
			for i := sv.start; i < sv.end; i++ {
				r.sink.Note(r.sink.line(i), "in server block %d (line %d): nginx answers it only for that server's names, here for every host of the project (%s)", k+1, sv.line, why)
			}
			continue
		}
		for i := sv.start; i < sv.end; i++ {
			rule, line := r.sink.rule(i), r.sink.line(i)
			if sv.dflt {
				except, why := r.defaultExcept(k, hosts)
				if why == "" {
					// nginx answers with it every host no other block
					// names, and requests without a host.
					rule.Host, rule.ExceptHosts = "", except
					r.sink.setRule(i, rule)
					if i == sv.start {
						r.sink.siteHosts = append(r.sink.siteHosts, hosts...)
					}
					continue
				}
				r.sink.Note(line, "in the default server block (line %d): nginx also answers the hosts no server block names with it; here only %s (%s)", sv.line, strings.Join(hosts, ", "), why)
			}
			rule.Host = hosts[0]
			r.sink.setRule(i, rule)
			for _, h := range hosts[1:] {
				rule.Host = h
				r.sink.Rule(line, rule)
			}
		}
	}
}

func (r *nginxReader) directive(w []nginxToken, raw string) {
	line := w[0].line
	t := r.top()
	if t != nil && t.kind == "map" {
		r.mapEntry(t, w, raw)
		return
	}
	if t == nil && (strings.HasPrefix(w[0].text, "/") || strings.HasPrefix(w[0].text, "~") || w[0].quoted) && len(w) == 2 {
		// A map file: "key value;" at the top level.
		if r.mapFile == nil {
			r.mapFile = &nginxMap{from: "uri"}
			r.maps[""] = r.mapFile
		}
		r.mapEntryOf(r.mapFile, w, raw)
		return
	}
	switch w[0].text {
	case "server_name":
		if t != nil && t.kind == "server" && len(r.spans) > 0 {
			sv := &r.spans[len(r.spans)-1]
			for _, n := range w[1:] {
				sv.names = append(sv.names, strings.ToLower(n.text))
			}
		}
		return
	case "listen":
		if t != nil && t.kind == "server" && len(r.spans) > 0 {
			sv := &r.spans[len(r.spans)-1]
			ssl := false
			if len(w) > 1 {
				sv.ports = append(sv.ports, listenPort(w[1].text))
				sv.addrs = append(sv.addrs, listenAddr(w[1].text))
			}
			for _, n := range w[1:] {
				if n.text == "default_server" || n.text == "default" {
					sv.dflt = true
					sv.defaults = append(sv.defaults, listenAddr(w[1].text))
				}
				if n.text == "ssl" {
					ssl = true
				}
			}
			if ssl {
				sv.ssl = true
			} else {
				sv.plain = true
			}
		}
		return
	case "return":
		r.ret(t, w, raw)
	case "rewrite":
		r.rewrite(t, w, raw)
	case "include":
		// It may bring in locations, rewrites and maps, at any level.
		if len(w) > 1 {
			r.sink.Skip(line, "include %s: the included file is not read; import it on its own", w[1].text)
		} else {
			r.sink.Skip(line, "include: the included file is not read; import it on its own")
		}
	default:
		return
	}
	r.sink.Text(line, raw)
}

// ret reads return CODE [URL] and return URL.
func (r *nginxReader) ret(t *nginxBlock, w []nginxToken, raw string) {
	line := w[0].line
	if len(w) < 2 || len(w) > 3 {
		r.sink.Bad(line, "return takes code [text] or URL")
		return
	}
	code, url := 302, ""
	if n, err := strconv.Atoi(w[1].text); err == nil {
		code = n
		if len(w) == 3 {
			url = w[2].text
		}
		if n < 0 || n > 999 {
			r.sink.Bad(line, "return %s: not a status", w[1].text)
			return
		}
	} else if len(w) == 2 && (strings.HasPrefix(w[1].text, "http://") || strings.HasPrefix(w[1].text, "https://") || strings.HasPrefix(w[1].text, "$scheme")) {
		url = w[1].text
	} else {
		r.sink.Bad(line, "return %s: not a status or a URL", w[1].text)
		return
	}
	if t == nil || t.kind == "http" || t.kind == "other" {
		r.sink.Skip(line, "return outside a server or location block")
		return
	}
	if t.returned != 0 {
		r.sink.Skip(line, "the return on line %d ends the block before it", t.returned)
		return
	}
	t.returned = line
	if code != 410 && (code < 300 || code > 308 || code == 304 || code == 305 || code == 306) {
		r.sink.Skip(line, "return %d is not a redirect (only 301, 302, 303, 307, 308 and 410 are read)", code)
		return
	}
	if code != 410 && url == "" {
		r.sink.Skip(line, "return %d without a URL answers a body, not a redirect", code)
		return
	}
	if code == 410 {
		url = ""
	}
	if sv := r.server(); sv != nil && (t.kind == "server" || t.kind == "location") {
		if schemeUpgrade(url, sv) {
			r.sink.Skip(line, "not a path redirect: the server (line %d) listens on plain HTTP only and sends every request to https on the host asked (%s), a scheme redirect, which the TLS front before the edge makes (docs/migrate.md)", sv.line, excerpt(url))
			return
		}
		if rest, ok := strings.CutPrefix(url, "$scheme://"); ok && sv.ssl != sv.plain {
			// The server listens with ssl only (or without only): its
			// $scheme is always https (or http).
			// That is exact: no note.
			scheme := "https"
			if !sv.ssl {
				scheme = "http"
			}
			url = scheme + "://" + rest
		}
	}
	switch t.kind {
	case "if":
		r.retIf(t, line, code, url)
	case "location":
		r.retLocation(t, line, code, url, raw)
	case "server":
		r.retServer(line, code, url)
	}
}

// server returns the server block being read, nil outside one.
func (r *nginxReader) server() *nginxServer {
	for i := len(r.blocks) - 1; i >= 0; i-- {
		if r.blocks[i].kind == "server" {
			if n := len(r.spans); n > 0 && r.spans[n-1].end < 0 {
				return &r.spans[n-1]
			}
			return nil
		}
	}
	return nil
}

// schemeUpgrade reports whether url, returned by a server that listens on
// plain HTTP only, sends the request to https on the same host with the
// same path and query: https://$host$request_uri (or $server_name,
// $http_host, or the server's only name).
func schemeUpgrade(url string, sv *nginxServer) bool {
	if !sv.plain || sv.ssl {
		return false
	}
	rest, ok := strings.CutPrefix(url, "https://")
	if !ok {
		return false
	}
	host, ok := strings.CutSuffix(rest, "$request_uri")
	if !ok {
		if host, ok = strings.CutSuffix(rest, "$uri$is_args$args"); !ok {
			return false
		}
	}
	switch host {
	case "$host", "$server_name", "$http_host":
		return true
	}
	return len(sv.names) == 1 && strings.EqualFold(host, sv.names[0])
}

// answer reads a return URL: its destination, whether it passes the
// request's path on ($request_uri, $uri at the end) and its query
// ($is_args$args, $request_uri), or why it cannot be read.
func answer(url string) (dst string, pp, pq bool, why string) {
	dst = url
	switch {
	case strings.HasSuffix(dst, "$request_uri"):
		dst, pp, pq = strings.TrimSuffix(dst, "$request_uri"), true, true
	case strings.HasSuffix(dst, "$uri$is_args$args"):
		dst, pp, pq = strings.TrimSuffix(dst, "$uri$is_args$args"), true, true
	case strings.HasSuffix(dst, "$is_args$args"):
		dst, pq = strings.TrimSuffix(dst, "$is_args$args"), true
	}
	if strings.Contains(dst, "$") {
		return "", false, false, fmt.Sprintf("the URL %s uses variables other than $request_uri or $is_args$args at its end", excerpt(url))
	}
	return dst, pp, pq, ""
}

// returnFragment reads what a return's URL appends after a destination
// with a fragment: nginx writes the variables as text, so the request's
// query ($is_args$args) follows the fragment, "?" first whatever the URL
// holds: queryAfterFragment when the URL holds no '?' (which joins it with
// '&'), a note otherwise; the path ($request_uri) follows it too, which a
// rule puts before the fragment.
func (r *nginxReader) returnFragment(line int, rule *redirects.Rule, pp bool) {
	if rule.StatusCode == 410 || !rule.PreserveQuery || !strings.Contains(rule.Destination, "#") {
		return
	}
	if pp && rule.MatchType == redirects.StartsWith {
		r.sink.Note(line, "nginx appends the request's path and query after the URL's fragment (%s); here the rest of the path joins the URL's path and the query follows the fragment", rule.Destination)
	}
	if strings.Contains(rule.Destination, "?") {
		r.sink.Note(line, "nginx appends '?' and the request's query after the URL's fragment (%s); here '&' and the query", rule.Destination)
	}
	rule.QueryAfterFragment = true
}

func (r *nginxReader) retServer(line, code int, url string) {
	r.scopeNote(line)
	dst, pp, pq, why := answer(url)
	if why != "" {
		r.sink.Skip(line, "%s", why)
		return
	}
	if pp {
		// $request_uri is the whole path: the rest after "/" follows dst + "/".
		dst += "/"
	}
	if code == 410 {
		pp, pq = false, false
	}
	r.serverReturns = append(r.serverReturns, line)
	rule := redirects.Rule{Source: "/", MatchType: redirects.StartsWith, Destination: dst, StatusCode: code, PreservePath: pp, PreserveQuery: pq, Priority: r.nextRank()}
	r.returnFragment(line, &rule, pp)
	r.record(line, rule, true, "")
	r.sink.Rule(line, rule)
}

func (r *nginxReader) nextRank() int {
	p := r.rank
	if r.rank < priorityLocation-1 {
		r.rank++
	}
	return p
}

func (r *nginxReader) retLocation(t *nginxBlock, line, code int, url, raw string) {
	r.scopeNote(line)
	if t.mod == "~" || t.mod == "~*" {
		r.retRegexLocation(t, line, code, url, raw)
		return
	}
	if t.mod == "@" {
		r.sink.Skip(line, "a return in a named location (%s %s): not importable", t.mod, t.path)
		return
	}
	if strings.Contains(t.path, "%") {
		r.sink.Skip(line, "the location %s holds '%%': nginx compares it with the decoded path, so %%XX stands for itself there", t.path)
		return
	}
	dst, pp, pq, why := answer(url)
	if why != "" {
		r.sink.Skip(line, "%s", why)
		return
	}
	rule := redirects.Rule{Source: t.path, Destination: dst, StatusCode: code, PreserveQuery: pq, Priority: priorityLocation}
	switch t.mod {
	case "=", "ours~=":
		rule.MatchType = redirects.Exact
		if pp {
			rule.Destination += t.path
		}
	default:
		rule.MatchType = redirects.StartsWith
		if pp {
			// $request_uri holds the location's path, then the rest.
			rule.Destination += t.path
			rule.PreservePath = true
		}
		if t.mod == "ours~" {
			rule.Priority = r.nextRank()
		}
	}
	r.returnFragment(line, &rule, pp)
	r.ourBody(t, &rule)
	if code == 410 {
		rule.Destination, rule.PreservePath, rule.PreserveQuery, rule.QueryAfterFragment = "", false, false, false
	}
	if t.mod == "" {
		r.plain = append(r.plain, line)
	}
	r.record(line, rule, false, raw)
	r.sink.Rule(line, rule)
}

// retRegexLocation reads the return of a regular-expression location: a
// regex rule (its $N captures kept) ranked in file order before the prefix
// locations, as nginx tries the regular-expression locations in order
// before a prefix location without ^~.
func (r *nginxReader) retRegexLocation(t *nginxBlock, line, code int, url, raw string) {
	pq := false
	dst := url
	if d, ok := strings.CutSuffix(dst, "$is_args$args"); ok {
		dst, pq = d, true
	}
	re, dst := numberNamedGroups(t.path, dst)
	rule, why := nginxRegexRule(re, t.mod == "~*", dst, code)
	if why != "" {
		r.sink.Skip(line, "%s", why)
		return
	}
	rule.PreserveQuery = pq && code != 410
	rule.Priority = r.nextRank()
	r.regexRules = append(r.regexRules, line)
	r.record(line, rule, false, raw)
	r.sink.Rule(line, rule)
}

// nginxRegexRule is the regex rule of an nginx regular expression re
// (searched in the decoded path; ci: ~* or (?i)) redirecting to dst with
// code, or why there is none: dst may insert $1..$9, no other variable.
func nginxRegexRule(re string, ci bool, dst string, code int) (redirects.Rule, string) {
	src, groups, why, ok := nginxLookahead(re, ci)
	if !ok {
		src, groups, why = pcreRegex(re, false, ci)
	}
	if why != "" {
		return redirects.Rule{}, why
	}
	d := ""
	if code != 410 {
		for i := 0; i+1 < len(dst); i++ {
			if dst[i] == '$' && (dst[i+1] < '0' || dst[i+1] > '9') {
				return redirects.Rule{}, fmt.Sprintf("the URL %s uses variables other than $1..$9 and $is_args$args at its end", excerpt(dst))
			}
		}
		if d, why = pcreDestination(dst, groups, false); why != "" {
			return redirects.Rule{}, why
		}
	}
	return redirects.Rule{Source: src, MatchType: redirects.Regex, Destination: d, StatusCode: code}, ""
}

// record keeps what the server-close checks need of a rule.
func (r *nginxReader) record(line int, rule redirects.Rule, serverLevel bool, raw string) {
	if r.serverPrefix == nil {
		return
	}
	if rule.MatchType == redirects.Exact {
		e := nginxExact{line: int32(line), src: strings.Clone(rule.Source), serverLevel: serverLevel}
		if len(r.serverPrefix) > 0 {
			e.raw = raw
		}
		r.exacts = append(r.exacts, e)
	} else if _, ok := r.serverPrefix[rule.Source]; serverLevel && !ok {
		r.serverPrefix[rule.Source] = line
	}
}

// ourBody recognises the bodies the project's nginx export writes for
// rule options (export.appendNginxAnswer): ifs on $request_uri that append
// the rest of the path, and an if on $is_args that appends the query,
// before the final return of the destination as configured.
func (r *nginxReader) ourBody(t *nginxBlock, rule *redirects.Rule) {
	if strings.Contains(t.ifVar, "P") && rule.MatchType == redirects.StartsWith {
		rule.PreservePath = true
		if t.skip > 0 && t.skip < len(rule.Source) {
			// The location answers as a shorter source's rule (its
			// closure winner): the part of the path between the two
			// joins the destination's path.
			p, q, f := redirects.SplitDestination(rule.Destination)
			if !strings.HasPrefix(p, "/") && !hasURLPath(p) {
				p += "/"
			}
			p += rule.Source[t.skip:]
			if q != "" || strings.Contains(strings.TrimSuffix(rule.Destination, f), "?") {
				p += "?" + q
			}
			rule.Destination = p + f
		}
	}
	if strings.Contains(t.ifVar, "Q") {
		rule.PreserveQuery = true
		if strings.Contains(t.ifVar, "F") && strings.Contains(rule.Destination, "#") {
			rule.QueryAfterFragment = true
		}
	}
}

// ourSkip starts the expressions of the export's ifs on $request_uri.
const ourSkip = "^(?:%[0-9A-Fa-f]{2}|[^%?]){"

func (r *nginxReader) retIf(t *nginxBlock, line, code int, url string) {
	outer := r.outerOf(t) // t is an if
	if outer != nil && outer.kind == "location" && (strings.HasPrefix(t.ifVar, "?$request_uri ~ "+ourSkip) || t.ifVar == "is_args") {
		// One of the ifs of the project's own export: read with the
		// location's final return.
		r.ourIf(outer, t, line, url)
		return
	}
	if strings.HasPrefix(t.ifVar, "?") {
		if ok := r.ourStatusIf(t, line, code); ok {
			return
		}
		r.sink.Skip(line, "a return under the condition if (%s): not importable", t.ifVar[1:])
		return
	}
	m := r.maps[t.ifVar]
	if m == nil && url == "$"+t.ifVar {
		if _, ok := r.pending[t.ifVar]; !ok {
			r.pending[t.ifVar] = [2]int{line, code}
			return
		}
	}
	if m == nil || url != "$"+t.ifVar {
		r.sink.Skip(line, "if ($%s) { return %d %s; }: only the return of a map's variable is read", t.ifVar, code, url)
		return
	}
	if outer != nil && outer.kind == "location" {
		r.sink.Note(line, "the map is used inside location %s %s: nginx answers it only for the paths of that location, here for every path", outer.mod, outer.path)
	}
	r.useMap(m, line, code)
}

// ourIf records what one of the export's ifs says of the location's rule;
// the location's own return line carries the rule.
func (r *nginxReader) ourIf(loc, t *nginxBlock, line int, url string) {
	if t.ifVar == "is_args" {
		loc.ifVar += "Q"
		if _, frag, ok := strings.Cut(url, "#"); ok && strings.HasSuffix(frag, "$args") {
			// The query after the fragment (/b#top?$args):
			// queryAfterFragment.
			loc.ifVar += "F"
		}
		return
	}
	loc.ifVar += "P"
	rest := strings.TrimPrefix(t.ifVar, "?$request_uri ~ "+ourSkip)
	if n, err := strconv.Atoi(rest[:max(strings.IndexByte(rest, '}'), 0)]); err == nil {
		loc.skip = n
	}
}

// ourStatusIf reads the status ifs of the nginx-map-prefix export's
// snippet: if ($redirect_prefix ~ "^301 (.*)") { return 301 $1; }.
func (r *nginxReader) ourStatusIf(t *nginxBlock, line, code int) bool {
	m := r.maps["redirect_prefix"]
	if m == nil || !strings.HasPrefix(t.ifVar, "?$redirect_prefix") {
		return false
	}
	m.used = true
	return true
}

// useMap sets the status and the priorities of a map's rules at its use
// in an if of the server block.
func (r *nginxReader) useMap(m *nginxMap, line, code int) {
	if m.used {
		r.sink.Skip(line, "the map is used above already")
		return
	}
	m.used = true
	outer := r.outerOf(r.top())
	serverLevel := outer != nil && outer.kind == "server"
	for _, i := range m.rules {
		rule := r.sink.rule(i)
		if serverLevel && rule.MatchType == redirects.StartsWith && r.serverPrefix != nil {
			// The map answers in the server's rewrite phase, before the
			// locations: its prefixes take the exact locations under them.
			if _, ok := r.serverPrefix[rule.Source]; !ok {
				r.serverPrefix[rule.Source] = r.sink.line(i)
			}
		}
		if !m.ours {
			rule.StatusCode = code
			if code == 410 {
				rule.Destination, rule.PreserveQuery, rule.PreservePath = "", false, false
			}
		}
		if rule.MatchType == redirects.StartsWith {
			rule.Priority = r.nextRank()
		}
		r.sink.setRule(i, rule)
	}
}

func (r *nginxReader) finishMaps() {
	for v, p := range r.pending {
		r.sink.Skip(p[0], "no map sets $%s", v)
	}
	for _, m := range r.maps {
		if m.used && !m.ours || len(m.rules) == 0 {
			continue
		}
		if !m.used && !m.ours && !m.oursExact {
			r.sink.Note(m.firstLine, "the map's values carry no status and no if ($var) { return ...; } uses it here: its lines are read as 301s")
		}
		rank := 0
		for _, i := range m.rules {
			if rule := r.sink.rule(i); rule.MatchType == redirects.StartsWith {
				rule.Priority = rank
				rank++
				r.sink.setRule(i, rule)
			}
		}
	}
}

func (r *nginxReader) mapEntry(t *nginxBlock, w []nginxToken, raw string) {
	m := r.maps[t.mapVar]
	if m == nil {
		return
	}
	if m.helper {
		if len(w) == 2 && w[0].text == "default" && !w[0].quoted {
			m.def = w[1].text
		} else if strings.Contains(w[0].text, "[?](.+)") {
			m.query = true
			if len(w) == 2 {
				// The query after the fragment ("/c#sec?$1"):
				// queryAfterFragment.
				_, frag, ok := strings.Cut(w[1].text, "#")
				m.qaf = m.qaf || ok && (strings.HasSuffix(frag, "$1") || strings.HasSuffix(frag, "$2"))
			}
		}
		return
	}
	r.mapEntryOf(m, w, raw)
}

func (r *nginxReader) mapEntryOf(m *nginxMap, w []nginxToken, raw string) {
	line := w[0].line
	key := w[0].text
	switch {
	case !w[0].quoted && (key == "hostnames" || key == "volatile") && len(w) == 1:
		return
	case !w[0].quoted && key == "default" && len(w) == 2:
		if w[1].text != "" && w[1].text != "0" {
			r.sink.Skip(line, "a map default answers every other path: not importable")
			r.sink.Text(line, raw)
		}
		return
	case !w[0].quoted && key == "include":
		r.sink.Skip(line, "include: the included file is not read; import it on its own")
		r.sink.Text(line, raw)
		return
	case len(w) != 2:
		r.sink.Bad(line, "a map line takes a key and a value")
		return
	}
	defer r.sink.Text(line, raw)
	if m.from != "uri" && m.from != "request_uri" {
		r.sink.Skip(line, "the map reads $%s, not the path ($uri)", m.from)
		return
	}
	val := w[1].text
	code := 301
	if m.ours {
		c, d, _ := strings.Cut(val, " ")
		n, err := strconv.Atoi(c)
		if err != nil {
			r.sink.Skip(line, "the value %q is not \"STATUS DESTINATION\"", val)
			return
		}
		code, val = n, d
		if v, ok := strings.CutPrefix(val, "$redirect_prefix_rule_"); ok {
			h := r.maps["redirect_prefix_rule_"+v]
			if h == nil || !h.helper {
				r.sink.Skip(line, "the destination is computed by the map $redirect_prefix_rule_%s, which the file does not hold", v)
				return
			}
			shape, whyRe := ourRegexShape(key)
			if whyRe != "" {
				r.sink.Skip(line, "%s", whyRe)
				return
			}
			if m.firstLine == 0 {
				m.firstLine = line
			}
			m.rules = append(m.rules, r.sink.numRules())
			r.sink.Rule(line, redirects.Rule{Source: shape.lit, MatchType: redirects.StartsWith, Destination: h.def, StatusCode: code, PreservePath: true, PreserveQuery: h.query,
				QueryAfterFragment: h.query && h.qaf && strings.Contains(h.def, "#")})
			return
		}
	}
	if val == "" && code != 410 {
		return
	}
	// The fragment follows what the value appends (the export writes
	// "/b?x=1$redirect_exact_args#top").
	frag := ""
	if i := strings.IndexByte(val, '#'); i >= 0 {
		val, frag = val[:i], val[i:]
	}
	// With queryAfterFragment the export writes what appends the query
	// after the fragment ("/b#top$is_args$args", "/b?x=1#top$redirect_exact_args").
	qaf := false
	for _, v := range []string{"$is_args$args", "$redirect_exact_args", "$redirect_prefix_args"} {
		if f, ok := strings.CutSuffix(frag, v); ok && (v == "$is_args$args") == !strings.Contains(val+f, "?") {
			frag, qaf = f, true
			break
		}
	}
	dst, pp, pq, why := answer(val)
	switch {
	case qaf:
		pq = true
	case strings.HasSuffix(val, "?$args"):
		dst, pq, why = strings.TrimSuffix(val, "$args"), true, ""
	case strings.HasSuffix(val, "$redirect_exact_args") || strings.HasSuffix(val, "$redirect_prefix_args"):
		dst = strings.TrimSuffix(strings.TrimSuffix(val, "$redirect_exact_args"), "$redirect_prefix_args")
		pq, why = true, ""
	}
	dst += frag
	val += frag
	var rules []redirects.Rule
	if strings.HasPrefix(key, "~") {
		shape, whyRe := ourRegexShape(key)
		ci := shape.ci
		if whyRe != "" {
			r.sink.Skip(line, "%s", whyRe)
			return
		}
		if ci && !r.o.Settings.CaseInsensitive && hasLetter(shape.lit) {
			r.sink.Note(line, "~* matches regardless of case; here as the project compares, case-sensitively")
		}
		if !m.ours && (shape.capture || !shape.exact) {
			r.sink.Note(line, "regex %s read as starts_with %s", re(key), shape.lit)
		}
		dstRe := val
		if why == "" {
			dstRe = dst
		}
		var note, skip string
		rules, note, skip = shapeRules(shape, dstRe, code, r.o.Settings)
		if skip != "" {
			r.sink.Skip(line, "%s", skip)
			return
		}
		if note != "" {
			r.sink.Note(line, "%s", note)
		}
		for i := range rules {
			rules[i].PreserveQuery = pq
			rules[i].QueryAfterFragment = qaf
		}
	} else {
		if why != "" || pp {
			r.sink.Skip(line, "the value %s uses variables", val)
			return
		}
		if strings.Contains(key, "%") {
			r.sink.Skip(line, "the key %s holds '%%': nginx compares it with the decoded path", key)
			return
		}
		if !r.o.Settings.CaseInsensitive && hasLetter(key) {
			r.sink.Note(line, "nginx map keys match regardless of case; here as the project compares, case-sensitively")
		}
		if m.from == "request_uri" {
			r.sink.Note(line, "the map reads $request_uri: nginx matches the key only for a request without a query, escaped as written; here any")
		}
		rules = []redirects.Rule{{Source: key, MatchType: redirects.Exact, Destination: dst, StatusCode: code, PreserveQuery: pq, QueryAfterFragment: qaf}}
	}
	if m.firstLine == 0 {
		m.firstLine = line
	}
	for _, rule := range rules {
		if m.code != 0 && !m.ours {
			rule.StatusCode = m.code
			if rule.MatchType == redirects.StartsWith {
				rule.Priority = r.nextRank()
			}
		}
		if rule.StatusCode == 410 {
			rule.Destination, rule.PreserveQuery, rule.PreservePath, rule.QueryAfterFragment = "", false, false, false
		}
		if rule.Priority == 0 && rule.MatchType == redirects.Exact {
			rule.Priority = redirects.DefaultPriority
		}
		m.rules = append(m.rules, r.sink.numRules())
		r.sink.Rule(line, rule)
	}
}

// ourRegexShape reads a map key "~regex" or "~*regex": the shapes of
// parseRegexShape and the export's "^<literal>(?:/|$)".
func ourRegexShape(key string) (regexShape, string) {
	re := strings.TrimPrefix(key, "~")
	ci := strings.HasPrefix(re, "*")
	if ci {
		re = re[1:]
	}
	shape, why := parseRegexShape(re, false)
	if why != "" {
		if s, ok := ourSlashPrefix(re); ok {
			shape, why = regexShape{lit: s}, ""
		}
	}
	shape.ci = shape.ci || ci
	return shape, why
}

// ourSlashPrefix reads the export's "^<literal>(?:/|$)" (a starts_with
// source ending in '/' under trailingSlash ignore): the literal and '/'.
func ourSlashPrefix(re string) (string, bool) {
	body, ok := strings.CutSuffix(re, "(?:/|$)")
	if !ok {
		return "", false
	}
	s, why := parseRegexShape(body, false)
	if why != "" || s.exact || s.capture {
		return "", false
	}
	return s.lit + "/", true
}

// ourRegexLocation reads the regular-expression locations of the nginx
// export under non-default settings: "^<literal>$", "^<literal>/?$" (exact)
// and "^<literal>", "^<literal>(?:/|$)" (starts_with).
func ourRegexLocation(re string) (src string, exact, ok bool) {
	if s, ok := ourSlashPrefix(re); ok {
		return s, false, true
	}
	s, why := parseRegexShape(re, false)
	if why != "" || s.capture {
		return "", false, false
	}
	return s.lit, s.exact, true
}

// rewrite reads rewrite regex replacement [flag].
func (r *nginxReader) rewrite(t *nginxBlock, w []nginxToken, raw string) {
	line := w[0].line
	if len(w) < 3 || len(w) > 4 {
		r.sink.Bad(line, "rewrite takes regex replacement [flag]")
		return
	}
	flag := ""
	if len(w) == 4 {
		flag = w[3].text
		switch flag {
		case "last", "break", "redirect", "permanent":
		default:
			r.sink.Bad(line, "unknown rewrite flag %s", flag)
			return
		}
	}
	re, repl := numberNamedGroups(w[1].text, w[2].text)
	code := 0
	switch {
	case flag == "permanent":
		code = 301
	case flag == "redirect":
		code = 302
	case flag == "" && (strings.HasPrefix(repl, "http://") || strings.HasPrefix(repl, "https://") || strings.HasPrefix(repl, "$scheme")):
		code = 302
	}
	if t == nil || (t.kind != "server" && t.kind != "location") {
		r.sink.Skip(line, "a rewrite outside a server or location block (or under an if): not importable")
		return
	}
	if code == 0 {
		r.sink.Skip(line, "an internal rewrite (no permanent or redirect flag): nginx serves other content, not a redirect")
		return
	}
	r.scopeNote(line)
	// Found against nginx: a request's query follows the whole
	// replacement, fragment included (/a#b?k=v, /a?x#b&k=v):
	// queryAfterFragment, set on each rule below with preserveQuery.
	shape, why := parseRegexShape(re, false)
	if t.kind == "server" && (why != "" || !shape.exact || shape.ci && !r.o.Settings.CaseInsensitive && hasLetter(shape.lit)) {
		// A regex rule, ranked with the server's other rewrites: they
		// run in order before nginx picks a location.
		dst, pq := repl, true
		if strings.HasSuffix(dst, "?") {
			dst, pq = strings.TrimSuffix(dst, "?"), false
		}
		rule, why := nginxRegexRule(re, false, dst, code)
		if why != "" {
			r.sink.Skip(line, "%s", why)
			return
		}
		rule.PreserveQuery = pq
		rule.QueryAfterFragment = pq && strings.Contains(rule.Destination, "#")
		rule.Priority = r.nextRank()
		if re, err := regexp.Compile(regexAnchored(rule.Source, r.o.Settings)); err == nil {
			r.serverRegex = append(r.serverRegex, earlierRegex{re: re, line: line})
		}
		r.record(line, rule, true, raw)
		r.sink.Rule(line, rule)
		return
	}
	if why != "" {
		r.sink.Skip(line, "%s", why)
		return
	}
	if shape.ci && !r.o.Settings.CaseInsensitive && hasLetter(shape.lit) {
		r.sink.Note(line, "(?i) matches regardless of case; here as the project compares, case-sensitively")
	}
	pq := true
	if strings.HasSuffix(repl, "?") {
		repl, pq = strings.TrimSuffix(repl, "?"), false
	}
	if strings.Contains(repl, "$") && !(shape.capture && strings.Count(repl, "$") == 1 && strings.HasSuffix(repl, "$1")) {
		r.sink.Skip(line, "the replacement %s uses variables other than one $1 at its end", repl)
		return
	}
	if t.kind == "location" {
		if t.mod != "" && t.mod != "^~" && t.mod != "=" {
			r.sink.Skip(line, "a rewrite in a %s location: not importable", t.mod)
			return
		}
		inside := shape.lit == t.path && t.mod != "=" && !shape.exact ||
			shape.exact && strings.HasPrefix(shape.lit, t.path) && (t.mod != "=" || shape.lit == t.path && !shape.optSlash)
		if !inside {
			r.sink.Skip(line, "a rewrite of %s inside location %s %s: only a rewrite of the location's own prefix, or of one path in it, is read", shape.lit, t.mod, t.path)
			return
		}
	}
	rules, note, skip := shapeRules(shape, repl, code, r.o.Settings)
	if skip != "" {
		r.sink.Skip(line, "%s", skip)
		return
	}
	if note != "" {
		r.sink.Note(line, "%s", note)
	}
	if len(rules) > 0 && rules[0].PreservePath && strings.Contains(rules[0].Destination, "#") {
		r.sink.Note(line, "nginx appends the rest of the path after the URL's fragment (%s); here the rest joins the URL's path", rules[0].Destination)
	}
	// A prefix (with its rest captured as $1 at the end of the
	// replacement: preservePath) answers as the expression does: as is.
	for _, rule := range rules {
		rule.PreserveQuery = pq
		rule.QueryAfterFragment = pq && strings.Contains(rule.Destination, "#")
		if t.kind == "server" {
			rule.Priority = r.nextRank()
		} else {
			rule.Priority = priorityLocation
		}
		if rule.MatchType == redirects.Exact {
			rule.Priority = redirects.DefaultPriority
		}
		if t.kind == "location" && t.mod == "" {
			r.plain = append(r.plain, line)
		}
		r.record(line, rule, t.kind == "server", raw)
		r.sink.Rule(line, rule)
	}
	if t.kind == "location" && !shape.exact {
		t.returned = line // the rewrite takes every path of the location
	}
}

// re returns a map key's regular expression.
func re(key string) string { return strings.TrimPrefix(strings.TrimPrefix(key, "~"), "*") }

// numberNamedGroups writes the named groups of an nginx (PCRE) regular
// expression, (?<name>...), (?P<name>...) and (?'name'...), as the
// numbered groups they also are, and the variables $name and ${name} of
// dst that insert them as $1..$9, which regex rules insert. It returns re
// and dst unchanged when re has no named group, or one past the ninth.
func numberNamedGroups(re, dst string) (string, string) {
	if !strings.Contains(re, "(?<") && !strings.Contains(re, "(?P<") && !strings.Contains(re, "(?'") {
		return re, dst
	}
	names := map[string]int{}
	var b strings.Builder
	n, class := 0, false
	for i := 0; i < len(re); i++ {
		c := re[i]
		switch {
		case c == '\\' && i+1 < len(re):
			b.WriteString(re[i : i+2])
			i++
			continue
		case class:
			class = c != ']'
		case c == '[':
			class = true
			if strings.HasPrefix(re[i+1:], "]") || strings.HasPrefix(re[i+1:], "^]") {
				// A ']' first in a class is a member.
				j := strings.IndexByte(re[i+1:], ']') + i + 1
				b.WriteString(re[i : j+1])
				i = j
				continue
			}
		case c == '(' && !strings.HasPrefix(re[i+1:], "?"):
			n++
		case c == '(':
			rest := re[i+1:]
			var open, close string
			switch {
			case strings.HasPrefix(rest, "?<") && !strings.HasPrefix(rest, "?<=") && !strings.HasPrefix(rest, "?<!"):
				open, close = "?<", ">"
			case strings.HasPrefix(rest, "?P<"):
				open, close = "?P<", ">"
			case strings.HasPrefix(rest, "?'"):
				open, close = "?'", "'"
			}
			if open == "" {
				break
			}
			end := strings.Index(rest[len(open):], close)
			if end < 0 {
				return re, dst
			}
			n++
			names[rest[len(open):len(open)+end]] = n
			b.WriteByte('(')
			i += len(open) + end + len(close)
			continue
		}
		b.WriteByte(c)
	}
	if n > 9 {
		return re, dst
	}
	var d strings.Builder
	for i := 0; i < len(dst); i++ {
		if dst[i] != '$' {
			d.WriteByte(dst[i])
			continue
		}
		name, j := "", i+1
		if strings.HasPrefix(dst[j:], "{") {
			if k := strings.IndexByte(dst[j:], '}'); k > 0 {
				name, j = dst[j+1:j+k], j+k+1
			}
		} else {
			for j < len(dst) && (isPlaceholderByte(dst[j])) {
				j++
			}
			name = dst[i+1 : j]
		}
		if k, ok := names[name]; ok {
			fmt.Fprintf(&d, "$%d", k)
			i = j - 1
			continue
		}
		d.WriteByte('$')
	}
	return b.String(), d.String()
}
