#!/usr/bin/env bash
# SubagentStop of a Claude Code release before 2.0.42 (no agent fields in
# the payload: the hook must look for the output in the session
# transcript) on a 1 GiB transcript whose last, long turn made no sub-agent
# call: what the hook costs when there is nothing to find.
# Needs hyperfine. Usage: benches/old-era-capture.sh [SIZE_MIB] [OLD_AGENTCTX]
set -euo pipefail
size=${1:-1024}
old=${2:-}
cargo build --release -q -p agentctx-cli
new=$(realpath target/release/agentctx)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/home/.claude/projects/p" "$work/repo"
t="$work/home/.claude/projects/p/s-old.jsonl"
python3 - "$t" "$size" <<'PY'
import json, sys
path, mib = sys.argv[1], int(sys.argv[2])
pad = "x" * 8000
with open(path, "w") as f:
    f.write(json.dumps({"type": "user", "sessionId": "s-old", "uuid": "u0",
                        "message": {"role": "user", "content": "E2E: one long turn"}}) + "\n")
    i = 0
    while f.tell() < mib * 1024 * 1024:
        i += 1
        f.write(json.dumps({"type": "assistant", "sessionId": "s-old", "uuid": f"a{i}",
            "message": {"role": "assistant", "content": [{"type": "tool_use", "id": f"t{i}", "name": "Read", "input": {"file_path": "/x"}}]}}) + "\n")
        f.write(json.dumps({"type": "user", "sessionId": "s-old", "uuid": f"r{i}",
            "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"t{i}", "content": pad}]}}) + "\n")
PY
printf '{"session_id":"s-old","transcript_path":"%s","cwd":"%s","hook_event_name":"SubagentStop","stop_hook_active":false}' "$t" "$work/repo" > "$work/stop.json"
ls -l "$t"
args=(-n "old-era SubagentStop, $(( $(stat -c %s "$t") / 1048576 )) MiB transcript (new)" "sh -c 'HOME=$work/home AGENTMEM_ROOT=$work/mem $new hook --agent claude < $work/stop.json'")
if [ -n "$old" ]; then
  args+=(-n "the same (old)" "sh -c 'HOME=$work/home AGENTMEM_ROOT=$work/mem $old hook --agent claude < $work/stop.json'")
fi
hyperfine -N --warmup 1 --runs 10 "${args[@]}"
