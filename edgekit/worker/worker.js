// redirects edge kit: a Cloudflare Worker that answers a site's requests
// with the project's redirect rules and passes every other request on.
//
// For each GET or HEAD request it asks the lookup API (GET /v1/lookup) for
// the request's path and query on the request's host (rules scoped to a
// host answer only it; rules with query conditions read the query),
// unless an answer is cached: in the isolate's memory
// and in the Workers Cache API, each for as long as the answer's
// Cache-Control allows (300 s, a "no rule" answer included). A lookup that
// takes longer than TIMEOUT_MS (500 ms by default), fails, or is refused
// lets the request through to the origin (fail-open); after FAILURES
// failures in a row (5) the Worker stops asking for OPEN_SECONDS (10) and
// lets requests through, then one request probes again.
//
// Bindings: EDGE (the edge API's base URL), KEY (the project's API key, a
// secret), PROJECT (the project ID); optional TIMEOUT_MS, FAILURES,
// OPEN_SECONDS, and ORIGIN (a service to pass requests to instead of
// fetch(request), the origin of the zone).

const memory = new Map(); // host and path -> {answer, expires}
const MEMORY_ENTRIES = 10000;
const breaker = { failures: 0, openUntil: 0, probing: false };

export default {
  async fetch(request, env, ctx) {
    if (request.method !== "GET" && request.method !== "HEAD") {
      return pass(request, env);
    }
    const url = new URL(request.url);
    const path = url.pathname + url.search;
    let answer;
    try {
      answer = await lookup(hostName(url.hostname), path, env, ctx);
    } catch (err) {
      console.log(`redirects: lookup of ${path} failed, passed on: ${err}`);
      answer = null;
    }
    if (answer && answer.destination) {
      return new Response(null, { status: answer.statusCode, headers: { Location: answer.destination } });
    }
    return pass(request, env);
  },
};

// hostName returns the request's host name (without its port: the URL
// parser gives it lower-cased, an IDN in its A-label form) as the lookup
// API compares it, its host key, so that one cache entry serves every port
// and spelling; "" for what cannot be a rule's host, such as an IPv6
// literal, a label that starts or ends with '-' or is over 63 bytes, or a
// name over 253 bytes, which the API would refuse: only rules without a
// host answer then.
function hostName(name) {
  name = name.replace(/\.$/, "");
  return name.length <= 253 && hostPattern.test(name) ? name : "";
}

const hostLabel = "[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?";
const hostPattern = new RegExp(`^${hostLabel}(\\.${hostLabel})*$`);

function pass(request, env) {
  return env.ORIGIN ? env.ORIGIN.fetch(request) : fetch(request);
}

// lookup returns the rule's answer ({destination, statusCode, matchType}),
// {} for no rule, or throws when the lookup API cannot answer in time.
async function lookup(host, path, env, ctx) {
  const now = Date.now();
  // A host holds no space: the key cannot be another host's path.
  const key = host ? `${host} ${path}` : path;
  const mem = memory.get(key);
  if (mem && mem.expires > now) {
    return mem.answer;
  }
  const scope = host ? `${encodeURIComponent(env.PROJECT)}/${encodeURIComponent(host)}` : encodeURIComponent(env.PROJECT);
  const cacheKey = new Request(`https://redirects-lookup.invalid/${scope}${path}`);
  let cache = typeof caches !== "undefined" ? caches.default : null;
  let hit = null;
  if (cache) {
    try {
      hit = await cache.match(cacheKey);
    } catch (err) {
      // A runtime without a cache (workerd unless configured with one):
      // the isolate's memory is the only cache.
      cache = null;
    }
    if (hit) {
      const answer = await hit.json();
      remember(key, answer, maxAge(hit.headers.get("Cache-Control")), now);
      return answer;
    }
  }
  if (now < breaker.openUntil || (breaker.failures >= limit(env.FAILURES, 5) && breaker.probing)) {
    throw new Error("the lookup API failed repeatedly; not asking it for a while");
  }
  if (breaker.failures >= limit(env.FAILURES, 5)) {
    breaker.probing = true;
  }
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), limit(env.TIMEOUT_MS, 500));
  let resp;
  try {
    let q = `project=${encodeURIComponent(env.PROJECT)}&path=${encodeURIComponent(path)}`;
    if (host) {
      q += `&host=${encodeURIComponent(host)}`;
    }
    resp = await fetch(`${env.EDGE.replace(/\/$/, "")}/v1/lookup?${q}`, {
      headers: { "X-API-Key": env.KEY },
      signal: controller.signal,
      redirect: "manual",
    });
    if (resp.status !== 200 && resp.status !== 204) {
      throw new Error(`the lookup API answered ${resp.status}: ${await resp.text()}`);
    }
    var answer = resp.status === 200 ? await resp.json() : {};
  } catch (err) {
    failed(env, resp);
    throw err;
  } finally {
    clearTimeout(timer);
  }
  breaker.failures = 0;
  breaker.openUntil = 0;
  breaker.probing = false;
  const age = maxAge(resp.headers.get("Cache-Control"));
  if (age > 0) {
    remember(key, answer, age, now);
    if (cache) {
      const stored = new Response(JSON.stringify(answer), {
        headers: { "Content-Type": "application/json", "Cache-Control": `max-age=${age}` },
      });
      ctx.waitUntil(cache.put(cacheKey, stored).catch(() => {}));
    }
  }
  return answer;
}

function failed(env, resp) {
  breaker.probing = false;
  if (resp && resp.status === 429) {
    const s = parseInt(resp.headers.get("Retry-After") || "", 10);
    if (s > 0) {
      breaker.openUntil = Date.now() + s * 1000;
      return;
    }
  }
  breaker.failures++;
  if (breaker.failures >= limit(env.FAILURES, 5)) {
    breaker.openUntil = Date.now() + limit(env.OPEN_SECONDS, 10) * 1000;
  }
}

function remember(key, answer, age, now) {
  if (age <= 0) return;
  if (memory.size >= MEMORY_ENTRIES) {
    memory.delete(memory.keys().next().value); // the oldest entry
  }
  memory.set(key, { answer, expires: now + age * 1000 });
}

// maxAge reads max-age from Cache-Control, 0 when no-store, no-cache or
// private forbid keeping the answer.
function maxAge(cc) {
  let age = 0;
  for (const part of (cc || "").toLowerCase().split(",")) {
    const d = part.trim();
    if (d === "no-store" || d === "no-cache" || d === "private") return 0;
    if (d.startsWith("max-age=")) {
      const n = parseInt(d.slice(8), 10);
      if (n > 0) age = n;
    }
  }
  return age;
}

function limit(v, dflt) {
  const n = parseInt(v || "", 10);
  return n > 0 ? n : dflt;
}
