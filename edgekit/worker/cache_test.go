package worker_test

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// cacheService is the cache workerd's Cache API talks to (the Worker's
// cacheApiOutbound), as workerd speaks to it: cache.put is a PUT of the
// cache key's URL whose body is the response serialised as HTTP/1.1,
// answered 204; cache.match is a GET answered with the stored response
// and Cf-Cache-Status: HIT, or Cf-Cache-Status: MISS; cache.delete is a
// PURGE. It logs each operation.
type cacheService struct {
	mu      sync.Mutex
	entries map[string][]byte // key URL -> serialised response
	log     []string
}

func (c *cacheService) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	key := r.Host + r.URL.RequestURI()
	c.mu.Lock()
	defer c.mu.Unlock()
	switch r.Method {
	case http.MethodPut:
		body, err := io.ReadAll(r.Body)
		if err == nil {
			_, err = http.ReadResponse(bufio.NewReader(bytes.NewReader(body)), nil)
		}
		if err != nil {
			c.log = append(c.log, "PUT "+key+" unreadable: "+err.Error())
			w.WriteHeader(http.StatusRequestEntityTooLarge)
			return
		}
		c.entries[key] = body
		c.log = append(c.log, "PUT "+key)
		w.WriteHeader(http.StatusNoContent)
	case http.MethodGet:
		stored, ok := c.entries[key]
		if !ok {
			c.log = append(c.log, "GET "+key+" MISS")
			w.Header().Set("Cf-Cache-Status", "MISS")
			w.WriteHeader(http.StatusGatewayTimeout)
			return
		}
		resp, err := http.ReadResponse(bufio.NewReader(bytes.NewReader(stored)), nil)
		if err != nil {
			w.WriteHeader(http.StatusInternalServerError)
			return
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		c.log = append(c.log, "GET "+key+" HIT")
		for k, v := range resp.Header {
			w.Header()[k] = v
		}
		w.Header().Set("Cf-Cache-Status", "HIT")
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		w.WriteHeader(resp.StatusCode)
		w.Write(body)
	case "PURGE":
		_, ok := c.entries[key]
		delete(c.entries, key)
		c.log = append(c.log, "PURGE "+key)
		if !ok {
			w.WriteHeader(http.StatusNotFound)
		}
	default:
		w.WriteHeader(http.StatusMethodNotAllowed)
	}
}

func (c *cacheService) lines() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.log...)
}

// TestWorkerCacheAPI runs the Worker in workerd with the Workers Cache API
// (caches.default) served by cacheService, in two Workers (two isolates,
// so two memories) in front of one real edge: the first lookup of /old
// misses the cache, asks the edge and puts the answer; the second, from
// the other isolate, is a hit and answers the same redirect without asking
// the edge, which counts one lookup in all. The same scenario run without
// the cacheApiOutbound binding, and with a Worker whose cache.put was
// taken out, must fail those checks, so the checks test the cache.
func TestWorkerCacheAPI(t *testing.T) {
	wd := workerd(t)
	dir := t.TempDir()
	bin := filepath.Join(dir, "redirects")
	if out, err := exec.Command("go", "build", "-o", bin, "../../cmd/redirects").CombinedOutput(); err != nil {
		t.Fatalf("building redirects: %v\n%s", err, out)
	}
	db := "REDIRECTS_DB=sqlite:" + filepath.Join(dir, "redirects.db")
	run := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(bin, args...)
		cmd.Env = append(os.Environ(), db)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("redirects %s: %v", strings.Join(args, " "), err)
		}
		return strings.TrimSpace(string(out))
	}
	org := run("org", "create", "--name", "Acme", "--tier", "enterprise")
	project := run("project", "create", "--org", org, "--name", "www")
	run("rule", "add", "--project", project, "--source", "/old", "--destination", "/new")
	run("deploy", "--project", project)
	key := run("key", "create", "--project", project)
	edgeAddr, adminAddr := freeAddr(t), freeAddr(t)
	edge := start(t, bin, []string{db}, "serve", "--addr", edgeAddr, "--admin-addr", adminAddr)
	edgeExited := make(chan struct{})
	go func() { edge.Process.Wait(); close(edgeExited) }()
	waitListening(t, edgeAddr, edgeExited, "redirects serve")
	waitListening(t, adminAddr, edgeExited, "redirects serve's admin listener")
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("origin")) }))
	t.Cleanup(origin.Close)
	src, err := os.ReadFile("worker.js")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(src, []byte("cache.put(cacheKey, stored)")) {
		t.Fatal("worker.js does not put answers in the cache as this test expects (cache.put(cacheKey, stored))")
	}
	withoutPut := bytes.Replace(src, []byte("cache.put(cacheKey, stored)"), []byte("Promise.resolve()"), 1)

	lookups := func() int {
		t.Helper()
		resp, err := http.Get("http://" + adminAddr + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		n := 0
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			if rest, ok := strings.CutPrefix(sc.Text(), `redirects_requests_total{endpoint="lookup",`); ok {
				v, _ := strconv.ParseFloat(rest[strings.LastIndexByte(rest, ' ')+1:], 64)
				n += int(v)
			}
		}
		return n
	}

	// scenario runs workerd with the Worker source and, with binding, the
	// cache service; it returns what went other than a cache would have it.
	scenario := func(t *testing.T, source []byte, binding bool) (problems []string) {
		wdir := t.TempDir()
		if err := os.WriteFile(filepath.Join(wdir, "worker.js"), source, 0o644); err != nil {
			t.Fatal(err)
		}
		cache := &cacheService{entries: map[string][]byte{}}
		cacheSrv := httptest.NewServer(cache)
		t.Cleanup(cacheSrv.Close)
		outbound := ""
		if binding {
			outbound = `cacheApiOutbound = "cache",`
		}
		addrA, addrB := freeAddr(t), freeAddr(t)
		worker := func(name string) string {
			return fmt.Sprintf(`const %s :Workerd.Worker = (
  modules = [ (name = "worker.js", esModule = embed "worker.js") ],
  compatibilityDate = "2025-01-01",
  bindings = [
    (name = "EDGE", text = %q),
    (name = "KEY", text = %q),
    (name = "PROJECT", text = %q),
    (name = "ORIGIN", service = "origin"),
  ],
  globalOutbound = "net",
  %s
);
`, name, "http://"+edgeAddr, key, project, outbound)
		}
		config := fmt.Sprintf(`using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [
    (name = "a", worker = .workerA),
    (name = "b", worker = .workerB),
    (name = "net", network = (allow = ["public", "private", "local"])),
    (name = "origin", external = (address = %q, http = ())),
    (name = "cache", external = (address = %q, http = ())),
  ],
  sockets = [
    (name = "a", address = %q, http = (), service = "a"),
    (name = "b", address = %q, http = (), service = "b"),
  ],
);
`, strings.TrimPrefix(origin.URL, "http://"), strings.TrimPrefix(cacheSrv.URL, "http://"), addrA, addrB) +
			worker("workerA") + worker("workerB")
		capnp := filepath.Join(wdir, "config.capnp")
		if err := os.WriteFile(capnp, []byte(config), 0o644); err != nil {
			t.Fatal(err)
		}
		w := start(t, wd, nil, "serve", capnp, "--verbose")
		exited := make(chan struct{})
		go func() { w.Process.Wait(); close(exited) }()
		waitListening(t, addrA, exited, "workerd")
		waitListening(t, addrB, exited, "workerd")
		t.Cleanup(func() {
			w.Process.Kill()
			<-exited
		})

		client := &http.Client{Timeout: 10 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
		get := func(addr string) string {
			resp, err := client.Get("http://" + addr + "/old")
			if err != nil {
				return err.Error()
			}
			resp.Body.Close()
			return strconv.Itoa(resp.StatusCode) + " " + resp.Header.Get("Location")
		}
		before := lookups()
		if got := get(addrA); got != "301 /new" {
			problems = append(problems, "first /old: "+got+", want 301 /new")
		}
		// The key holds the request's host name (not its port: both
		// Workers listen on 127.0.0.1), as answers differ by host.
		cacheKey := "redirects-lookup.invalid/" + project + "/127.0.0.1/old"
		// The put runs after the answer (ctx.waitUntil).
		put := false
		for deadline := time.Now().Add(5 * time.Second); !put && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			for _, l := range cache.lines() {
				put = put || l == "PUT "+cacheKey
			}
		}
		if got := get(addrB); got != "301 /new" {
			problems = append(problems, "second /old, from the other isolate: "+got+", want 301 /new")
		}
		if got, want := strings.Join(cache.lines(), "\n"), strings.Join([]string{"GET " + cacheKey + " MISS", "PUT " + cacheKey, "GET " + cacheKey + " HIT"}, "\n"); got != want {
			problems = append(problems, "the cache service saw:\n"+got+"\nwant:\n"+want)
		}
		if n := lookups() - before; n != 1 {
			problems = append(problems, fmt.Sprintf("the edge answered %d lookups, want 1 (the second from the cache)", n))
		}
		return problems
	}

	t.Run("cache", func(t *testing.T) {
		for _, p := range scenario(t, src, true) {
			t.Error(p)
		}
	})
	// The checks fail where the cache does not work.
	t.Run("without the binding", func(t *testing.T) {
		if p := scenario(t, src, false); len(p) == 0 {
			t.Error("without cacheApiOutbound the scenario passed: it does not test the cache")
		} else {
			t.Logf("as expected: %s", strings.Join(p, "; "))
		}
	})
	t.Run("without cache.put", func(t *testing.T) {
		if p := scenario(t, withoutPut, true); len(p) == 0 {
			t.Error("with a Worker that never puts, the scenario passed: it does not test the cache")
		} else {
			t.Logf("as expected: %s", strings.Join(p, "; "))
		}
	})
}
