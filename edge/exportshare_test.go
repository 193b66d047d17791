package edge

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	"redirects"
)

// countingExports is an ExportSource whose loads wait for release and
// are counted.
type countingExports struct {
	loads   atomic.Int64
	release chan struct{}
	size    int
}

func (s *countingExports) FindExport(ctx context.Context, project string, version int, format string) (*redirects.Deployment, *redirects.Export, error) {
	s.loads.Add(1)
	<-s.release
	return &redirects.Deployment{Version: version}, &redirects.Export{Format: format, Body: make([]byte, s.size), ETag: `"e"`}, nil
}

func (s *countingExports) FindDeployment(context.Context, string, int) (*redirects.Deployment, []redirects.Rule, error) {
	return nil, nil, redirects.Errorf(redirects.ENOTFOUND, "none")
}

// TestConcurrentExportLoadsShareOne (finding 5): twelve requests for one
// large file at once load it once; while one copy is still held, a later
// request takes it instead of loading another, even when the file is too
// large for the cache.
func TestConcurrentExportLoadsShareOne(t *testing.T) {
	src := &countingExports{release: make(chan struct{}), size: 4 << 20}
	c := NewExportCache(src, 1<<20) // smaller than the file: never cached
	var wg sync.WaitGroup
	got := make([]*redirects.Export, 12)
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			e, err := c.Get(context.Background(), "prj", 3, "nginx")
			if err != nil {
				t.Error(err)
			}
			got[i] = e
		}()
	}
	for src.loads.Load() == 0 {
		runtime.Gosched()
	}
	close(src.release)
	wg.Wait()
	if n := src.loads.Load(); n != 1 {
		t.Fatalf("12 concurrent requests loaded the file %d times, want once", n)
	}
	for _, e := range got[1:] {
		if e != got[0] {
			t.Fatal("concurrent requests got different copies of one file")
		}
	}
	held := got[0]
	again, err := c.Get(context.Background(), "prj", 3, "nginx")
	if err != nil || again != held || src.loads.Load() != 1 {
		t.Fatalf("a request while a copy is held: %v, same copy %v, %d loads; want the held copy, 1 load", err, again == held, src.loads.Load())
	}
	runtime.KeepAlive(held)
}

// TestEvictedExportStillWrittenIsShared: a file the cache lets go to make
// room for another, while a download still writes it, is taken by the next
// request for it instead of being loaded a second time (12 slow readers
// of a large project's files held a copy per load).
func TestEvictedExportStillWrittenIsShared(t *testing.T) {
	src := &countingExports{release: make(chan struct{}), size: 4 << 20}
	close(src.release)
	c := NewExportCache(src, 6<<20) // room for one file
	held, err := c.Get(context.Background(), "prj", 3, "nginx")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Get(context.Background(), "prj", 3, "haproxy"); err != nil {
		t.Fatal(err)
	}
	if c.Cached("prj", 3, "nginx") != nil {
		t.Fatal("the first file is still cached: the test needs it let go")
	}
	again, err := c.Get(context.Background(), "prj", 3, "nginx")
	if err != nil || again != held || src.loads.Load() != 2 {
		t.Fatalf("the let-go file asked for again while held: %v, same copy %v, %d loads; want the held copy, 2 loads", err, again == held, src.loads.Load())
	}
	runtime.KeepAlive(held)
}
