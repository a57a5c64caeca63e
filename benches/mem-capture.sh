#!/usr/bin/env bash
# `agentctx mem capture` on a 1 GiB Claude Code transcript whose last turn
# (a Task call and its 50 KiB result) is at the end, side by side with
# reading the same file whole. Peak memory with /usr/bin/time.
# Needs hyperfine and time (Debian packages). Usage: benches/mem-capture.sh [MiB]
set -euo pipefail
mib=${1:-1024}
cargo build --release -q -p agentctx-cli
bin=$(realpath target/release/agentctx)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 - "$work/transcript.jsonl" "$mib" <<'PY'
import json, sys
path, mib = sys.argv[1], int(sys.argv[2])
line = json.dumps({"type": "assistant", "message": {"role": "assistant", "content": [{"type": "text", "text": "history " * 120}]}}) + "\n"
block = line * 1000
target = mib * 1024 * 1024
with open(path, "w") as f:
    written = 0
    while written < target:
        f.write(block)
        written += len(block)
    f.write(json.dumps({"type": "assistant", "message": {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_big", "name": "Task", "input": {"description": "Big research", "subagent_type": "researcher"}}]}}) + "\n")
    body = ("Finding: " + "x" * 90 + "\n") * 512 + "🗣️ Researcher: Wrote the 50 KiB report"
    f.write(json.dumps({"type": "user", "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_big", "content": body}]}}) + "\n")
PY
ls -l "$work/transcript.jsonl" | awk '{printf "transcript: %.0f MiB\n", $5/1048576}'
printf '{"session_id":"s","transcript_path":"%s","hook_event_name":"SubagentStop"}' "$work/transcript.jsonl" > "$work/hook.json"
export HOME="$work/home" AGENTMEM_ROOT="$work/mem"
mkdir -p "$HOME"
hyperfine -N --warmup 3 --runs 30 --export-json "$work/capture.json" \
  --prepare "rm -rf $work/mem" \
  -n "agentctx mem capture (1 GiB transcript, 50 KiB last turn)" "sh -c '$bin mem capture < $work/hook.json'" \
  -n "sh -c true (shell floor of the line above)" "sh -c true" \
  -n "cat transcript > /dev/null (reading it whole)" "sh -c 'cat $work/transcript.jsonl > /dev/null'" \
  -n "wc -l transcript (reading it whole)" "wc -l $work/transcript.jsonl"
python3 - "$work/capture.json" <<'PY'
import json, sys
print("\nmedians:")
for r in json.load(open(sys.argv[1]))["results"]:
    print(f"  {r['command']:<62} {r['median']*1000:8.1f} ms")
PY
rm -rf "$work/mem"
kb=$(/usr/bin/time -v sh -c "$bin mem capture < $work/hook.json" 2>&1 >/dev/null | awk -F: '/Maximum resident/ {gsub(/ /, "", $2); print $2}')
echo "peak memory of the capture: $((kb / 1024)) MiB"
find "$work/mem" -name '*.md' | head -1 | xargs -I{} sh -c 'echo "captured: $(basename "{}") ($(wc -c < "{}") bytes)"'
