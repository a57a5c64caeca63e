#!/usr/bin/env bash
# File list on a generated 100,000-file tree, side by side with the anchors:
# time (fd, rg, tree), tokens per listed file (tree, same tokenizer), peak memory.
# Needs: hyperfine, fd-find, ripgrep, tree, time (Debian packages of those names).
# Usage: benches/filelist.sh [N]   (run from the repository root)
set -euo pipefail
n=${1:-100000}
cargo build --release -q -p agentctx-cli
cargo build --release -q -p agentctx-filelist --example count_tokens
bin=$(realpath target/release/agentctx)
count=$(realpath target/release/examples/count_tokens)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 benches/gen-tree.py "$work/tree" "$n"
export HOME="$work/home"; mkdir -p "$HOME"
cd "$work/tree"
fd=$(command -v fdfind || command -v fd)

hyperfine -N --warmup 3 --runs 20 --export-json "$work/time.json" \
  -n "agentctx files (defaults: 500 entries, no depth limit)" "$bin files --no-timestamp" \
  -n "agentctx files (full listing)" "$bin files --no-timestamp --max-files 10000000 --max-depth 1000 --no-group" \
  -n "agentctx files (full listing, 1 thread)" "$bin files --no-timestamp --max-files 10000000 --max-depth 1000 --no-group --threads 1" \
  -n "fd --hidden --no-ignore --type f" "$fd --hidden --no-ignore --type f" \
  -n "fd --hidden --type f" "$fd --hidden --type f" \
  -n "rg --files --hidden" "rg --files --hidden" \
  -n "tree -a" "tree -a"
python3 - "$work/time.json" <<'PY'
import json, sys
rows = json.load(open(sys.argv[1]))["results"]
fd = next(r for r in rows if r["command"].startswith("fd --hidden --no-ignore"))["median"]
print("\nmedians (ratio to fd --hidden --no-ignore):")
for r in rows:
    print(f"  {r['command']:<52} {r['median']*1000:7.1f} ms  {r['median']/fd:5.2f}x")
PY

"$bin" files --no-timestamp --max-files 10000000 --max-depth 1000 --no-group > "$work/ours.txt"
"$bin" files --no-timestamp --max-files 10000000 --max-depth 1000 > "$work/ours-grouped.txt"
tree -a > "$work/tree.txt"
files=$("$fd" --hidden --no-ignore --type f | wc -l)
echo
echo "tokens (o200k_base) for $files files:"
for f in ours ours-grouped tree; do
  t=$("$count" < "$work/$f.txt")
  python3 -c "print(f'  {\"$f\":<14} {$t:>9} tokens  {$t/$files:.2f} per file')"
done
echo
echo "peak memory:"
for args in "files --no-timestamp" "files --no-timestamp --max-files 10000000 --max-depth 1000 --no-group"; do
  kb=$(/usr/bin/time -v "$bin" $args 2>&1 >/dev/null | awk -F: '/Maximum resident/ {gsub(/ /, "", $2); print $2}')
  echo "  agentctx $args: $((kb / 1024)) MiB"
done
