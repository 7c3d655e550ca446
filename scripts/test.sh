#!/usr/bin/env bash
# Builds ddbd and runs every test: GoogleTest unit tests and the integration tests that drive
# the real binary with boto3, the AWS CLI and the JavaScript SDK v3, all through CTest.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh --test
scripts/build.sh
js=tests/integration/js
# npm ci only when the lock file changed since the last install.
if ! cmp -s $js/package-lock.json $js/node_modules/.ddbd-installed-lock 2>/dev/null; then
  (cd $js && npm ci --no-audit --no-fund --loglevel=error && cp package-lock.json node_modules/.ddbd-installed-lock)
fi
ctest --test-dir build -j"$(nproc)" --output-on-failure "$@"
