#!/usr/bin/env bash
# Configures and builds ddbd (and its tests).
#   scripts/build.sh              ./build: g++, the normal build
#   scripts/build.sh --sanitize   ./build-asan: clang with AddressSanitizer + UBSan and the
#                                 libFuzzer targets; its tests are named asan.* and fuzz.*
#                                 (docs/ARCHITECTURE.md, "Two build trees")
# Extra arguments after the option go to the configure step (e.g. -DDDBD_SANITIZER_TREE=…).
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ "${1:-}" == "--sanitize" ]]; then
  shift
  cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DBUILD_TESTING=ON \
    -DCMAKE_CXX_COMPILER=clang++ -DDDBD_SANITIZE=ON -DDDBD_FUZZ=ON -DDDBD_TEST_PREFIX=asan. \
    "$@" >/dev/null
  cmake --build build-asan -j"$(nproc)"
  exit
fi
cmake -S . -B build -DCMAKE_BUILD_TYPE="${BUILD_TYPE:-RelWithDebInfo}" -DBUILD_TESTING=ON "$@" \
  >/dev/null
cmake --build build -j"$(nproc)"
