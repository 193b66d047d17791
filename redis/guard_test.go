package redis

import (
	"strings"
	"testing"
)

// TestRespScanner holds the guard to RESP's framing: well-formed streams
// pass whichever way the reads split them; out-of-bounds ones fail.
func TestRespScanner(t *testing.T) {
	good := []string{
		"+OK\r\n",
		":42\r\n$5\r\nhello\r\n$-1\r\n*-1\r\n_\r\n",
		"*4\r\n:1\r\n:2\r\n:3\r\n:4\r\n",
		"*2\r\n-ERR boom\r\n*1\r\n$3\r\na\r\n\r\n", // a bulk may hold CR LF
		"%2\r\n+server\r\n+redis\r\n+proto\r\n:3\r\n",
		"|1\r\n+key\r\n+val\r\n:7\r\n", // an attribute, then its value
		"*0\r\n%0\r\n~1\r\n,1.5\r\n>2\r\n+message\r\n+x\r\n",
		"=8\r\ntxt:abcd\r\n#t\r\n(123\r\n",
		"$" + "1048576\r\n" + strings.Repeat("x", 1<<20) + "\r\n",
		strings.Repeat("*1\r\n", maxDepth) + ":1\r\n",
	}
	bad := []string{
		"$9223372036854775807\r\n",
		"*9223372036854775807\r\n",
		"%4611686018427387904\r\n",
		"$1048577\r\n",
		"*65537\r\n",
		"$-2\r\n",
		"%-1\r\n",
		"$12x\r\n",
		"?5\r\n",
		"+no carriage return\n",
		strings.Repeat("*1\r\n", maxDepth+1),
		"+" + strings.Repeat("x", maxLine) + "\r\n",
	}
	for _, step := range []int{1, 3, 7, 1 << 30} {
		for _, s := range good {
			var sc respScanner
			ok := true
			for i := 0; i < len(s) && ok; i += step {
				ok = sc.scan([]byte(s[i:min(len(s), i+step)]))
			}
			if !ok || len(sc.stack) != 0 || sc.skip != 0 || len(sc.line) != 0 {
				t.Errorf("step %d: %.40q: ok %v, open %d, skip %d, line %d; want a complete, accepted stream", step, s, ok, len(sc.stack), sc.skip, len(sc.line))
			}
		}
		for _, s := range bad {
			var sc respScanner
			ok := true
			for i := 0; i < len(s) && ok; i += step {
				ok = sc.scan([]byte(s[i:min(len(s), i+step)]))
			}
			if ok {
				t.Errorf("step %d: %.40q accepted", step, s)
			}
		}
	}
}
