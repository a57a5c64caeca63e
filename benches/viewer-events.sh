#!/usr/bin/env bash
# The viewer's events page (`mem serve`, GET /events) over a large events
# file: 300,000 capture events (about 74 MB), of which the page shows the
# newest 500, read from the end of the file. Pass a second binary to
# measure it too, side by side (the pages' md5 must match).
# Needs hyperfine and curl (Debian packages), python3.
# Usage: benches/viewer-events.sh [path/to/agentctx [path/to/other-agentctx]]
set -euo pipefail
bins=("$(realpath "${1:-target/release/agentctx}")")
[ -n "${2:-}" ] && bins+=("$(realpath "$2")")
work=$(mktemp -d)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2> /dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

python3 - "$work/events.jsonl" <<'PY'
import json, sys
outcomes = ["captured", "duplicate", "pending", "skipped", "failed"]
with open(sys.argv[1], "w") as f:
    for i in range(300_000):
        event = {
            "timestamp": f"2026-11-{1 + i % 28:02d} {i % 24:02d}:{i % 60:02d}:00 UTC",
            "source_app": "claude",
            "source": "claude-hook",
            "session_id": f"session-{i // 40:06d}-0000-0000-0000-000000000000",
            "hook_event_type": "SubagentStop",
            "outcome": outcomes[i % 5],
        }
        if event["outcome"] == "captured":
            event["capture_path"] = f"/home/u/.agent-kit/MEMORY/RESEARCH/2026-11/capture-{i:06d}.md"
            event["category"] = "RESEARCH"
            event["agent_type"] = "researcher"
        if event["outcome"] == "failed":
            event["error"] = "the transcript ended before the sub-agent's output"
        f.write(json.dumps(event) + "\n")
PY
ls -l "$work/events.jsonl" | awk '{printf "events: 300000 lines, %.1f MB\n", $5/1e6}'
export HOME="$work/home" AGENTMEM_ROOT="$work/mem" AGENTMEM_EVENTS_PATH="$work/events.jsonl"
mkdir -p "$HOME" "$AGENTMEM_ROOT"

runs=()
for i in "${!bins[@]}"; do
  port=$((18780 + i))
  "${bins[$i]}" mem serve --port "$port" > "$work/serve-$i.log" 2>&1 &
  pids+=($!)
  for _ in $(seq 100); do
    curl -sf "http://127.0.0.1:$port/events" -o "$work/page-$i.html" && break
    sleep 0.1
  done
  echo "${bins[$i]}: page md5 $(md5sum < "$work/page-$i.html" | cut -d' ' -f1), $(wc -c < "$work/page-$i.html") bytes"
  runs+=(-n "GET /events, 300,000 events (${bins[$i]})" "curl -s http://127.0.0.1:$port/events -o /dev/null")
done
hyperfine -N --warmup 2 --runs 20 --export-json "$work/events.json" "${runs[@]}"
python3 - "$work/events.json" <<'PY'
import json, sys
print("\nmeans:")
for r in json.load(open(sys.argv[1]))["results"]:
    print(f"  {r['command']:<90} {r['mean']*1000:7.1f} ms  (median {r['median']*1000:.1f})")
PY
