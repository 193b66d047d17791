// Command redirects is the redirect rule service: the management CLI and,
// with "serve", the edge API.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	m := NewMain()
	code := m.Run(ctx, os.Args[1:])
	stop()
	profileStop()
	os.Exit(code)
}
