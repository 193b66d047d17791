package syncagent

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"regexp"
	"strings"
	"time"
)

// maxPayload bounds the entries sent in one "add map" command: HAProxy
// reads a command and its payload into one buffer (tune.bufsize, 16 KiB by
// default) and drops the connection past it.
const maxPayload = 8 << 10

// swapMap replaces the entries of an HAProxy map with those of a map file
// through the Runtime API, atomically: "prepare map" opens a new version
// of the map, "add map @VER" fills it (in payloads of at most maxPayload
// bytes), and "commit map @VER" makes it the one requests read, in one
// step. Requests in flight see the old map or the new one, never a mix, and
// HAProxy is not reloaded.
func swapMap(ctx context.Context, socket, mapName string, body []byte) error {
	out, err := haproxyCommand(ctx, socket, "prepare map "+mapName+"\n")
	if err != nil {
		return err
	}
	m := preparedVersion.FindStringSubmatch(out)
	if m == nil {
		return fmt.Errorf("prepare map %s: %s", mapName, strings.TrimSpace(out))
	}
	ver := m[1]
	var chunk bytes.Buffer
	send := func() error {
		if chunk.Len() == 0 {
			return nil
		}
		cmd := "add map @" + ver + " " + mapName + " <<\n" + chunk.String() + "\n"
		chunk.Reset()
		out, err := haproxyCommand(ctx, socket, cmd)
		if err != nil {
			return err
		}
		if msg := strings.TrimSpace(out); msg != "" {
			return fmt.Errorf("add map @%s %s: %s", ver, mapName, msg)
		}
		return nil
	}
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(make([]byte, 0, 64<<10), 64<<10)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' {
			continue
		}
		if chunk.Len()+len(line)+1 > maxPayload {
			if err := send(); err != nil {
				return err
			}
		}
		chunk.WriteString(line)
		chunk.WriteByte('\n')
	}
	if err := sc.Err(); err != nil {
		return err
	}
	if err := send(); err != nil {
		return err
	}
	out, err = haproxyCommand(ctx, socket, "commit map @"+ver+" "+mapName+"\n")
	if err != nil {
		return err
	}
	if msg := strings.TrimSpace(out); msg != "" {
		return fmt.Errorf("commit map @%s %s: %s", ver, mapName, msg)
	}
	return nil
}

var preparedVersion = regexp.MustCompile(`New version created: (\d+)`)

// haproxyCommand sends one command to the Runtime API socket (a Unix
// socket path, or host:port for a TCP one) and returns its answer.
func haproxyCommand(ctx context.Context, socket, cmd string) (string, error) {
	network := "unix"
	if !strings.HasPrefix(socket, "/") && strings.Contains(socket, ":") {
		network = "tcp"
	}
	var d net.Dialer
	dctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	c, err := d.DialContext(dctx, network, socket)
	if err != nil {
		return "", fmt.Errorf("the HAProxy Runtime API: %w", err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(30 * time.Second))
	if _, err := io.WriteString(c, cmd); err != nil {
		return "", fmt.Errorf("the HAProxy Runtime API: %w", err)
	}
	out, err := io.ReadAll(io.LimitReader(c, 64<<10))
	if err != nil {
		return "", fmt.Errorf("the HAProxy Runtime API: %w", err)
	}
	return string(out), nil
}
