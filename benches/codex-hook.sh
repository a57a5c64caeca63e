#!/usr/bin/env bash
# `agentctx hook --agent codex` on the PostToolUse payloads recorded from
# Codex 0.169.0 (fixtures/agents/codex-0.169.0/): a Bash `cat` (the shell
# command parsed with brush-parser) and an apply_patch (patch headers), in a
# small repository with a nested AGENTS.md (issue 13). Needs hyperfine.
# Usage: benches/codex-hook.sh [path/to/agentctx]   (from the repository root)
set -euo pipefail
bin=$(realpath "${1:-target/release/agentctx}")
fixtures=$(realpath fixtures/agents/codex-0.169.0)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export HOME="$work/home" XDG_STATE_HOME="$work/state"
mkdir -p "$HOME" "$work/repo/.git" "$work/repo/packages/api/src"
echo "ref: refs/heads/main" > "$work/repo/.git/HEAD"
echo "ROOT" > "$work/repo/AGENTS.md"
echo "API" > "$work/repo/packages/api/AGENTS.md"
echo "export const v = 1;" > "$work/repo/packages/api/src/server.ts"
for name in bash apply-patch; do
  sed "s#{{SCRATCH}}#$work#g" "$fixtures/hook-post-tool-use-$name.json" > "$work/$name.json"
done
cd "$work/repo"
hyperfine -N --warmup 10 --runs 200 \
  -n "PostToolUse Bash (cat, parsed)" "sh -c '$bin hook --agent codex < $work/bash.json'" \
  -n "PostToolUse apply_patch" "sh -c '$bin hook --agent codex < $work/apply-patch.json'" \
  -n "sh -c true (the shell's share)" "sh -c true" 2>&1 | grep -E "Benchmark|Time"
