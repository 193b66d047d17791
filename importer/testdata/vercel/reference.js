// The reference of migrate's vercel property tests: Vercel's own route
// compiler (@vercel/routing-utils' getTransformedRoutes, which compiles
// each redirect's source with path-to-regexp 6.1.0) and a small model of
// how Vercel's proxy runs the routes it makes: in order, the first whose
// regular expression matches the request path answers, $1... and named
// groups filled in its Location, the request's query passed on (merged into
// a Location's own query as corpus.js's joinQuery says). The
// redirects that cleanUrls and trailingSlash add are followed as a client
// would (up to 5 times).
//
// A path may be given with a host ({"host": "h", "path": "/a?q"}): the
// redirects' has conditions on the host and the query are then matched as
// Next.js' matchHas does (each value an anchored regular expression, its
// named groups given to the Location; a key without a value present with a
// non-empty value, which it gives as :key; a repeated parameter's last
// value). A bare path carries no host, and redirects with has never match.
//
// stdin: [{"config": {vercel.json}, "paths": ["/a?q", {"host": "h", "path": "/b"}, ...]}, ...]
// stdout: one array per case, one answer per path:
//   {"redirect": index in config.redirects or -1, "location": "...", "status": 308}
'use strict';
const { getTransformedRoutes } = require('@vercel/routing-utils');
const querystring = require('querystring');

// joinQuery passes the request's query on to the Location loc: merged
// into loc's own query (the request's parameters whose names it does not
// hold, in their order, empty pieces dropped, before the fragment), or
// appended as text when loc has no query or an empty one (corpus.js).
function joinQuery(loc, query) {
  const h = loc.indexOf('#');
  const base = h >= 0 ? loc.slice(0, h) : loc;
  const frag = h >= 0 ? loc.slice(h) : '';
  const q = base.indexOf('?');
  const dq = q >= 0 ? base.slice(q + 1) : '';
  if (dq === '') {
    return loc + (loc.includes('?') ? '&' : '?') + query;
  }
  const name = (p) => (p.includes('=') ? p.slice(0, p.indexOf('=')) : p);
  const names = new Set(dq.split('&').filter((p) => p !== '').map(name));
  const kept = query.split('&').filter((p) => p !== '' && !names.has(name(p)));
  return base + kept.map((p) => '&' + p).join('') + frag;
}

// matchHas returns the params a route's has conditions give, or null when
// one does not hold.
function matchHas(has, host, query) {
  const qs = querystring.parse(query);
  const params = {};
  for (const h of has) {
    let value;
    if (h.type === 'host') {
      value = host ? host.split(':', 1)[0].toLowerCase() : undefined;
    } else if (h.type === 'query') {
      value = qs[h.key];
    } else {
      return null;
    }
    if (Array.isArray(value)) value = value.slice(-1)[0];
    if (!h.value && value) {
      params[h.key] = value;
      continue;
    }
    if (value) {
      const m = value.match(new RegExp(`^${h.value}$`));
      if (m) {
        Object.assign(params, m.groups || {});
        if (h.type === 'host' && m[0]) params.host = m[0];
        continue;
      }
    }
    return null;
  }
  return params;
}

function answer(routes, first, wire, host) {
  let hops = 0;
  for (;;) {
    const q = wire.indexOf('?');
    const path = q >= 0 ? wire.slice(0, q) : wire;
    const query = q >= 0 ? wire.slice(q + 1) : '';
    let hit = null;
    for (let i = 0; i < routes.length; i++) {
      const r = routes[i];
      if (r.missing) continue;
      let params = {};
      if (r.has) {
        if (host === undefined) continue; // a bare path carries no host
        params = matchHas(r.has, host, query);
        if (!params) continue;
      }
      const m = new RegExp(r.src).exec(path);
      if (!m) continue;
      hit = { i, r, m, params };
      break;
    }
    if (!hit || !hit.r.headers || !hit.r.headers.Location) {
      return { redirect: -1, location: '', status: 0 };
    }
    const groups = { ...hit.params, ...(hit.m.groups || {}) };
    let loc = hit.r.headers.Location.replace(/\$([1-9][0-9]*|[a-zA-Z_][a-zA-Z0-9_]*)/g, (_, k) => {
      const n = parseInt(k, 10);
      const v = isNaN(n) ? groups[k] : hit.m[n];
      return v === undefined ? '' : v;
    });
    if (query !== '') {
      loc = joinQuery(loc, query);
    }
    if (hit.i >= first) {
      return { redirect: hit.i - first, location: loc, status: hit.r.status };
    }
    // A redirect of cleanUrls or trailingSlash: the client follows it.
    if (++hops > 5) {
      return { redirect: -1, location: '', status: 0 };
    }
    wire = loc;
  }
}

let input = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', d => (input += d));
process.stdin.on('end', () => {
  const out = [];
  for (const c of JSON.parse(input)) {
    const { routes, error } = getTransformedRoutes(c.config);
    if (error) {
      out.push({ error: error.message });
      continue;
    }
    const all = routes || [];
    const first = all.length - (c.config.redirects || []).length;
    out.push(c.paths.map(p => (typeof p === 'string' ? answer(all, first, p) : answer(all, first, p.path, p.host))));
  }
  process.stdout.write(JSON.stringify(out));
});
