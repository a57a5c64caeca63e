#!/usr/bin/env bash
# Whole-process cost of `agentctx agents resolve` as a hook pays it: a
# session file, a covered path 12 directories deep, nothing new to report
# (the common case), and the same with one new AGENTS.md each run.
# Needs hyperfine (Debian: apt-get install hyperfine).
# Usage: benches/agents-resolve.sh [path/to/agentctx]
set -euo pipefail
bin=${1:-target/release/agentctx}
bin=$(realpath "$bin")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
repo="$work/repo"
mkdir -p "$repo/.git"
echo 'ref: refs/heads/main' > "$repo/.git/HEAD"
echo 'root rules' > "$repo/AGENTS.md"
deep="$repo"
for level in $(seq 1 12); do
  deep="$deep/d$level"
  mkdir -p "$deep"
  if (( level % 4 == 0 )); then echo "level $level" > "$deep/AGENTS.md"; fi
done
target="$deep/main.rs"
touch "$target"
export HOME="$work/home"
mkdir -p "$HOME"
session="$work/session.json"
"$bin" -C "$repo" agents init --session "$session" > /dev/null
"$bin" -C "$repo" agents resolve "$target" --session "$session" > /dev/null

hyperfine --warmup 20 --runs 300 -N --export-json "$work/resolve.json" \
  -n "agents resolve (nothing new)" "$bin -C $repo agents resolve $target --session $session" \
  -n "agents resolve, no session" "$bin -C $repo agents resolve $target" \
  -n "agentctx --version (process floor)" "$bin --version"
# A new reminder each run: the prepare step gives d12/AGENTS.md a new mtime.
cat > "$work/bump.sh" <<BUMP
#!/usr/bin/env bash
n=\$(( \$(cat "$work/counter" 2>/dev/null || echo 1000000000) + 1 ))
echo "\$n" > "$work/counter"
touch -d "@\$n" "$deep/AGENTS.md"
BUMP
chmod +x "$work/bump.sh"
hyperfine --warmup 5 --runs 200 -N --export-json "$work/changed.json" \
  --prepare "$work/bump.sh" \
  -n "agents resolve (one changed file)" "$bin -C $repo agents resolve $target --session $session"

python3 - "$work/resolve.json" "$work/changed.json" <<'PY'
import json, sys
print("\nmedians:")
for path in sys.argv[1:]:
    for r in json.load(open(path))["results"]:
        print(f"  {r['command']:<40} median {r['median']*1000:.2f} ms  (mean {r['mean']*1000:.2f}, min {r['min']*1000:.2f})")
PY
