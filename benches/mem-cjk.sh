#!/usr/bin/env bash
# AgentMem search in Japanese (issue 15): N generated captures (default
# 20,000; benches/gen-memory.py), one in ten with a Japanese paragraph;
# search and context as whole processes once the index is current, against
# an English query of the same store; index size with and without the CJK
# paragraphs. Needs hyperfine. Usage: benches/mem-cjk.sh [N]
set -euo pipefail
n=${1:-20000}
cargo build --release -q -p agentctx-cli
bin=$(realpath target/release/agentctx)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export HOME="$work/home"
mkdir -p "$HOME"
for every in 0 10; do
  python3 benches/gen-memory.py "$work/MEM-$every" "$n" "$every" > /dev/null
  AGENTMEM_ROOT="$work/MEM-$every" "$bin" mem reindex > /dev/null
  echo "CJK_EVERY=$every: index $(du -b "$work/MEM-$every/.agentmem/index.sqlite" | cut -f1) B, captures $(du -sb --exclude=.agentmem "$work/MEM-$every" | cut -f1) B"
done
export AGENTMEM_ROOT="$work/MEM-10"
for q in 認証 フロー トークンの更新 認証フロー; do echo "hits for $q: $("$bin" --json mem search "$q" --limit 100000 | python3 -c "import json,sys; print(len(json.load(sys.stdin)))")"; done
hyperfine -N --warmup 3 --runs 20 --export-json "$work/a.json" \
  -n "mem search 認証 (two characters)" "$bin mem search 認証" \
  -n "mem search フロー (inside runs)" "$bin mem search フロー" \
  -n "mem search トークンの更新 (two words and a particle)" "$bin mem search トークンの更新" \
  -n "mem context 認証 (counts kept in the index)" "$bin mem context 認証" \
  -n "mem context トークンの更新 --max-tokens 100000 (bounded by bytes)" "$bin mem context トークンの更新 --max-tokens 100000" \
  -n "mem search kalomi7 (a rare English word)" "$bin mem search kalomi7" \
  -n "mem context 'token refresh'" "$bin mem context 'token refresh'"
# The first context after new captures counts them: the tokenizer is loaded.
forget="python3 -c \"import sqlite3; c = sqlite3.connect('$AGENTMEM_ROOT/.agentmem/index.sqlite'); c.execute('DELETE FROM token_counts'); c.commit()\""
hyperfine -N --warmup 1 --runs 10 --export-json "$work/b.json" --prepare "$forget" \
  -n "mem context 認証 (nothing counted yet)" "$bin mem context 認証"
python3 - "$work/a.json" "$work/b.json" <<'PY'
import json, sys
print("\nmedians:")
for r in [r for f in sys.argv[1:] for r in json.load(open(f))["results"]]:
    print(f"  {r['command']:<44} {r['median']*1000:8.1f} ms")
PY
