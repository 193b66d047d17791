package manage

import (
	"fmt"
	"testing"

	"redirects"
)

// TestSuggestBodies: POST .../suggestions takes a sitemap of 30,000 URLs
// (about 1.6 MB, above the API's default cap on other bodies) from an
// editor, while a viewer posting a body that is not even JSON is refused
// for its role (403), not for its body (400): an Op authorizes before it
// reads its input.
func TestSuggestBodies(t *testing.T) {
	runSuite(t, func(t *testing.T, open newStoreFunc) {
		e := newEnv(t, open, false, nil)
		a := e.newOrg("Sitemaps")
		pbase := "/manage/v1/projects/" + a.project.ID
		urls := make([]string, 30000)
		for i := range urls {
			urls[i] = fmt.Sprintf("https://www.example.com/docs/section-%05d/page-%05d/", i/100, i)
		}
		r := a.tokens[redirects.RoleEditor].do("POST", pbase+"/suggestions", map[string]any{"sitemap": urls})
		r.want(t, 200)
		a.tokens[redirects.RoleViewer].do("POST", pbase+"/suggestions", "{not json").want(t, 403)
		a.tokens[redirects.RoleViewer].do("POST", pbase+"/destination-checks", "{not json").want(t, 403)
		a.tokens[redirects.RoleViewer].do("POST", pbase+"/suggestions/accept", "{not json").want(t, 403)
	})
}
