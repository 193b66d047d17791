// The reference of migrate's vercel property tests: Vercel's own route
// compiler (@vercel/routing-utils' getTransformedRoutes, which compiles
// each redirect's source with path-to-regexp 6.1.0) and a small model of
// how Vercel's proxy runs the routes it makes: in order, the first whose
// regular expression matches the request path answers, $1... and named
// groups filled in its Location, the request's query passed on. The
// redirects that cleanUrls and trailingSlash add are followed as a client
// would (up to 5 times).
//
// stdin: [{"config": {vercel.json}, "paths": ["/a?q", ...]}, ...]
// stdout: one array per case, one answer per path:
//   {"redirect": index in config.redirects or -1, "location": "...", "status": 308}
'use strict';
const { getTransformedRoutes } = require('@vercel/routing-utils');

function answer(routes, first, wire) {
  let hops = 0;
  for (;;) {
    const q = wire.indexOf('?');
    const path = q >= 0 ? wire.slice(0, q) : wire;
    const query = q >= 0 ? wire.slice(q + 1) : '';
    let hit = null;
    for (let i = 0; i < routes.length; i++) {
      const r = routes[i];
      if (r.has || r.missing) continue; // the requests carry no headers, cookies or hosts
      const m = new RegExp(r.src).exec(path);
      if (!m) continue;
      hit = { i, r, m };
      break;
    }
    if (!hit || !hit.r.headers || !hit.r.headers.Location) {
      return { redirect: -1, location: '', status: 0 };
    }
    const groups = hit.m.groups || {};
    let loc = hit.r.headers.Location.replace(/\$([1-9a-zA-Z]+)/g, (_, k) => {
      const n = parseInt(k, 10);
      const v = isNaN(n) ? groups[k] : hit.m[n];
      return v === undefined ? '' : v;
    });
    if (query !== '') {
      loc += (loc.includes('?') ? '&' : '?') + query;
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
    out.push(c.paths.map(p => answer(all, first, p)));
  }
  process.stdout.write(JSON.stringify(out));
});
