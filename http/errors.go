package http

import (
	"net/http"

	"redirects"
	"redirects/engine"
)

// apiError is one error answer of the edge API: status, the spec's code and
// message. Every error the edge sends is one of these values, so the
// mapping from conditions to the wire lives here alone.
type apiError struct {
	status int
	code   string
	msg    string
	body   []byte
}

func newAPIError(status int, code, msg string) *apiError {
	e := &apiError{status: status, code: code, msg: msg}
	e.body = errorBody(msg, code)
	return e
}

// errorBody renders {"error": msg, "code": code}.
func errorBody(msg, code string) []byte {
	b := make([]byte, 0, len(msg)+len(code)+24)
	b = append(b, `{"error":"`...)
	b = engine.AppendJSONString(b, msg)
	b = append(b, `","code":"`...)
	b = engine.AppendJSONString(b, code)
	return append(b, `"}`...)
}

// The fixed error answers of docs/contract.md#errors.
var (
	errMethod         = newAPIError(http.StatusMethodNotAllowed, "METHOD_NOT_ALLOWED", "Method Not Allowed")
	errMissingKey     = newAPIError(http.StatusUnauthorized, "MISSING_API_KEY", "Unauthorized")
	errInvalidKey     = newAPIError(http.StatusUnauthorized, "INVALID_API_KEY", "Unauthorized")
	errQuota          = newAPIError(http.StatusTooManyRequests, "QUOTA_EXCEEDED", "Monthly API Quota Exceeded")
	errRate           = newAPIError(http.StatusTooManyRequests, "RATE_LIMIT_EXCEEDED", "Too Many Requests")
	errMissingProject = newAPIError(http.StatusBadRequest, "MISSING_PROJECT", "Missing project parameter")
	errMissingPath    = newAPIError(http.StatusBadRequest, "MISSING_PATH", "Missing path parameter")
	errInvalidPath    = newAPIError(http.StatusBadRequest, "INVALID_PATH", "Invalid path parameter: it must start with / and be at most 2048 bytes")
	errPathEscape     = newAPIError(http.StatusBadRequest, "INVALID_PATH", "Invalid path parameter: a '%' in it must start an escape of two hexadecimal digits (%25 for a '%' itself)")
	errMissingFormat  = newAPIError(http.StatusBadRequest, "MISSING_FORMAT", "Missing format parameter")
	errInvalidFormat  = newAPIError(http.StatusBadRequest, "INVALID_FORMAT", "Invalid format. Accepted formats: csv, nginx, nginx-map-exact, nginx-map-prefix, haproxy, haproxy-map-exact, haproxy-map-prefix")
	errInvalidVersion = newAPIError(http.StatusBadRequest, "INVALID_VERSION", "Invalid version parameter: it must be a positive whole number")
	errInvalidWait    = newAPIError(http.StatusBadRequest, "INVALID_QUERY", "Invalid wait parameter: it must be a whole number of seconds from 0 to 60")
	errWaitVersion    = newAPIError(http.StatusBadRequest, "INVALID_QUERY", "Invalid wait parameter: wait follows the latest deployment and cannot be combined with version")
	errInvalidHost    = newAPIError(http.StatusBadRequest, "INVALID_QUERY", "Invalid host parameter: it must be a host name (labels of letters, digits and '-', an optional :port), or empty for none")
	errRepeatedHost   = newAPIError(http.StatusBadRequest, "INVALID_QUERY", "Repeated host parameter")
	errHostEscape     = newAPIError(http.StatusBadRequest, "INVALID_QUERY", "Malformed query string: bad escape in the host parameter")
	errProject        = newAPIError(http.StatusNotFound, "NOT_FOUND", "Project not found")
	errNoExports      = newAPIError(http.StatusNotFound, "NOT_FOUND", "No exports available. Deploy the project first.")
	errNoDeployments  = newAPIError(http.StatusNotFound, "NOT_FOUND", "No deployments available. Deploy the project first.")
	errRoute          = newAPIError(http.StatusNotFound, "NOT_FOUND", "Not Found")
	errInternal       = newAPIError(http.StatusInternalServerError, "INTERNAL_ERROR", "Internal Server Error")
	errUnavailable    = newAPIError(http.StatusServiceUnavailable, "SERVICE_UNAVAILABLE", "Service Unavailable")
)

// errBadQuery answers a query string that cannot be read: a malformed
// escape or a repeated parameter.
func errBadQuery(msg string) *apiError {
	return newAPIError(http.StatusBadRequest, "INVALID_QUERY", msg)
}

func errVersionNotFound(export bool, version int) *apiError {
	return errVersionNotFoundText(export, itoa(version))
}

func errVersionNotFoundText(export bool, version string) *apiError {
	if export {
		return newAPIError(http.StatusNotFound, "NOT_FOUND", "Export not found for version "+version)
	}
	return newAPIError(http.StatusNotFound, "NOT_FOUND", "Deployment not found for version "+version)
}

// storeError answers a failed store read: 503 when the store cannot be
// reached (what was asked for is not in memory), else 500.
func storeError(err error) *apiError {
	if redirects.ErrorCode(err) == redirects.EUNAVAILABLE {
		return errUnavailable
	}
	return errInternal
}
