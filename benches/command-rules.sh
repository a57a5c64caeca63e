#!/usr/bin/env bash
# The hook's answer to shell commands with the command rules and all four
# presets on, beside the same rules without them and openmoat 0.12.1's
# hook (default policy) on the same payloads (Claude Code's Bash
# PreToolUse, permission_mode default): one held by a rule through
# `bash -c`, one ordinary. openmoat is installed as benches/moatbench.sh
# does. Needs hyperfine. Usage: benches/command-rules.sh
# (env: RUNS, default 200; AGENTCTX, default target/release/agentctx)
set -euo pipefail
cd "$(dirname "$0")/.."
[ -n "${AGENTCTX:-}" ] || cargo build --release -q -p agentctx-cli
bin=$(realpath "${AGENTCTX:-target/release/agentctx}")
moat_root=target/moatbench
if [ ! -x "$moat_root/bin/openmoat" ]; then
  cargo install openmoat --version 0.12.1 --locked --root "$moat_root" -q
fi
moat=$(realpath "$moat_root/bin/openmoat")
runs="${RUNS:-200}"
work=$(mktemp -d -p "$PWD/target")
trap 'rm -rf "$work"' EXIT
export HOME="$work/home"
mkdir -p "$HOME"
for tree in presets plain moat; do
  repo="$work/$tree"
  mkdir -p "$repo/.git" "$repo/src"
  echo 'ref: refs/heads/main' > "$repo/.git/HEAD"
  echo 'fn main() {}' > "$repo/src/main.rs"
done
printf 'presets: [destructive, supply-chain, publishing, history-rewriting]\ncommands:\n  deny: ["terraform destroy"]\nfile_patterns:\n  exclude: ["secrets/", "**/.env"]\n' > "$work/presets/.coding-agent-rules.yaml"
printf 'file_patterns:\n  exclude: ["secrets/", "**/.env"]\n' > "$work/plain/.coding-agent-rules.yaml"
(cd "$work/moat" && HOME="$HOME" "$moat" init --yes > /dev/null 2>&1 || true)
payload() { # tree, command
  python3 -c 'import json,sys; print(json.dumps({"session_id":"bench-"+sys.argv[1],"cwd":sys.argv[2],"hook_event_name":"PreToolUse","permission_mode":"default","tool_name":"Bash","tool_input":{"command":sys.argv[3],"description":"x"},"tool_use_id":"t1"}))' "$1" "$work/$1" "$2"
}
for tree in presets plain moat; do
  payload "$tree" "bash -c -- 'git push --force origin main'" > "$work/$tree-attack.json"
  payload "$tree" "cargo test --workspace" > "$work/$tree-ordinary.json"
done
# The answers, once (the presets' question is the control).
echo "agentctx presets, attack:   $("$bin" hook --agent claude < "$work/presets-attack.json" | head -c 120)"
echo "agentctx presets, ordinary: $("$bin" hook --agent claude < "$work/presets-ordinary.json" | head -c 120)"
echo "openmoat, attack:           $(cd "$work/moat" && "$moat" guard --host claude-code < "$work/moat-attack.json" 2> /dev/null | head -c 120)"
hyperfine -N -i --warmup 10 --runs "$runs" --export-json "$work/times.json" \
  -n "agentctx, presets on: bash -c git push --force" "sh -c '$bin hook --agent claude < $work/presets-attack.json'" \
  -n "agentctx, presets on: cargo test" "sh -c '$bin hook --agent claude < $work/presets-ordinary.json'" \
  -n "agentctx, no command rules: cargo test" "sh -c '$bin hook --agent claude < $work/plain-ordinary.json'" \
  -n "openmoat 0.12.1: bash -c git push --force" "sh -c 'cd $work/moat && $moat guard --host claude-code < $work/moat-attack.json'" \
  -n "openmoat 0.12.1: cargo test" "sh -c 'cd $work/moat && $moat guard --host claude-code < $work/moat-ordinary.json'" \
  -n "sh -c true (shell floor)" "sh -c true"
python3 - "$work/times.json" << 'PY'
import json, sys
for r in json.load(open(sys.argv[1]))["results"]:
    print("median %6.2f ms  %s" % (r["median"] * 1000, r["command"]))
PY
