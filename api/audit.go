package api

import "redirects"

// AuditPage is the answer of GET /orgs/{org}/audit: a page of entries,
// newest first. Next, when not null, is the before= of the following
// (older) page.
type AuditPage struct {
	Entries []*redirects.AuditEntry `json:"entries"`
	Next    *string                 `json:"next"`
}
