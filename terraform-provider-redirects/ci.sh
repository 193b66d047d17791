#!/usr/bin/env bash
# CI of the OpenTofu provider (a nested module): gofmt, go vet and
# staticcheck inside the module, then its tests with TestAccProvider's real
# tofu, built from OpenTofu's Go module (cached under
# $HOME/.cache/redirects-ci/tofu) against a real "redirects serve".
# .ci/run may call it; it runs on its own too.
set -euo pipefail
cd "$(dirname "$0")"

TOFU_VERSION=${TOFU_VERSION:-v1.12.6}
cache="$HOME/.cache/redirects-ci/tofu"
tofu="$cache/tofu-$TOFU_VERSION"
log() { printf '\n== %s\n' "$*"; }

if [ -n "${TF_ACC_TERRAFORM_PATH:-}" ] && [ -x "$TF_ACC_TERRAFORM_PATH" ]; then
  tofu=$TF_ACC_TERRAFORM_PATH
elif [ ! -x "$tofu" ]; then
  log "building tofu $TOFU_VERSION from github.com/opentofu/opentofu (once; cached in $cache)"
  mkdir -p "$cache"
  dir=$(cd /tmp && GOFLAGS=-mod=mod go mod download -json "github.com/opentofu/opentofu@$TOFU_VERSION" | sed -n 's/^\t"Dir": "\(.*\)",$/\1/p')
  src=$(mktemp -d)
  cp -r "$dir/." "$src"
  chmod -R u+w "$src"
  (cd "$src" && go build -o "$tofu.tmp" ./cmd/tofu)
  mv "$tofu.tmp" "$tofu"
  rm -rf "$src"
fi
# A TF_CLI_CONFIG_FILE that names no file makes tofu warn before its output.
if [ -n "${TF_CLI_CONFIG_FILE:-}" ] && [ ! -e "$TF_CLI_CONFIG_FILE" ]; then unset TF_CLI_CONFIG_FILE; fi
"$tofu" version

log "gofmt, go vet, staticcheck (terraform-provider-redirects)"
bad=$(gofmt -l .)
if [ -n "$bad" ]; then
  echo "not gofmt'd: $bad" >&2
  exit 1
fi
go vet ./...
staticcheck=$(go env GOPATH)/bin/staticcheck
if [ -x "$staticcheck" ]; then "$staticcheck" ./...; fi

log "tests, with tofu"
TF_ACC=1 TF_ACC_TERRAFORM_PATH="$tofu" go test -count=1 ./...
