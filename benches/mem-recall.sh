#!/usr/bin/env bash
# Recall at 20,000 captures (benches/gen-memory.py, seven projects, each
# capture naming its repository): Claude Code's SessionStart hook with the
# <memory_index> and without it (agentmem.recall.enabled=false), each run
# a new session (the kept index is removed before it); `mem show` of an
# index line's id (fetch by id); `mem index` alone.
# Needs hyperfine and git. Usage: benches/mem-recall.sh [N]   (from the repository root)
set -euo pipefail
n=${1:-20000}
cargo build --release -q -p agentctx-cli
bin=$(realpath target/release/agentctx)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
CWD_BASE="$work" REPOSITORY=github.com/acme/project python3 benches/gen-memory.py "$work/MEMORY" "$n"
proj="$work/project-0"
mkdir -p "$proj" && cd "$proj"
git init -q -b main && git -c user.name=b -c user.email=b@b commit -q --allow-empty -m first
git remote add origin https://github.com/acme/project-0
cd - > /dev/null
export HOME="$work/home" AGENTMEM_ROOT="$work/MEMORY"
mkdir -p "$HOME"
"$bin" mem reindex | head -1
state="$HOME/.local/state/agentctx/sessions"
printf '{"session_id":"bench","transcript_path":"%s/none.jsonl","cwd":"%s","hook_event_name":"SessionStart","source":"startup"}' "$work" "$proj" > "$work/start.json"
# Warm: the line counts of the index are kept (the first session after new
# captures counts their lines once).
"$bin" hook --agent claude < "$work/start.json" > "$work/first.json"
python3 -c 'import json,sys; t=json.load(open(sys.argv[1]))["hookSpecificOutput"]["additionalContext"]; i=t.find("<memory_index"); print(t[i:i+400]); print("... index bytes:", len(t)-i)' "$work/first.json"
id=$(python3 -c 'import json,re,sys; t=json.load(open(sys.argv[1]))["hookSpecificOutput"]["additionalContext"]; print(re.findall(r"\[([0-9a-f]{10})\]", t)[0])' "$work/first.json")
hyperfine -N --warmup 3 --runs 30 --export-json "$work/r.json" \
  --prepare "rm -f $state/bench.memory-index" \
  -n "SessionStart with the index" "sh -c '$bin hook --agent claude < $work/start.json'" \
  -n "SessionStart without (recall off)" "sh -c '$bin -c agentmem.recall.enabled=false hook --agent claude < $work/start.json'" \
  -n "mem show ID (fetch by id)" "$bin mem show $id" \
  -n "mem index" "sh -c 'cd $proj && $bin mem index'"
python3 - "$work/r.json" <<'PY'
import json, sys
print("\nmedians:")
for r in json.load(open(sys.argv[1]))["results"]:
    print(f"  {r['command']:<36} {r['median']*1000:8.1f} ms")
PY
