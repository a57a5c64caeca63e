#!/usr/bin/env bash
# Where the time of `agentctx exec` goes, part by part: bubblewrap's own
# setup (the host's /dev bound, or a fresh one as root gets), the cost of
# each read-only bind bubblewrap makes (0 and 20 of them), the same 20
# binds made by agentctx-sandbox-init inside the sandbox instead, and the
# start of agentctx itself. The bubblewrap arguments are those of
# crates/sandbox (`BASE_ARGS`, `--cap-drop ALL`; the first program runs as
# process 1 with every capability, which it drops).
# Needs bubblewrap and hyperfine (Debian packages).
# Usage: benches/sandbox-parts.sh [path/to/agentctx]  (agentctx-sandbox-init beside it)
set -euo pipefail
bin=$(realpath "${1:-target/release/agentctx}")
init="$(dirname "$bin")/agentctx-sandbox-init"
[ -x "$init" ] || { echo "no agentctx-sandbox-init beside $bin: cargo build --release -p agentctx-cli" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/denied-dir"
: > "$work/denied"
base="bwrap --bind / / --proc /proc --unshare-pid --die-with-parent"
binds=""
init_binds=""
for i in $(seq 1 20); do
  mkdir -p "$work/ro/$i"
  binds="$binds --ro-bind $work/ro/$i $work/ro/$i"
  init_binds="$init_binds --ro $work/ro/$i"
done
hyperfine -N --warmup 5 --runs 40 --export-json "$work/parts.json" \
  -n "true (bare)" "true" \
  -n "bubblewrap, host /dev (--dev-bind)" "$base --dev-bind /dev /dev --cap-drop ALL -- true" \
  -n "bubblewrap, fresh /dev (--dev)" "$base --dev /dev --cap-drop ALL -- true" \
  -n "bubblewrap, 20 --ro-bind" "$base --dev-bind /dev /dev --cap-drop ALL $binds -- true" \
  -n "bubblewrap + agentctx-sandbox-init, no bind" "$base --dev-bind /dev /dev --as-pid-1 --cap-add ALL -- $init --denied $work/denied --chdir / -- true" \
  -n "bubblewrap + agentctx-sandbox-init, 20 --ro" "$base --dev-bind /dev /dev --as-pid-1 --cap-add ALL -- $init$init_binds --denied $work/denied --chdir / -- true" \
  -n "agentctx --version (its own start)" "$bin --version"
python3 - "$work/parts.json" <<'PY'
import json, sys
results = {r["command"]: r["median"] * 1000 for r in json.load(open(sys.argv[1]))["results"]}
print("\nmedians:")
for name, ms in results.items():
    print(f"  {name:<48} {ms:7.2f} ms")
host = results["bubblewrap, host /dev (--dev-bind)"]
per_bind = (results["bubblewrap, 20 --ro-bind"] - host) / 20
init0 = results["bubblewrap + agentctx-sandbox-init, no bind"]
per_init_bind = (results["bubblewrap + agentctx-sandbox-init, 20 --ro"] - init0) / 20
print(f"\n  one --ro-bind made by bubblewrap:            {per_bind:.3f} ms")
print(f"  one read-only bind made by the init program: {per_init_bind:.3f} ms")
print(f"  the init program's start (over bubblewrap):  {init0 - host:.2f} ms")
PY
