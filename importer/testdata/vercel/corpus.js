// The reference of the corpus test (corpus_test.go) for vercel.json files:
// Vercel's own route compiler (@vercel/routing-utils' getTransformedRoutes)
// and the model of reference.js of how Vercel's proxy runs the routes it
// makes, with the request's host and query for `has` and `missing`
// conditions: a host condition's value is the host (or, written as a
// regular expression, matches it whole); a query condition needs the
// parameter (and, with a value, that value). Header and cookie conditions
// never hold: the requests carry neither.
//
// The request's query joins the destination: merged into a destination's
// own query as Next.js's prepareDestination merges it (the request's
// parameters, overridden by the destination's: a parameter whose name the
// destination's query holds is dropped) and as Vercel documents its
// redirects to pass the query on; Vercel's proxy itself is not public. The
// order (the destination's parameters, then the request's others in their
// order, empty pieces dropped) is the one docs/contract.md gives mergeQuery,
// which no platform answer here can check. A destination without a query
// (or with an empty one) gets the request's query appended as text.
//
// stdin: [{"config": {vercel.json}, "asks": [{"wire": "/a?q", "host": "h"}, ...]}, ...]
// stdout: one array per case, one answer per ask:
//   {"redirect": index in config.redirects or -1, "location": "...", "status": 308}
'use strict';
const { getTransformedRoutes } = require('@vercel/routing-utils');

function holds(c, host, query) {
  const v = c.value;
  const match = (s) => {
    if (v === undefined) return s !== undefined;
    if (s === undefined) return false;
    if (s === v) return true;
    try {
      return new RegExp('^(?:' + v + ')$').test(s);
    } catch (e) {
      return false;
    }
  };
  switch (c.type) {
    case 'host':
      return match(host);
    case 'query':
      return match(query.has(c.key) ? query.get(c.key) : undefined);
  }
  return false;
}

// joinQuery passes the request's query on to the destination loc.
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

function answer(routes, first, n, wire, host) {
  let hops = 0;
  for (;;) {
    const q = wire.indexOf('?');
    const path = q >= 0 ? wire.slice(0, q) : wire;
    const query = q >= 0 ? wire.slice(q + 1) : '';
    const params = new URLSearchParams(query);
    let hit = null;
    for (let i = 0; i < routes.length; i++) {
      const r = routes[i];
      if (r.handle || r.continue || r.src === undefined) continue;
      if (r.has && !r.has.every((c) => holds(c, host, params))) continue;
      if (r.missing && r.missing.some((c) => holds(c, host, params))) continue;
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
      loc = joinQuery(loc, query);
    }
    if (hit.i >= first && hit.i < first + n) {
      return { redirect: hit.i - first, location: loc, status: hit.r.status };
    }
    if (++hops > 5) {
      return { redirect: -1, location: '', status: 0 };
    }
    wire = loc;
  }
}

let input = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (d) => (input += d));
process.stdin.on('end', () => {
  const out = [];
  for (const c of JSON.parse(input)) {
    const { routes, error } = getTransformedRoutes(c.config);
    if (error) {
      out.push({ error: error.message });
      continue;
    }
    const all = routes || [];
    // The redirects' routes follow those that cleanUrls and trailingSlash
    // add: as many as the file without its redirects makes.
    const bare = getTransformedRoutes({ ...c.config, redirects: undefined }).routes || [];
    let first = 0;
    while (first < bare.length && bare[first].headers && bare[first].headers.Location) first++;
    out.push(c.asks.map((a) => answer(all, first, (c.config.redirects || []).length, a.wire, a.host)));
  }
  process.stdout.write(JSON.stringify(out));
});
