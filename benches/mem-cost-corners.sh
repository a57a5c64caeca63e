#!/usr/bin/env bash
# Two cost corners of `agentctx mem capture` (docs/BENCHMARKS.md, "AgentMem:
# two cost corners"):
#
# 1. A session transcript whose last line is 64 MiB (a Bash result), after
#    a Task call that has no result yet, read for a SubagentStop without
#    agent fields: the capture finds the call pending and reads the file
#    three times (the default retries). One run, /usr/bin/time: elapsed
#    seconds and peak memory.
# 2. The duplicate check of a sub-agent captured before (a SubagentStop
#    with its agent fields, as Claude Code 2.1.x sends it), against 100,001
#    captured keys: in the 256 shard files, and in the single key file of
#    earlier versions (which a capture still reads until it records a key).
#    hyperfine, 30 runs (shell mode for the redirection; hyperfine takes
#    the shell's start off).
#
# Pass a second binary to run both against it too (an older build, side by
# side). Needs hyperfine and time (Debian packages), python3.
# Usage: benches/mem-cost-corners.sh [path/to/agentctx [path/to/other-agentctx]]
set -euo pipefail
bins=("$(realpath "${1:-target/release/agentctx}")")
[ -n "${2:-}" ] && bins+=("$(realpath "$2")")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export HOME="$work/home"
mkdir -p "$HOME"

python3 - "$work" <<'PY'
import json, os, sys
work = sys.argv[1]
def line(obj):
    return json.dumps(obj) + "\n"
history = line({"type": "assistant", "message": {"role": "assistant", "content": [{"type": "text", "text": "history " * 120}]}}) * 200
task = line({"type": "assistant", "message": {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_task", "name": "Task", "input": {"description": "Research", "subagent_type": "researcher"}}]}})
# 1: the Task call is pending; the last line is a 64 MiB Bash result.
with open(os.path.join(work, "long-line.jsonl"), "w") as f:
    f.write(history + task)
    f.write(line({"type": "assistant", "message": {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_bash", "name": "Bash", "input": {"command": "cat big.log"}}]}}))
    f.write(line({"type": "user", "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_bash", "content": "x" * (64 * 1024 * 1024)}]}}))
with open(os.path.join(work, "long-line.json"), "w") as f:
    json.dump({"session_id": "s", "transcript_path": os.path.join(work, "long-line.jsonl"), "hook_event_name": "SubagentStop"}, f)
# 2: a sub-agent's stop, captured once, then again (a duplicate).
answer = "Finding: the report.\n🗣️ Researcher: Wrote the report"
with open(os.path.join(work, "session.jsonl"), "w") as f:
    f.write(history + task)
with open(os.path.join(work, "agent.jsonl"), "w") as f:
    f.write(line({"type": "user", "isSidechain": True, "agentId": "a1", "message": {"role": "user", "content": "Research the report"}}))
    f.write(line({"type": "assistant", "isSidechain": True, "agentId": "a1", "message": {"role": "assistant", "content": [{"type": "text", "text": answer}]}}))
with open(os.path.join(work, "agent-stop.json"), "w") as f:
    json.dump({"session_id": "s", "transcript_path": os.path.join(work, "session.jsonl"), "hook_event_name": "SubagentStop", "agent_id": "a1", "agent_type": "researcher", "agent_transcript_path": os.path.join(work, "agent.jsonl"), "last_assistant_message": answer}, f)
PY
ls -l "$work/long-line.jsonl" | awk '{printf "long-line transcript: %.1f MiB\n", $5/1048576}'

# Keys like the ones captures record, into the shards (by the first byte
# of their SHA-256, as keys.rs does) or into the single file.
fill_keys() { # MEMORY_ROOT sharded|single
  python3 - "$1" "$2" <<'PY'
import hashlib, os, sys
root, layout = sys.argv[1], sys.argv[2]
meta = os.path.join(root, ".agentmem")
shards = os.path.join(meta, "captured-keys.d")
keys = []
for name in sorted(os.listdir(shards)):
    keys += open(os.path.join(shards, name)).read().split()
keys += [f"agent:a{i:016x}" for i in range(100_001 - len(keys))]
if layout == "single":
    for name in os.listdir(shards):
        os.remove(os.path.join(shards, name))
    os.rmdir(shards)
    open(os.path.join(meta, "captured-keys"), "w").write("\n".join(keys) + "\n")
else:
    by_shard = {}
    for key in keys:
        by_shard.setdefault(hashlib.sha256(key.encode()).digest()[0], []).append(key)
    for shard, lines in by_shard.items():
        open(os.path.join(shards, f"{shard:02x}"), "w").write("\n".join(lines) + "\n")
print(f"{root}: {len(keys)} keys, {layout}")
PY
}

runs=()
for i in "${!bins[@]}"; do
  bin=${bins[$i]}
  echo "== $bin"
  # 1. The long last line.
  /usr/bin/time -f "long last line: %e s elapsed, peak %M KiB" \
    env AGENTMEM_ROOT="$work/mem-long-$i" AGENTMEM_EVENTS_PATH="$work/events-$i.jsonl" \
    "$bin" mem capture < "$work/long-line.json" > /dev/null
  echo "  its outcome: $(python3 -c 'import json,sys; e=json.loads(open(sys.argv[1]).readlines()[-1]); print(e["outcome"], "-", e.get("error", ""))' "$work/events-$i.jsonl")"
  # 2. The duplicate check: one capture, then the keys around it.
  for layout in sharded single; do
    root="$work/mem-$layout-$i"
    AGENTMEM_ROOT="$root" "$bin" mem capture < "$work/agent-stop.json" > /dev/null
    fill_keys "$root" "$layout"
    AGENTMEM_ROOT="$root" AGENTMEM_EVENTS_PATH="$work/dup-$i.jsonl" "$bin" mem capture < "$work/agent-stop.json" > /dev/null
    grep -q '"outcome":"duplicate"' "$work/dup-$i.jsonl" || { echo "not a duplicate: $(cat "$work/dup-$i.jsonl")" >&2; exit 1; }
    runs+=(-n "duplicate among 100,001 keys, $layout ($bin)" "AGENTMEM_ROOT=$root $bin mem capture < $work/agent-stop.json")
  done
done
hyperfine --warmup 3 --runs 30 --export-json "$work/dup.json" "${runs[@]}"
python3 - "$work/dup.json" <<'PY'
import json, sys
print("\nmeans:")
for r in json.load(open(sys.argv[1]))["results"]:
    print(f"  {r['command']:<90} {r['mean']*1000:7.1f} ms  (median {r['median']*1000:.1f})")
PY
