#!/usr/bin/env bash
# Builds ddbd and serves on port 8000 with an on-disk database in ./ddbd-data.
# Extra arguments go to ddbd (e.g. --in-memory, --isolate access-key, --port 8001).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
scripts/build.sh
exec build/server/ddbd --port 8000 --db-path ddbd-data "$@"
