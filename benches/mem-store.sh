#!/usr/bin/env bash
# AgentMem store on 100,000 generated captures (benches/gen-memory.py):
# search and list as whole processes once the index is current, reconcile
# with nothing changed, a capture with its index insert, index size.
# Needs hyperfine. Usage: benches/mem-store.sh [N]   (from the repository root)
set -euo pipefail
n=${1:-100000}
cargo build --release -q -p agentctx-cli
bin=$(realpath target/release/agentctx)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 benches/gen-memory.py "$work/MEMORY" "$n"
export HOME="$work/home" AGENTMEM_ROOT="$work/MEMORY"
mkdir -p "$HOME"
start=$(date +%s.%N)
"$bin" mem reindex | head -1
echo "first indexing: $(python3 -c "print(f'{$(date +%s.%N) - $start:.1f} s')")"
"$bin" mem list --limit 1 > /dev/null
hook='{"session_id":"b","hook_event_name":"SubagentStop","agent_id":"AGENT","agent_type":"engineer","agent_transcript_path":"/t.jsonl","last_assistant_message":"🗣️ Engineer: Benchmarked the index"}'
cat > "$work/capture.sh" <<CAP
#!/usr/bin/env bash
n=\$(( \$(cat "$work/n" 2>/dev/null || echo 0) + 1 )); echo "\$n" > "$work/n"
echo '${hook}' | sed "s/AGENT/a-\$n/" | "$bin" mem capture
CAP
chmod +x "$work/capture.sh"
hyperfine -N --warmup 3 --runs 20 --export-json "$work/a.json" \
  -n "mem search (two common words)" "$bin mem search 'cache latency'" \
  -n "mem search (a rare word)" "$bin mem search 'kalomi7'" \
  -n "mem search (a phrase + category filter)" "$bin mem search '\"feature flag\" category:design'" \
  -n "mem search (worst case: 'auth', in most captures)" "$bin mem search auth" \
  -n "mem list --limit 20 (reconcile, nothing changed)" "$bin mem list --limit 20" \
  -n "mem capture (with index insert)" "$work/capture.sh"
python3 - "$work/a.json" <<'PY'
import json, sys
print("\nmedians:")
for r in json.load(open(sys.argv[1]))["results"]:
    print(f"  {r['command']:<52} {r['median']*1000:8.1f} ms")
PY
"$bin" mem stats | head -1
