package main

import (
	"io"
	"log/slog"

	"redirects"
)

// newLogger returns the server's logger on w, at level: key=value lines
// (format "text", the default) or one JSON object a line ("json", for log
// collectors that parse fields), each with time, level and msg.
func newLogger(w io.Writer, level slog.Level, format string) (*slog.Logger, error) {
	if err := checkLogFormat(format); err != nil {
		return nil, err
	}
	opts := &slog.HandlerOptions{Level: level}
	if format == "json" {
		return slog.New(slog.NewJSONHandler(w, opts)), nil
	}
	return slog.New(slog.NewTextHandler(w, opts)), nil
}

// checkLogFormat checks --log-format, so that a command can refuse a bad
// one before it changes anything.
func checkLogFormat(format string) error {
	if format != "text" && format != "json" {
		return redirects.Errorf(redirects.EINVALID, "log format %q is not one of text, json", format)
	}
	return nil
}
