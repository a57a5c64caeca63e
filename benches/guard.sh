#!/usr/bin/env bash
# The guard's cost side by side with openmoat's, and the sandbox's cost per
# shell command next to the bare command and to Codex's own sandbox
# (benches/guard.py). Needs hyperfine and bubblewrap; openmoat 0.12.1 comes
# from crates.io (as benches/moatbench.sh installs it), Codex from scripts/e2e.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -q -p agentctx-cli
[ -x target/moatbench/bin/openmoat ] || cargo install openmoat --version 0.12.1 --locked --root target/moatbench -q
python3 benches/guard.py
