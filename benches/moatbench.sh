#!/usr/bin/env bash
# MoatBench (openmoat's public attack corpus) through openmoat's hook and
# agentctx's, side by side, with equivalent rules (benches/moatbench/rules/;
# why they are equivalent is written there). openmoat 0.12.1 is installed
# from crates.io into target/moatbench; its corpus is read where cargo
# unpacked the crate (never copied here). Needs python3 with PyYAML,
# bubblewrap, hyperfine (optional, for the timing table).
# Usage: benches/moatbench.sh   (env: TIMING_RUNS, PERMISSION_MODE, AGENTCTX)
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -q -p agentctx-cli
work=target/moatbench
if [ ! -x "$work/bin/openmoat" ]; then
  cargo install openmoat --version 0.12.1 --locked --root "$work" -q
fi
corpus=$(ls -d "${CARGO_HOME:-$HOME/.cargo}"/registry/src/*/openmoat-0.12.1/moatbench | head -1)
[ -d "$corpus" ] || { echo "openmoat 0.12.1's corpus not found under the cargo registry" >&2; exit 1; }
# openmoat refuses to guard with a binary that can be replaced from a temporary folder.
MOATBENCH_CORPUS="$corpus" AGENTCTX="${AGENTCTX:-$PWD/target/release/agentctx}" \
  python3 benches/moatbench/run.py
