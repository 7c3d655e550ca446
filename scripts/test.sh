#!/usr/bin/env bash
# Builds ddbd twice and runs every test through one CTest run: the GoogleTest unit tests and
# the integration tests that drive the real binary with boto3, the AWS CLI and the JavaScript
# SDK v3 (./build, g++), and the same tests again against the AddressSanitizer + UBSan build
# (asan.*) plus a few seconds of every libFuzzer target over its corpus (fuzz.*), both from
# ./build-asan (clang). The main tree includes the sanitizer tree's tests, so one ctest prints
# one summary (docs/ARCHITECTURE.md, "Two build trees"). Arguments go to ctest, e.g.
# scripts/test.sh -R '^asan\.' or -E '^(asan|fuzz)\.' for the normal tests only.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh --test
scripts/build.sh -DDDBD_SANITIZER_TREE="$PWD/build-asan"
scripts/build.sh --sanitize
js=tests/integration/js
# npm ci only when the lock file changed since the last install.
if ! cmp -s $js/package-lock.json $js/node_modules/.ddbd-installed-lock 2>/dev/null; then
  (cd $js && npm ci --no-audit --no-fund --loglevel=error && cp package-lock.json node_modules/.ddbd-installed-lock)
fi
ctest --test-dir build -j"$(nproc)" --output-on-failure "$@"
