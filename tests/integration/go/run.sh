#!/bin/sh
# Runs the Go SDK v2 tests with Debian's Go and Debian's packaged SDK (GOPATH mode: no module
# download). DDBD_BINARY names the server binary.
set -e
cd "$(dirname "$0")"
export GO111MODULE=off GOPATH=/usr/share/gocode GOFLAGS=
export GOCACHE="${GOCACHE:-${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/go-build}"
exec go test -count=1 -v .
