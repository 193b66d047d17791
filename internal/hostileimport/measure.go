package hostileimport

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Node is a running "redirects serve" to send imports to: its process ID
// (for /proc), the management API's base URL, a project and an editor
// token of its organization.
type Node struct {
	PID     int
	Manage  string
	Project string
	Token   string
}

// Result is what one hostile import cost the node.
type Result struct {
	Shape string
	Size  int64
	// Status is the answer's status (0 when none came); Err the client's
	// error when none came, or when the answer's body broke off.
	Status int
	Err    error
	// Reply is the answer's size in bytes; Excerpt its first 200, Tail
	// its last 16.
	Reply   int64
	Excerpt string
	Tail    string
	// Sent is how much of the file went before the answer or the cut.
	Sent int64
	// Before is the node's RSS before; Growth its peak RSS during the
	// import (and the second after) less Before.
	Before, Growth int64
	// Cut says the import was cut: the client left after Options.CutAfter,
	// or when the node's RSS grew past Options.Abort.
	Cut string
	// IdleTicks is the CPU time (clock ticks, 1/100 s on Linux) the node
	// used in the second that starts a second after the answer or the
	// cut: near 0 when it stopped working on the import within a second.
	IdleTicks int64
	// Took is how long the import took, for reports only.
	Took time.Duration
}

// Options tunes Send.
type Options struct {
	// CutAfter, when positive, makes the client leave after that long.
	CutAfter time.Duration
	// Abort is the RSS growth at which the client leaves, so a runaway
	// import cannot take the machine's memory; 0 is 10 times the size.
	Abort int64
	// ReplyLimit is how much of the answer is kept; the rest is counted.
	ReplyLimit int64
}

// counter counts what a reader gave.
type counter struct {
	r  io.Reader
	mu sync.Mutex
	n  int64
}

func (c *counter) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.mu.Lock()
	c.n += int64(n)
	c.mu.Unlock()
	return n, err
}

func (c *counter) count() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n
}

// Send sends the shape's file of size bytes to the node's import route
// (dry_run=true, so nothing is written), and measures the node meanwhile
// and in the second after.
func Send(n Node, s Shape, size int64, o Options) Result {
	res := Result{Shape: s.Name, Size: size}
	if o.Abort == 0 {
		o.Abort = 10 * size
	}
	if o.ReplyLimit == 0 {
		o.ReplyLimit = 1 << 20
	}
	ResetPeak(n.PID)
	res.Before, _ = Proc(n.PID, "VmRSS")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var peak int64
	var cutMu sync.Mutex
	cut := func(why string) {
		cutMu.Lock()
		if res.Cut == "" {
			res.Cut = why
		}
		cutMu.Unlock()
		cancel()
	}
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		for {
			if rss, err := Proc(n.PID, "VmRSS"); err == nil {
				peak = max(peak, rss)
				if rss-res.Before > o.Abort {
					cut(fmt.Sprintf("RSS grew past %d MiB", o.Abort>>20))
				}
			}
			select {
			case <-stop:
				return
			case <-time.After(10 * time.Millisecond):
			}
		}
	}()
	if o.CutAfter > 0 {
		t := time.AfterFunc(o.CutAfter, func() { cut(fmt.Sprintf("the client left after %s", o.CutAfter)) })
		defer t.Stop()
	}
	q := url.Values{"mode": {"append"}, "dry_run": {"true"}}
	if s.From != "" {
		q.Set("from", s.From)
	}
	body := &counter{r: s.Reader(size)}
	start := time.Now()
	req, err := http.NewRequestWithContext(ctx, "POST", n.Manage+"/manage/v1/projects/"+n.Project+"/imports?"+q.Encode(), body)
	if err != nil {
		res.Err = err
		return res
	}
	req.ContentLength = size
	req.Header.Set("Authorization", "Bearer "+n.Token)
	req.Header.Set("Content-Type", "application/octet-stream")
	if s.From == "" {
		req.Header.Set("Content-Type", "text/csv")
	}
	r, err := (&http.Client{Transport: &http.Transport{DisableKeepAlives: true}}).Do(req)
	if err == nil {
		var sb strings.Builder
		kept, _ := io.Copy(&sb, io.LimitReader(r.Body, o.ReplyLimit))
		var tail tailWriter
		rest, err2 := io.Copy(&tail, r.Body)
		r.Body.Close()
		res.Status, res.Reply, res.Excerpt = r.StatusCode, kept+rest, sb.String()
		res.Tail = tail.last(sb.String())
		if len(res.Excerpt) > 200 {
			res.Excerpt = res.Excerpt[:200]
		}
		err = err2
	}
	res.Err = err
	res.Took = time.Since(start)
	res.Sent = body.count()
	// The node should stop within a second of the answer or the client
	// leaving: it is idle in the second after that.
	time.Sleep(time.Second)
	before, err1 := CPUTicks(n.PID)
	time.Sleep(time.Second)
	after, err2 := CPUTicks(n.PID)
	if err1 == nil && err2 == nil {
		res.IdleTicks = after - before
	} else {
		res.IdleTicks = -1
	}
	close(stop)
	<-sampled
	if hwm, err := Proc(n.PID, "VmHWM"); err == nil {
		peak = max(peak, hwm)
	}
	res.Growth = peak - res.Before
	return res
}

// Proc returns a field of /proc/PID/status in bytes (VmRSS, VmHWM).
func Proc(pid int, field string) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, field+":"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return kb << 10, err
		}
	}
	return 0, fmt.Errorf("/proc/%d/status has no %s", pid, field)
}

// ResetPeak resets the process's VmHWM to its RSS now (Linux's
// clear_refs), so that the next VmHWM is the peak of what follows.
func ResetPeak(pid int) bool {
	return os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", pid), []byte("5"), 0) == nil
}

// CPUTicks returns the process's user and system CPU time in clock ticks
// (/proc/PID/stat's utime and stime).
func CPUTicks(pid int) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The command name, in parentheses, may hold spaces.
	i := strings.LastIndexByte(string(b), ')')
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 {
		return 0, fmt.Errorf("/proc/%d/stat: %q", pid, b)
	}
	u, err1 := strconv.ParseInt(f[11], 10, 64)
	s, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("/proc/%d/stat: %q", pid, b)
	}
	return u + s, nil
}

// tailWriter keeps the last tailBytes bytes written to it.
type tailWriter struct{ b []byte }

const tailBytes = 16

func (t *tailWriter) Write(p []byte) (int, error) {
	t.b = append(t.b, p[max(0, len(p)-tailBytes):]...)
	if len(t.b) > tailBytes {
		t.b = append(t.b[:0], t.b[len(t.b)-tailBytes:]...)
	}
	return len(p), nil
}

// last returns the last tailBytes bytes of the answer: of what t took, or
// of kept (the answer's beginning) when t took fewer.
func (t *tailWriter) last(kept string) string {
	s := kept + string(t.b)
	return s[max(0, len(s)-tailBytes):]
}
