#!/usr/bin/env bash
# Two builds of agentctx side by side on a 10,000-file repository
# (benches/gen-tree.py): the hook's latency on PreToolUse (an Edit, a Bash
# line) and PostToolUse in one hyperfine run, and whether `context` and the
# hook replies are byte-identical. A restructuring must change neither.
# Needs hyperfine. Usage, from the repository root:
#   git worktree add /tmp/before REV
#   (cd /tmp/before && CARGO_TARGET_DIR=/tmp/before-target cargo build --release -p agentctx-cli)
#   cargo build --release -p agentctx-cli
#   benches/two-builds.sh /tmp/before-target/release/agentctx target/release/agentctx
# The PostToolUse replies differ by order alone: each SessionStart before
# it resets the session, so the first binary reports the nested AGENTS.md.
set -euo pipefail
before=$(realpath "$1"); after=$(realpath "$2")
fixtures=$(realpath "$(dirname "$0")/../fixtures/agents")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
repo="$work/repo"
python3 "$(dirname "$0")/gen-tree.py" "$repo" 10000 > /dev/null
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
echo '{'"$session"',"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"cargo test -p x"}}' > "$work/bash.json"
echo '{'"$session"',"hook_event_name":"PostToolUse","tool_name":"Read","tool_input":{"file_path":"'"$target"'"}}' > "$work/post.json"
"$after" hook --agent claude < "$work/start.json" > /dev/null
"$after" hook < "$work/post.json" > /dev/null
cd "$repo"
hyperfine -N --warmup 10 --runs 200 --export-json "$work/a.json" \
  -n "before: PreToolUse Edit" "sh -c '$before hook < $work/pre.json'" \
  -n "after:  PreToolUse Edit" "sh -c '$after hook < $work/pre.json'" \
  -n "before: PreToolUse Bash" "sh -c '$before hook < $work/bash.json'" \
  -n "after:  PreToolUse Bash" "sh -c '$after hook < $work/bash.json'" \
  -n "before: PostToolUse" "sh -c '$before hook < $work/post.json'" \
  -n "after:  PostToolUse" "sh -c '$after hook < $work/post.json'" \
  -n "sh -c true" "sh -c true" > /dev/null
python3 - "$work/a.json" <<'PY'
import json, sys
for r in json.load(open(sys.argv[1]))["results"]:
    print(f"  {r['command']:<28} median {r['median']*1000:6.2f} ms  (mean {r['mean']*1000:.2f}, sd {r['stddev']*1000:.2f})")
PY
"$before" context --no-timestamp > "$work/ctx-before.txt"; "$after" context --no-timestamp > "$work/ctx-after.txt"
cmp "$work/ctx-before.txt" "$work/ctx-after.txt" && echo "context: byte-identical ($(wc -c < "$work/ctx-after.txt") bytes)"
for f in start pre bash post; do "$before" hook < "$work/$f.json" > "$work/$f.b"; "$after" hook < "$work/$f.json" > "$work/$f.a"; cmp -s "$work/$f.b" "$work/$f.a" && echo "hook $f: identical reply" || { echo "hook $f: DIFFERENT"; diff "$work/$f.b" "$work/$f.a" | head -5 || true; }; done
# Every recorded payload of every agent's real CLI (fixtures/agents/), in
# the same order through each build, each build with a home of its own:
# the replies must be the same bytes. (opencode's fixtures are its plugin's
# calls, not hook payloads; an agent the first build does not know is
# left out.)
# Both builds run from one path (a hard link swapped between them) with
# one home path (each build's own folder moved there): the replies name
# the program and the state folder.
mkdir -p "$work/home-b" "$work/home-a" "$work/bin"
run_as() { ln -f "$1" "$work/bin/agentctx" 2>/dev/null || cp "$1" "$work/bin/agentctx"; }
same=0; differ=0
for dir in "$fixtures"/*/; do
  name=$(basename "$dir")
  case "$name" in
    claude-code-*) agent=claude ;; codex-*) agent=codex ;; gemini-cli-*) agent=gemini ;;
    copilot-cli-*) agent=copilot ;; qwen-code-*) agent=qwen ;; cline-cli-*) agent=cline ;;
    *) continue ;;
  esac
  "$before" hook --help | grep -q "possible values:.*\b$agent\b" || continue
  for f in "$dir"*.json; do
    sed -e "s#{{CWD}}#$repo#g; s#{{REPO}}#$repo#g; s#{{SCRATCH}}#$work#g; s#{{SESSION_ID}}#1795748557193_zzcu3#g" "$f" \
      | python3 -c 'import json,sys; d=json.load(sys.stdin); d=d.get("stdin", d) if isinstance(d, dict) else d; json.dump(d, sys.stdout)' \
      > "$work/payload.json" 2>/dev/null || continue
    event=(); case "$(basename "$f" .json)" in sessionStart|subagentStart) event=(--event "$(basename "$f" .json)") ;; esac
    for side in b a; do
      if [ "$side" = b ]; then run_as "$before"; else run_as "$after"; fi
      mv "$work/home-$side" "$work/h"
      HOME="$work/h" "$work/bin/agentctx" hook --agent "$agent" "${event[@]}" < "$work/payload.json" > "$work/reply.$side" 2>/dev/null || true
      mv "$work/h" "$work/home-$side"
    done
    if cmp -s "$work/reply.b" "$work/reply.a"; then same=$((same + 1)); else
      differ=$((differ + 1)); echo "  DIFFERENT: $name/$(basename "$f")"; diff "$work/reply.b" "$work/reply.a" | cut -c1-300 | head -4 || true
    fi
  done
done
echo "recorded payloads: $same identical replies, $differ different"
