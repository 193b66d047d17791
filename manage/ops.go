package manage

import (
	"net/http"
	"net/url"

	"redirects/api"
)

// queryReader is an Op's input that a GET reads from its query.
type queryReader interface {
	ReadQuery(q url.Values) error
}

// opRoute is the route of op (api.Ops): decode its input (a GET's query,
// any other method's optional JSON body), make its call on h.svc, answer
// 200 with what it returns.
func (h *handler) opRoute(op api.Route) route {
	method, path := op.MethodPath()
	return route{method: method, pattern: "/manage/v1" + path, handler: func(w http.ResponseWriter, r *http.Request) error {
		if action := op.ProjectAction(); action != "" {
			if _, err := h.authorizeProject(r, action); err != nil {
				return err
			}
		}
		out, err := op.Serve(r.Context(), h.svc.Services, r.PathValue("project"), func(in any) error {
			if method != "GET" {
				limit := h.maxBody
				if op.IsUpload() {
					limit = h.maxImport
				}
				return h.decodeJSONMax(w, r, in, true, limit)
			}
			if q, ok := in.(queryReader); ok {
				if err := q.ReadQuery(r.URL.Query()); err != nil {
					return badQuery("%s", err.Error())
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
		writeJSON(w, http.StatusOK, out)
		return nil
	}}
}
