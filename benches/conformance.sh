#!/usr/bin/env bash
# README: openmoat's conformance corpus (tests/conformance/{attacks,ask,benign}.yaml) through
# openmoat's hook and agentctx's, side by side, in Claude Code's `default` and
# `bypassPermissions` modes; where agentctx sandboxes a step (`agentctx exec`), the step is RUN
# with secrets in its environment against recording stand-in servers in a private network
# namespace, and its effect judged. benches/conformance/run.py says how.
#   default:                  the network, environment and cloud-metadata classes, with the
#                             corpus excerpt in /tmp/openmoat-src/tests/conformance;
#                             results in target/conformance/results
#   CONFORMANCE_CLASSES=all:  every threat class (T1..T12), agentctx with the command presets
#                             and again with strict: true; corpus /tmp/openmoat-full/tests/conformance;
#                             results in target/conformance/results-all
# openmoat 0.12.1 is installed from crates.io into target/moatbench as benches/moatbench.sh
# does. The crate ships tests/conformance.rs but not the YAML: unpack the corpus from
# openmoat's repository (crocodile-labs/openmoat, tests/conformance) anywhere outside this
# repository and point CONFORMANCE_CORPUS at it; it is read there, never copied here.
# Needs: root (unshare -n -m, bind mounts on the namespace's loopback), python3 + PyYAML,
# bubblewrap, openssl, curl.
# Usage: benches/conformance.sh
#   (env: CONFORMANCE_CLASSES, CONFORMANCE_CORPUS, CONFORMANCE_OUT, TIMING_RUNS, AGENTCTX, NO_BUILD=1)
set -euo pipefail
cd "$(dirname "$0")/.."
[ "${NO_BUILD:-}" = 1 ] || cargo build --release -q -p agentctx-cli
work=target/moatbench
if [ ! -x "$work/bin/openmoat" ]; then
  cargo install openmoat --version 0.12.1 --locked --root "$work" -q
fi
if [ "${CONFORMANCE_CLASSES:-}" = all ]; then
  corpus="${CONFORMANCE_CORPUS:-/tmp/openmoat-full/tests/conformance}"
  out="${CONFORMANCE_OUT:-target/conformance/results-all}"
else
  corpus="${CONFORMANCE_CORPUS:-/tmp/openmoat-src/tests/conformance}"
  out="${CONFORMANCE_OUT:-target/conformance/results}"
fi
[ -f "$corpus/attacks.yaml" ] || { echo "no openmoat conformance corpus at $corpus (CONFORMANCE_CORPUS)" >&2; exit 1; }
case "$out" in /*) ;; *) out="$PWD/$out" ;; esac
mkdir -p "$out"
CONFORMANCE_CORPUS="$corpus" CONFORMANCE_OUT="$out" AGENTCTX="${AGENTCTX:-$PWD/target/release/agentctx}" \
  python3 benches/conformance/run.py | tee "$out/report.txt"
