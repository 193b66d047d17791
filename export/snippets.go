package export

// These snippets wire the export files into nginx and HAProxy. Each is
// quoted verbatim in the leading comment of the map file it serves, in
// docs/exports.md, and in the configurations the tests load into real nginx
// and haproxy, so what the documentation shows is what has been tested. The
// file paths are the documented install locations; the tests swap only the
// directory /etc/nginx/ or /etc/haproxy/ for a temporary one.
const (
	// NginxAbsoluteRedirectSnippet goes once in every nginx server block
	// that serves one of the nginx exports. It makes nginx send the Location
	// exactly as the rule has it, as the lookup API does, instead of
	// prefixing a relative destination with the server's own scheme, name
	// and port (which browsers treat alike, but which is not the same text).
	NginxAbsoluteRedirectSnippet = `absolute_redirect off;`

	// NginxServerSnippet goes in an nginx server block to serve the nginx
	// export.
	NginxServerSnippet = `include /etc/nginx/redirects.conf;`

	// NginxMapExactHTTPSnippet goes in the nginx http block (not in a server
	// block: map is an http-level directive). The map_hash_bucket_size and
	// map_hash_max_size lines that must precede it are printed, with the
	// values this file needs, in the file's own leading comment.
	NginxMapExactHTTPSnippet = `include /etc/nginx/redirects-exact.map;`

	// NginxMapExactSnippet goes in a server block to serve nginx-map-exact.
	// The map has no status column, so every rule is served as a 301: the
	// shape docs/contract.md#export-shapes gives the file.
	NginxMapExactSnippet = `if ($redirect_exact) { return 301 $redirect_exact; }`

	// NginxMapPrefixHTTPSnippet goes in the nginx http block.
	NginxMapPrefixHTTPSnippet = `include /etc/nginx/redirects-prefix.map;`

	// NginxMapPrefixStatusSnippet follows NginxMapPrefixSnippet when the
	// map holds rules with the statuses beyond 301 and 302
	// (docs/contract.md#rule-options): one if per status, and 410 (Gone),
	// which has no destination, answered without one.
	NginxMapPrefixStatusSnippet = `if ($redirect_prefix ~ "^303 (.*)") { return 303 $1; }
if ($redirect_prefix ~ "^307 (.*)") { return 307 $1; }
if ($redirect_prefix ~ "^308 (.*)") { return 308 $1; }
if ($redirect_prefix = 410) { return 410; }`

	// NginxMapPrefixSnippet goes in a server block to serve nginx-map-prefix,
	// after NginxMapExactSnippet when both maps are used, so exact rules win
	// as in the lookup API. nginx's return takes its status as a literal
	// number, so there is one if per status, and the destination is the
	// capture of the if's own regular expression over the map value
	// "<status> <destination>".
	NginxMapPrefixSnippet = `if ($redirect_prefix ~ "^301 (.*)") { return 301 $1; }
if ($redirect_prefix ~ "^302 (.*)") { return 302 $1; }`

	// HAProxyMapExactSnippet goes in an HAProxy frontend (mode http) to serve
	// haproxy-map-exact. The map has no status column, so every rule is
	// served as a 301. map_str matches case-sensitively, as the lookup API
	// does; the variable saves a second map lookup. url_dec decodes the raw
	// request path once, as nginx does, into the form sources are stored in
	// (docs/contract.md#matching).
	HAProxyMapExactSnippet = `http-request set-var(txn.redirect_exact) path,url_dec,map_str(/etc/haproxy/redirects-exact.map)
http-request redirect code 301 location %[var(txn.redirect_exact)] if { var(txn.redirect_exact) -m found }`

	// HAProxyMapPrefixStatusSnippet follows HAProxyMapPrefixSnippet when
	// the map holds rules with the statuses beyond 301 and 302
	// (docs/contract.md#rule-options): one line per status, and 410 (Gone),
	// which has no destination, answered with an empty 410.
	HAProxyMapPrefixStatusSnippet = `http-request redirect code 303 location %[var(txn.redirect_prefix),field(2,' ')] if { var(txn.redirect_prefix),field(1,' ') -m str 303 }
http-request redirect code 307 location %[var(txn.redirect_prefix),field(2,' ')] if { var(txn.redirect_prefix),field(1,' ') -m str 307 }
http-request redirect code 308 location %[var(txn.redirect_prefix),field(2,' ')] if { var(txn.redirect_prefix),field(1,' ') -m str 308 }
http-request return status 410 if { var(txn.redirect_prefix),field(1,' ') -m str 410 }`

	// HAProxyMapExactFoldSnippet replaces HAProxyMapExactSnippet for a
	// project whose caseSensitive setting is false: the file's keys are
	// then lower-cased, and lower lowers the path's ASCII letters (only
	// them, as the lookup API folds) before the lookup.
	HAProxyMapExactFoldSnippet = `http-request set-var(txn.redirect_exact) path,url_dec,lower,map_str(/etc/haproxy/redirects-exact.map)
http-request redirect code 301 location %[var(txn.redirect_exact)] if { var(txn.redirect_exact) -m found }`

	// HAProxyMapPrefixFoldSnippet replaces HAProxyMapPrefixSnippet for a
	// project whose caseSensitive setting is false, as
	// HAProxyMapExactFoldSnippet does HAProxyMapExactSnippet.
	HAProxyMapPrefixFoldSnippet = `http-request set-var(txn.redirect_prefix) path,url_dec,lower,map_beg(/etc/haproxy/redirects-prefix.map)
http-request redirect code 301 location %[var(txn.redirect_prefix),field(2,' ')] if { var(txn.redirect_prefix),field(1,' ') -m str 301 }
http-request redirect code 302 location %[var(txn.redirect_prefix),field(2,' ')] if { var(txn.redirect_prefix),field(1,' ') -m str 302 }`

	// HAProxyMapPrefixSnippet goes in an HAProxy frontend (mode http) to serve
	// haproxy-map-prefix, after HAProxyMapExactSnippet when both maps are
	// used, so exact rules win as in the lookup API. map_beg returns the
	// value of the longest matching source, "<status> <destination>" (an
	// HAProxy map value is the rest of the line after the key). "redirect
	// code" takes a literal number, so there is one line per status, each
	// conditioned on the value's first field; the second field is the
	// destination, inserted as it is (a map value is not a log-format
	// string, so a '%' in it needs no escaping).
	HAProxyMapPrefixSnippet = `http-request set-var(txn.redirect_prefix) path,url_dec,map_beg(/etc/haproxy/redirects-prefix.map)
http-request redirect code 301 location %[var(txn.redirect_prefix),field(2,' ')] if { var(txn.redirect_prefix),field(1,' ') -m str 301 }
http-request redirect code 302 location %[var(txn.redirect_prefix),field(2,' ')] if { var(txn.redirect_prefix),field(1,' ') -m str 302 }`
)

// The lines that serve the extended rules (patterns, regexes, hosts, query
// conditions) of the nginx map formats. Such a file holds, after the map of
// docs/contract.md's shape, a second map over "$host $request_uri" whose
// regular expressions are those of the nginx format's chain (nginxchain.go)
// in the lookup API's order; its value is the answer, "<status>
// <destination>" ("c<status>" when the destination inserts a capture, whose
// leading run of '/' is made one) or "410".
const (
	// NginxAnswerSnippet returns the answer in $redirects_answer, if any.
	// The nginx format of a project with extended rules ends with these
	// lines; the map formats' extended snippets end with them too.
	NginxAnswerSnippet = `if ($redirects_answer ~ "^c(?<redirects_code>[0-9]+) //+(?<redirects_to>.*)") { set $redirects_answer "${redirects_code} /${redirects_to}"; }
if ($redirects_answer ~ "^c?301 (?<redirects_to>.*)") { return 301 $redirects_to; }
if ($redirects_answer ~ "^c?302 (?<redirects_to>.*)") { return 302 $redirects_to; }
if ($redirects_answer ~ "^c?303 (?<redirects_to>.*)") { return 303 $redirects_to; }
if ($redirects_answer ~ "^c?307 (?<redirects_to>.*)") { return 307 $redirects_to; }
if ($redirects_answer ~ "^c?308 (?<redirects_to>.*)") { return 308 $redirects_to; }
if ($redirects_answer = 410) { return 410; }`

	// NginxMapExactExtendedSnippet goes in a server block before
	// NginxMapExactSnippet when nginx-map-exact holds exact rules with a
	// host or query conditions: they come first in the lookup API's order.
	NginxMapExactExtendedSnippet = "set $redirects_answer $redirect_exact_extended;\n" + NginxAnswerSnippet

	// NginxMapPrefixExtendedSnippet goes in a server block before
	// NginxMapPrefixSnippet when nginx-map-prefix holds pattern or regex
	// rules, or starts_with rules with a host or query conditions (and
	// after the lines of nginx-map-exact when both maps are used).
	NginxMapPrefixExtendedSnippet = "set $redirects_answer $redirect_prefix_extended;\n" + NginxAnswerSnippet
)
