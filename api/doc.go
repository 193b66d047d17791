// Package api declares, once, the JSON shapes of the management API
// (docs/manage.md): what its routes take and answer. The management API
// encodes them, remote decodes them, the command line's --json output and
// plan files use them; nothing else declares a json-tagged type of the
// management API.
package api
