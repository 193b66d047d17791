// Package redis implements redirects.Limiter on Redis, so that several edge
// nodes share their per-minute windows and monthly usage. It speaks the
// Redis protocol (RESP2) itself: the limiter needs five commands, and a
// client library would be the largest dependency of the project.
package redis

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
)

// client is a small pool of RESP connections to one Redis server.
type client struct {
	addr     string
	password string
	username string
	db       int
	timeout  time.Duration

	mu   sync.Mutex
	idle []*conn
}

// conn is one connection with its buffered reader and writer.
type conn struct {
	c net.Conn
	r *bufio.Reader
	w *bufio.Writer
}

// parseURL reads redis://[user:password@]host:port[/db].
func parseURL(raw string) (*client, error) {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "redis" || u.Host == "" {
		return nil, fmt.Errorf("redis URL %q is not redis://[user:password@]host:port[/db]", raw)
	}
	c := &client{addr: u.Host, timeout: 500 * time.Millisecond}
	if !strings.Contains(c.addr, ":") {
		c.addr += ":6379"
	}
	if u.User != nil {
		c.username = u.User.Username()
		c.password, _ = u.User.Password()
		if c.password == "" {
			c.password, c.username = c.username, ""
		}
	}
	if p := strings.Trim(u.Path, "/"); p != "" {
		if c.db, err = strconv.Atoi(p); err != nil {
			return nil, fmt.Errorf("redis URL %q: database %q is not a number", raw, p)
		}
	}
	return c, nil
}

func (cl *client) dial(ctx context.Context) (*conn, error) {
	d := net.Dialer{Timeout: cl.timeout}
	nc, err := d.DialContext(ctx, "tcp", cl.addr)
	if err != nil {
		return nil, err
	}
	c := &conn{c: nc, r: bufio.NewReader(nc), w: bufio.NewWriter(nc)}
	if cl.password != "" {
		args := []string{"AUTH", cl.password}
		if cl.username != "" {
			args = []string{"AUTH", cl.username, cl.password}
		}
		if _, err := c.do(cl.timeout, args...); err != nil {
			nc.Close()
			return nil, err
		}
	}
	if cl.db != 0 {
		if _, err := c.do(cl.timeout, "SELECT", strconv.Itoa(cl.db)); err != nil {
			nc.Close()
			return nil, err
		}
	}
	return c, nil
}

// do runs one command on a pooled connection. A connection that fails is
// dropped, not returned to the pool.
func (cl *client) do(ctx context.Context, args ...string) (any, error) {
	cl.mu.Lock()
	var c *conn
	if n := len(cl.idle); n > 0 {
		c = cl.idle[n-1]
		cl.idle = cl.idle[:n-1]
	}
	cl.mu.Unlock()
	if c == nil {
		var err error
		if c, err = cl.dial(ctx); err != nil {
			return nil, err
		}
	}
	v, err := c.do(cl.timeout, args...)
	var rerr redisError
	if err != nil && !errors.As(err, &rerr) {
		c.c.Close()
		return nil, err
	}
	cl.mu.Lock()
	if len(cl.idle) < 64 {
		cl.idle = append(cl.idle, c)
		c = nil
	}
	cl.mu.Unlock()
	if c != nil {
		c.c.Close()
	}
	return v, err
}

func (cl *client) close() {
	cl.mu.Lock()
	defer cl.mu.Unlock()
	for _, c := range cl.idle {
		c.c.Close()
	}
	cl.idle = nil
}

// redisError is an error reply from the server (the connection is fine).
type redisError string

func (e redisError) Error() string { return "redis: " + string(e) }

func (c *conn) do(timeout time.Duration, args ...string) (any, error) {
	c.c.SetDeadline(time.Now().Add(timeout))
	c.w.WriteByte('*')
	c.w.WriteString(strconv.Itoa(len(args)))
	c.w.WriteString("\r\n")
	for _, a := range args {
		c.w.WriteByte('$')
		c.w.WriteString(strconv.Itoa(len(a)))
		c.w.WriteString("\r\n")
		c.w.WriteString(a)
		c.w.WriteString("\r\n")
	}
	if err := c.w.Flush(); err != nil {
		return nil, err
	}
	return c.read()
}

// read parses one RESP2 reply: a string, an int64, nil, a []any, or a
// redisError.
func (c *conn) read() (any, error) {
	line, err := c.r.ReadString('\n')
	if err != nil {
		return nil, err
	}
	if len(line) < 3 || line[len(line)-2] != '\r' {
		return nil, fmt.Errorf("redis: malformed reply %q", line)
	}
	body := line[1 : len(line)-2]
	switch line[0] {
	case '+':
		return body, nil
	case '-':
		return nil, redisError(body)
	case ':':
		return strconv.ParseInt(body, 10, 64)
	case '$':
		n, err := strconv.Atoi(body)
		if err != nil || n < -1 {
			return nil, fmt.Errorf("redis: malformed bulk length %q", body)
		}
		if n == -1 {
			return nil, nil
		}
		buf := make([]byte, n+2)
		if _, err := io.ReadFull(c.r, buf); err != nil {
			return nil, err
		}
		return string(buf[:n]), nil
	case '*':
		n, err := strconv.Atoi(body)
		if err != nil || n < -1 {
			return nil, fmt.Errorf("redis: malformed array length %q", body)
		}
		if n == -1 {
			return nil, nil
		}
		out := make([]any, n)
		for i := range out {
			if out[i], err = c.read(); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	return nil, fmt.Errorf("redis: unknown reply type %q", line[0])
}

// Addr returns the host:port a Redis URL names.
func Addr(url string) (string, error) {
	c, err := parseURL(url)
	if err != nil {
		return "", err
	}
	return c.addr, nil
}

// DeleteKeys deletes every key that starts with prefix (SCAN and DEL), for
// tests and operators cleaning up a key prefix.
func DeleteKeys(ctx context.Context, url, prefix string) error {
	c, err := parseURL(url)
	if err != nil {
		return err
	}
	defer c.close()
	cursor := "0"
	for {
		v, err := c.do(ctx, "SCAN", cursor, "MATCH", prefix+"*", "COUNT", "1000")
		if err != nil {
			return err
		}
		reply, ok := v.([]any)
		if !ok || len(reply) != 2 {
			return fmt.Errorf("redis: unexpected SCAN reply %v", v)
		}
		cursor, _ = reply[0].(string)
		keys, _ := reply[1].([]any)
		if len(keys) > 0 {
			args := []string{"DEL"}
			for _, k := range keys {
				if s, ok := k.(string); ok {
					args = append(args, s)
				}
			}
			if _, err := c.do(ctx, args...); err != nil {
				return err
			}
		}
		if cursor == "0" {
			return nil
		}
	}
}
