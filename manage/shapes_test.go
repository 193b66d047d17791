package manage

import "redirects/api"

// The shapes the tests decode answers into, by the names they were
// declared under before package api held them.
type (
	orgJSON     = api.OrgOfCaller
	memberJSON  = api.Member
	projectJSON = api.Project
)
