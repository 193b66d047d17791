package http

import (
	"net/http"
	"net/http/pprof"
)

// The routes of both listeners are listed in this file, and only here.

// edgeRoutes are the routes of the edge listener (Config.Addr): the edge API
// of docs/contract.md. Edge.Handle dispatches on them whichever engine
// carries the listener (evhttp or net/http); a path not listed answers 404
// NOT_FOUND (notFound).
var edgeRoutes = [...]edgeRoute{
	{path: "/v1/lookup", endpoint: epLookup, limited: true, handler: handleLookup},
	{path: exportPath, endpoint: epExport, limited: true, handler: handleExport},
	{path: "/healthz", endpoint: epOther, handler: handleHealth},
	{path: "/readyz", endpoint: epOther, handler: handleReady},
}

// exportPath is the route of export downloads, the only answers whose
// content coding Accept-Encoding picks.
const exportPath = "/v1/export"

// notFound answers every path of the edge listener that edgeRoutes does not
// list.
var notFound = edgeRoute{endpoint: epOther, handler: handleNotFound}

// adminRoutes are the routes of the admin listener (Config.AdminAddr),
// served by net/http's ServeMux, which answers 404 to any other path and
// 405 to another method. Go's profiles are among them only with
// Config.Pprof, registered here by name (the package's init also puts them
// on http.DefaultServeMux, which nothing serves).
func (s *Server) adminRoutes() []adminRoute {
	routes := []adminRoute{
		{pattern: "GET /metrics", handler: s.metrics.Handler(s.edge)},
		{pattern: "GET /healthz", handler: http.HandlerFunc(s.edge.ServeHTTP)},
		{pattern: "GET /readyz", handler: http.HandlerFunc(s.edge.ServeHTTP)},
	}
	if s.cfg.Pprof {
		routes = append(routes,
			adminRoute{pattern: "GET /debug/pprof/", handler: http.HandlerFunc(pprof.Index)},
			adminRoute{pattern: "GET /debug/pprof/cmdline", handler: http.HandlerFunc(pprof.Cmdline)},
			adminRoute{pattern: "GET /debug/pprof/profile", handler: http.HandlerFunc(pprof.Profile)},
			adminRoute{pattern: "GET /debug/pprof/symbol", handler: http.HandlerFunc(pprof.Symbol)},
			adminRoute{pattern: "GET /debug/pprof/trace", handler: http.HandlerFunc(pprof.Trace)},
		)
	}
	return routes
}

// edgeRoute is one path of the edge listener.
type edgeRoute struct {
	path string
	// endpoint is where the metrics count the route's answers.
	endpoint endpoint
	// limited routes are counted by the limiter, so a limiter that blocks
	// moves their answers off the event loop (Edge.Handle).
	limited bool
	handler edgeHandler
}

// edgeHandler names the handler of an edge route. The route table names its
// handlers rather than holding them as functions: a call through a function
// value hides from escape analysis where the request and the answer go, so
// both would be allocated on the heap on every request.
type edgeHandler uint8

const (
	handleNotFound edgeHandler = iota
	handleLookup
	handleExport
	handleHealth
	handleReady
)

// route returns the route of path, or notFound. The edge has four routes:
// comparing the path with each costs less than hashing it.
func route(path string) *edgeRoute {
	for i := range edgeRoutes {
		if edgeRoutes[i].path == path {
			return &edgeRoutes[i]
		}
	}
	return &notFound
}

// adminRoute is one route of the admin listener, as a ServeMux pattern.
type adminRoute struct {
	pattern string
	handler http.Handler
}

// adminMux returns the admin listener's handler.
func (s *Server) adminMux() *http.ServeMux {
	mux := http.NewServeMux()
	for _, r := range s.adminRoutes() {
		mux.Handle(r.pattern, r.handler)
	}
	return mux
}
