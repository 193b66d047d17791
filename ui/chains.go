package ui

import (
	"net/http"
	"strconv"

	"redirects"
)

// chainsData is the chains page: what flattening the draft's chains
// changes (docs/chains.md), and whether the viewer may save it.
type chainsData struct {
	Report  *redirects.FlattenReport
	CanEdit bool
}

// chainsPage shows what flattening the draft's chains would change: each
// rewritten rule's destination before and after, and the chains left
// alone with why. It changes nothing.
func (h *handler) chainsPage(w http.ResponseWriter, r *http.Request) error {
	ph, o, err := h.project(r, redirects.ActionRead)
	if err != nil {
		return err
	}
	rep, err := h.svc.Rules.FlattenChains(r.Context(), ph.ID, redirects.FlattenOptions{})
	if err != nil {
		return err
	}
	canEdit := may(r, ph.OrgID, redirects.ActionEditRules)
	return h.render(w, r, http.StatusOK, "chains", &page{Title: "Flatten chains · " + ph.Name, Org: o, Project: ph, Tab: "rules",
		Data: chainsData{Report: rep, CanEdit: canEdit}})
}

// chainsFlatten saves the rewrites as one change of the draft and opens
// the Import tab on its Undo.
func (h *handler) chainsFlatten(w http.ResponseWriter, r *http.Request) error {
	ph, _, err := h.project(r, redirects.ActionEditRules)
	if err != nil {
		return err
	}
	back := "/projects/" + ph.ID + "/chains"
	rep, err := h.svc.Rules.FlattenChains(r.Context(), ph.ID, redirects.FlattenOptions{Write: true})
	if err != nil {
		if statusOf(err) < 500 {
			return h.redirect(w, r, back, flashErr, "Nothing was changed: "+message(err))
		}
		return err
	}
	if !rep.Written {
		return h.redirect(w, r, back, flashOK, "No chain to flatten: nothing was changed.")
	}
	return h.redirect(w, r, "/projects/"+ph.ID+"/import?undo="+strconv.FormatInt(rep.UndoID, 10), flashOK,
		"Flattened the chains of "+plural(len(rep.Fixes), "rule")+" ("+plural(len(rep.Left), "chain")+" left alone). Deploy to make the change live.")
}
