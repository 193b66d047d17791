// Package deploy holds the files that run redirects as a service: a systemd
// unit (redirects.service) and a container file (Containerfile). It has no
// code; its tests check both files with the tools this machine has
// (systemd-analyze, strace, a container engine), as docs/operations.md
// describes.
package deploy
