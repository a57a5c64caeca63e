#!/usr/bin/env bash
# `agentctx hook` as the agent runs it on every tool call, and `agentctx
# context` on a 10,000-file repository (generated with benches/gen-tree.py).
# Needs hyperfine. Usage: benches/hook.sh (from the repository root)
set -euo pipefail
cargo build --release -q -p agentctx-cli
bin=$(realpath target/release/agentctx)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
repo="$work/repo"
python3 benches/gen-tree.py "$repo" 10000 > /dev/null
mkdir -p "$repo/.git" && echo 'ref: refs/heads/main' > "$repo/.git/HEAD"
echo "Root rules." > "$repo/AGENTS.md"
nested=$(find "$repo/packages" -mindepth 2 -maxdepth 2 -type d -name src -print -quit)
echo "Package rules." > "$nested/AGENTS.md"
target=$(find "$nested" -maxdepth 1 -type f ! -name AGENTS.md -print -quit)
printf 'denied_tools: [github/delete_file]\nfile_patterns:\n  exclude: ["secrets/", "**/.env"]\n' > "$repo/.coding-agent-rules.yaml"
export HOME="$work/home"; mkdir -p "$HOME"
session='"session_id":"bench","cwd":"'"$repo"'"'
echo '{'"$session"',"hook_event_name":"SessionStart","source":"startup"}' > "$work/start.json"
echo '{'"$session"',"hook_event_name":"PreToolUse","tool_name":"Edit","tool_input":{"file_path":"'"$target"'"}}' > "$work/pre.json"
echo '{'"$session"',"hook_event_name":"PostToolUse","tool_name":"Read","tool_input":{"file_path":"'"$target"'"}}' > "$work/post.json"
"$bin" hook --agent claude < "$work/start.json" > /dev/null
"$bin" hook < "$work/post.json" > /dev/null
cat > "$work/bump.sh" <<BUMP
#!/usr/bin/env bash
n=\$(( \$(cat "$work/counter" 2>/dev/null || echo 1000000000) + 1 ))
echo "\$n" > "$work/counter"
touch -d "@\$n" "$nested/AGENTS.md"
BUMP
chmod +x "$work/bump.sh"
cd "$repo"
hyperfine -N --warmup 10 --runs 200 --export-json "$work/a.json" \
  -n "hook PreToolUse (allowed: rules + file check)" "sh -c '$bin hook < $work/pre.json'" \
  -n "hook PostToolUse (nothing new)" "sh -c '$bin hook < $work/post.json'" \
  -n "sh -c true (shell floor of the lines above)" "sh -c true"
hyperfine -N --warmup 5 --runs 100 --export-json "$work/b.json" --prepare "$work/bump.sh" \
  -n "hook PostToolUse (a changed AGENTS.md: reminder)" "sh -c '$bin hook < $work/post.json'"
hyperfine -N --warmup 3 --runs 30 --export-json "$work/c.json" \
  -n "context on 10,000 files" "$bin context --no-timestamp"
python3 - "$work/a.json" "$work/b.json" "$work/c.json" <<'PY'
import json, sys
print("\nmedians:")
for path in sys.argv[1:]:
    for r in json.load(open(path))["results"]:
        print(f"  {r['command']:<52} {r['median']*1000:7.2f} ms  (mean {r['mean']*1000:.2f})")
PY
