#!/usr/bin/env bash
# Long fuzzing runs (the CTest smoke runs fuzz.* take seconds; this takes as long as asked).
#   scripts/fuzz.sh                      every target, 600 s each, one after the other
#   scripts/fuzz.sh partiql 3600         one target for an hour
# Builds the libFuzzer targets in build-asan/ (clang, ASan + UBSan), then runs each one in a
# single process over tests/fuzz/corpus/<target>/ with its dictionary. New inputs go to a
# scratch folder (FUZZ_SCRATCH, default build-asan/fuzz-long/<target>/), never into the
# committed corpus: minimise and copy the useful ones by hand (see README, "Fuzzing").
# A unit may take 60 s before it counts as a hang (a busy machine starves the fuzzer; every
# timeout seen at 10 s replayed in under a second). Crashes go to build-asan/fuzz-artifacts/.
# Prints each run's executions and coverage.
set -euo pipefail
cd "$(dirname "$0")/.."
targets=$(sed -n '/^set(DDBD_FUZZ_TARGETS/,/^)/{/^  /p}' tests/fuzz/CMakeLists.txt)
if [[ $# -ge 1 && "$1" != "all" ]]; then
  grep -qx "  $1" <<<"$targets" || { echo "unknown target '$1'; targets:" $targets >&2; exit 2; }
  targets="$1"
fi
seconds="${2:-600}"

cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DBUILD_TESTING=ON \
  -DCMAKE_CXX_COMPILER=clang++ -DDDBD_SANITIZE=ON -DDDBD_FUZZ=ON -DDDBD_TEST_PREFIX=asan. \
  >/dev/null
# shellcheck disable=SC2046
cmake --build build-asan -j"$(nproc)" --target $(for t in $targets; do echo "${t}_fuzz"; done)

status=0
for target in $targets; do
  scratch="${FUZZ_SCRATCH:-build-asan/fuzz-long}/$target"
  log="build-asan/fuzz-long/$target.log"
  mkdir -p "$scratch" build-asan/fuzz-artifacts "$(dirname "$log")"
  dict=()
  [[ -f tests/fuzz/dictionaries/$target.dict ]] && dict=(-dict="tests/fuzz/dictionaries/$target.dict")
  echo "== $target: $seconds s, new inputs in $scratch, log in $log" >&2
  start=$(date +%s)
  if ! "build-asan/tests/fuzz/${target}_fuzz" -max_total_time="$seconds" -timeout=60 \
      -rss_limit_mb=2048 -print_final_stats=1 "${dict[@]}" \
      -artifact_prefix="build-asan/fuzz-artifacts/$target-" "$scratch" \
      "tests/fuzz/corpus/$target" >"$log" 2>&1; then
    echo "!! $target failed: see $log and build-asan/fuzz-artifacts/" >&2
    status=1
  fi
  elapsed=$(($(date +%s) - start))
  last=$(grep -E '^#[0-9]+' "$log" | tail -1 || true)
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
  echo "$target: ${elapsed} s, ${runs:-?} executions, final: ${last:-?}"
done
exit $status
