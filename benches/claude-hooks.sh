#!/usr/bin/env bash
# agentctx's hooks as Claude Code itself times them (its --debug-file log),
# over a scripted session of 40 tool calls against the mock model API, with
# a release build of agentctx. Needs what scripts/e2e needs.
# Usage: benches/claude-hooks.sh (from the repository root)
set -euo pipefail
cargo build --release -q --locked -p agentctx-cli
export AGENTCTX_E2E_AGENTCTX="$PWD/target/release/agentctx"
AGENTCTX_E2E_THREADS=1 scripts/e2e bench_ --nocapture 2>&1 | grep -E "Claude Code.s timing|runs|request"
