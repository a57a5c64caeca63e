#!/usr/bin/env bash
# What a library user builds (docs/BENCHMARKS.md, "Cargo features"): for
# each crate and feature set, the crates of its normal dependency graph
# (`cargo tree -e normal`, each package once) and one clean debug build into
# an empty target folder, timed. Sources must be downloaded already
# (`cargo fetch --locked`): the time is the build's alone. Single runs:
# on a shared machine read them as ratios.
# Usage: benches/features-build.sh [--counts-only]
set -euo pipefail
cd "$(dirname "$0")/.."
counts_only=${1:-}
builds=(
  "-p agentctx-core"
  "-p agentctx-filelist"
  "-p agentctx-filelist --no-default-features"
  "-p agentctx-hooks"
  "-p agentctx-hooks --no-default-features"
  "-p agentctx-types --no-default-features"
  "-p agentctx-cli"
  "-p agentctx-cli --no-default-features"
)
printf '%-46s %7s %10s\n' build crates "clean build"
for build in "${builds[@]}"; do
  # shellcheck disable=SC2086
  crates=$(cargo tree --locked --offline -e normal --prefix none $build | sed 's/ (\*)$//' | sort -u | wc -l)
  seconds=-
  if [ "$counts_only" != --counts-only ]; then
    target=$(mktemp -d)
    start=$(date +%s.%N)
    # shellcheck disable=SC2086
    CARGO_TARGET_DIR="$target" cargo build -q --locked --offline $build
    seconds=$(echo "$(date +%s.%N) - $start" | bc)
    rm -rf "$target"
  fi
  printf '%-46s %7s %10s\n' "$build" "$crates" "$seconds"
done
