#!/usr/bin/env bash
# SubagentStop as each Claude Code era sends it (payloads recorded by the
# end-to-end suite in fixtures/agents/claude-code-<era>/), with that era's
# recorded session in the project folder and everything in it captured
# already: what the hook costs where nothing can be captured (1.0.x and
# 2.0.x write a sub-agent's output only after SubagentStop returns), next
# to the releases whose payload carries the output.
# Needs hyperfine. Usage: benches/claude-subagent-stop.sh [OLD_AGENTCTX]
# (OLD_AGENTCTX: another build to run side by side, e.g. of an earlier commit).
set -euo pipefail
cargo build --release -q -p agentctx-cli
new=$(realpath target/release/agentctx)
old=${1:-}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fixtures=$(realpath fixtures)
args=()
for era in 1.0.128 2.0.30 2.1.40 2.1.330; do
  payload=$(ls "$fixtures/agents/claude-code-$era"/claude-SubagentStop*.json | grep -v internal | head -1)
  home="$work/$era/home"; cwd="$work/$era/repo"; slug="proj"
  mkdir -p "$cwd" "$home/.claude/projects/$slug"
  # The era's recorded session, under the payload's own session id.
  session=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["session_id"])' "$payload")
  recorded=$(ls "$fixtures/transcripts/claude-$era"/*.jsonl | grep -v '/agent-' | head -1)
  old_session=$(basename "$recorded" .jsonl)
  for f in "$fixtures/transcripts/claude-$era"/*; do
    name=$(basename "$f"); name=${name//$old_session/$session}
    cp -r "$f" "$home/.claude/projects/$slug/$name"
  done
  grep -rl "$old_session" "$home/.claude/projects/$slug" | xargs -r sed -i "s/$old_session/$session/g"
  sed -e "s|{{HOME}}|$home|g; s|{{CWD}}|$cwd|g; s|{{PROJECT_SLUG}}|$slug|g; s|{{SCRATCH}}|$work/$era|g" "$payload" > "$work/$era/stop.json"
  for bin in "$new" ${old:+"$old"}; do
    # Capture what can be captured first: the runs measure the hook with nothing left to take.
    for _ in 1 2 3 4; do HOME="$home" "$bin" hook --agent claude < "$work/$era/stop.json" > /dev/null; done
    label=$([ "$bin" = "$new" ] && echo new || echo old)
    args+=(-n "$era SubagentStop ($label)" "sh -c 'HOME=$home $bin hook --agent claude < $work/$era/stop.json'")
  done
done
hyperfine -N --warmup 2 --runs 20 --export-json "$work/r.json" "${args[@]}"
python3 - "$work/r.json" <<'PY'
import json, sys
print("\nmedians:")
for r in json.load(open(sys.argv[1]))["results"]:
    print(f"  {r['command']:<34} {r['median']*1000:8.2f} ms  (min {r['min']*1000:.2f}, max {r['max']*1000:.2f})")
PY
