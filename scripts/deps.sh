#!/usr/bin/env bash
# Installs what ddbd needs from Debian's packages (and, with --test, the test clients).
# Installs only what is missing, so a second run costs nothing. Run as root (or via sudo).
#   scripts/deps.sh          build dependencies
#   scripts/deps.sh --test   build and test dependencies
set -euo pipefail

packages=(g++ cmake make pkg-config ccache libboost1.81-dev librocksdb-dev libsimdjson-dev
          libhnswlib-dev libxxhash-dev libjemalloc-dev zlib1g-dev libzstd-dev libssl-dev libgtest-dev libgmock-dev libbenchmark-dev)
if [[ "${1:-}" == "--test" ]]; then
  packages+=(python3 python3-boto3 python3-pytest python3-prometheus-client awscli curl)
  # ImportTable's ZSTD test compresses its objects with the zstd tool.
  packages+=(zstd)
  # The Go SDK v2's integration tests: Debian's Go and its packaged SDK.
  packages+=(golang-go golang-github-aws-aws-sdk-go-v2-dev)
  # The code-shape check (tests/architecture) compares every source with clang-format's.
  packages+=(clang-format)
  # The console's test drives Debian's Chromium headless (puppeteer-core, from npm).
  packages+=(chromium)
  # The sanitizer and fuzzing tree (build-asan/): clang, its ASan/UBSan/libFuzzer runtimes,
  # llvm-symbolizer for readable reports.
  packages+=(clang libclang-rt-14-dev llvm)
  command -v node >/dev/null && command -v npm >/dev/null || packages+=(nodejs npm)
fi

missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" \
    || missing+=("$package")
done
if ((${#missing[@]})); then
  echo "installing: ${missing[*]}" >&2
  SUDO=""
  [[ $(id -u) -eq 0 ]] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends \
    "${missing[@]}" >/dev/null
fi
