package api

// Error is the body of every error answer of the management API, the
// same as the edge API's: the message, and its code (docs/manage.md).
type Error struct {
	Error string `json:"error"`
	Code  string `json:"code"`
}
