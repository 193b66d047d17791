// Package redis implements redirects.Limiter on Redis, so that several edge
// nodes share their per-minute windows and monthly usage. It talks to Redis
// through github.com/redis/rueidis (one pipelined connection per node, TLS,
// Lua scripts by SHA), and puts a guard of its own in front of the client's
// reply parser (replyGuard).
package redis

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/redis/rueidis"
)

// dialTimeout bounds connecting (and the handshake: HELLO, AUTH, SELECT);
// writeTimeout is how long a connection may go without an answer before
// the client drops it and dials again.
const (
	dialTimeout  = time.Second
	writeTimeout = 2 * time.Second
)

// rootCAs, if set, replaces the system's roots (tests).
var rootCAs *x509.CertPool

// client is the connection to one Redis server.
type client struct {
	rc rueidis.Client
	// addr is host:port, for log lines: never the URL, which may hold a
	// password.
	addr string
}

// options reads redis://[user:password@]host[:port][/db] and its TLS form
// rediss://. A user name without a password is a password (redis://secret@host),
// as Redis before ACLs knew only passwords. Errors never repeat the URL: it
// may hold a password.
func options(raw string) (rueidis.ClientOption, error) {
	var opt rueidis.ClientOption
	u, err := url.Parse(raw)
	if err != nil {
		return opt, errors.New("the Redis URL cannot be parsed: want redis://[user:password@]host[:port][/db] or rediss://")
	}
	if (u.Scheme != "redis" && u.Scheme != "rediss") || u.Hostname() == "" {
		return opt, fmt.Errorf("the Redis URL %s is not redis://[user:password@]host[:port][/db] or rediss://", u.Redacted())
	}
	port := u.Port()
	if port == "" {
		port = "6379"
	}
	opt.InitAddress = []string{net.JoinHostPort(u.Hostname(), port)}
	if u.Scheme == "rediss" {
		// The server's certificate is checked against the system's roots
		// (SSL_CERT_FILE and SSL_CERT_DIR add a private CA).
		opt.TLSConfig = &tls.Config{MinVersion: tls.VersionTLS12, ServerName: u.Hostname(), RootCAs: rootCAs}
	}
	if u.User != nil {
		opt.Username = u.User.Username()
		if p, ok := u.User.Password(); ok {
			opt.Password = p
		} else {
			opt.Password, opt.Username = opt.Username, ""
		}
	}
	if p := strings.Trim(u.Path, "/"); p != "" {
		if opt.SelectDB, err = strconv.Atoi(p); err != nil || opt.SelectDB < 0 {
			return opt, fmt.Errorf("the Redis URL %s: database %q is not a number", u.Redacted(), p)
		}
	}
	opt.ClientName = "redirects"
	opt.ForceSingleClient = true
	// The limiter reads nothing it could cache: every reply is a counter.
	opt.DisableCache = true
	opt.Dialer.Timeout = dialTimeout
	opt.ConnWriteTimeout = writeTimeout
	opt.DialCtxFn = dialGuarded
	// The limiter bounds its own waits and tries again on its own terms.
	opt.DisableRetry = true
	return opt, nil
}

// newClient connects to the Redis at raw. A Redis that does not answer
// yet is not an error here: the client dials again on the next command, and
// the limiter starts in fallback.
func newClient(raw string) (*client, error) {
	opt, err := options(raw)
	if err != nil {
		return nil, err
	}
	rc, err := rueidis.NewClient(opt)
	if rc == nil {
		return nil, errors.New(redact(err.Error(), opt.Password))
	}
	return &client{rc: rc, addr: opt.InitAddress[0]}, nil
}

// redact removes a password from an error text, for errors whose text came
// from elsewhere (a server's error reply may quote what it was sent).
func redact(s, password string) string {
	if password == "" {
		return s
	}
	return strings.ReplaceAll(s, password, "xxxxx")
}

func (c *client) close() { c.rc.Close() }

// dialGuarded dials Redis (over TLS for rediss://) and puts a replyGuard
// between the connection and the client's parser.
func dialGuarded(ctx context.Context, dst string, d *net.Dialer, cfg *tls.Config) (net.Conn, error) {
	var nc net.Conn
	var err error
	if cfg != nil {
		td := tls.Dialer{NetDialer: d, Config: cfg}
		nc, err = td.DialContext(ctx, "tcp", dst)
	} else {
		nc, err = d.DialContext(ctx, "tcp", dst)
	}
	if err != nil {
		return nil, err
	}
	return &guardedConn{Conn: nc}, nil
}

// Addr returns the host:port a Redis URL names.
func Addr(raw string) (string, error) {
	opt, err := options(raw)
	if err != nil {
		return "", err
	}
	return opt.InitAddress[0], nil
}

// DeleteKeys deletes every key that starts with prefix (SCAN and DEL), for
// tests and operators cleaning up a key prefix.
func DeleteKeys(ctx context.Context, url, prefix string) error {
	c, err := newClient(url)
	if err != nil {
		return err
	}
	defer c.close()
	cursor := uint64(0)
	for {
		e, err := c.rc.Do(ctx, c.rc.B().Scan().Cursor(cursor).Match(prefix+"*").Count(1000).Build()).AsScanEntry()
		if err != nil {
			return err
		}
		if len(e.Elements) > 0 {
			if err := c.rc.Do(ctx, c.rc.B().Del().Key(e.Elements...).Build()).Error(); err != nil {
				return err
			}
		}
		if cursor = e.Cursor; cursor == 0 {
			return nil
		}
	}
}
