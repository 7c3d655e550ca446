#!/usr/bin/env bash
# Configures and builds ddbd (and its tests) in ./build.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build -DCMAKE_BUILD_TYPE="${BUILD_TYPE:-RelWithDebInfo}" -DBUILD_TESTING=ON >/dev/null
cmake --build build -j"$(nproc)"
