package engine

// The names below lend the external tests (package engine_test) the
// internals they check. Those tests draw rules from internal/rulegen,
// which imports the root; they were written outside the root package,
// which it imports, and stayed external when the engine left the root.

// CheckLookup is checkLookup: it holds s.Lookup(path) against the model.
var CheckLookup = checkLookup

// ModelLookup is modelLookup, the plainest lookup there is.
var ModelLookup = modelLookup

// WithBuckets runs f with the prefix index's bucket limits set to keys and
// bytes.
var WithBuckets = withBuckets

// BucketConfig is one prefix index shape of bucketConfigs.
type BucketConfig struct {
	Name  string
	Keys  int32
	Bytes int
}

// BucketConfigs returns bucketConfigs.
func BucketConfigs() []BucketConfig {
	out := make([]BucketConfig, len(bucketConfigs))
	for i, c := range bucketConfigs {
		out[i] = BucketConfig{c.name, c.keys, c.bytes}
	}
	return out
}

// SnapshotBuffers returns the buffers of s that Compile sizes before it
// writes them, by name.
func SnapshotBuffers(s *Snapshot) map[string][]byte {
	return map[string][]byte{"arena": s.arena, "labels": s.prefix.labels, "buckets": s.prefix.buckets}
}
