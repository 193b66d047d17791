package importer

import (
	"context"
	"io"
)

// readFile is Read with a rule limit (0 for none).
func readFile(ctx context.Context, in io.Reader, from string, o Options, maxRules int) (*Result, error) {
	o.MaxRules = maxRules
	return Read(ctx, in, from, o)
}
