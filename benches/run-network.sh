#!/usr/bin/env bash
# The costs of issue 37, side by side in one run: `agentctx run -- true`
# against `true`; `agentctx exec` of `true` with the network confined (a
# rule file with `network`), without (file rules only) and the bare shell;
# the proxy per connection (100 small requests through it in one sandbox,
# against 100 straight to the server) and on a 100 MB download from a
# local server (through the proxy in `exec`, against straight); the hook's
# PreToolUse with and without a `network` section, and on a WebFetch.
# Local servers on 127.0.0.2 stand in for the internet (`network_hosts`).
# Needs bubblewrap, hyperfine, curl, python3.
# Usage: benches/run-network.sh [path/to/agentctx]  (release build by default)
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -eq 0 ]; then cargo build --release -q -p agentctx-cli; fi
bin=$(realpath "${1:-target/release/agentctx}")
work=$(mktemp -d /var/tmp/agentctx-bench-XXXXXX)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$work"; }
trap cleanup EXIT
export HOME="$work/home"
mkdir -p "$HOME/.config/agentctx" "$work/www"
head -c 100000000 /dev/zero > "$work/www/big"
echo small > "$work/www/small"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.2",0)); print(s.getsockname()[1])')
(cd "$work/www" && exec python3 -m http.server "$port" --bind 127.0.0.2 >/dev/null 2>&1) &
pids+=($!)
sleep 1
cat > "$HOME/.config/agentctx/config.yaml" <<EOF
project_agent_rules:
  network_hosts:
    www.test: ["127.0.0.2"]
EOF
mk() { # mk NAME RULES
  mkdir -p "$work/$1" && git -C "$work/$1" init -q && printf '%b' "$2" > "$work/$1/.coding-agent-rules.yaml"
  echo '{"session_id":"'"$1"'","cwd":"'"$work/$1"'","hook_event_name":"SessionStart","source":"startup"}' \
    | (cd "$work/$1" && "$bin" hook --agent claude > /dev/null)
}
mk net 'file_patterns:\n  exclude: ["secrets/"]\nnetwork:\n  allow: ["www.test:'"$port"'"]\n'
mk files 'file_patterns:\n  exclude: ["secrets/"]\n'
small="for i in \$(seq 100); do curl -s -o /dev/null http://www.test:$port/small; done"
direct="for i in \$(seq 100); do curl -s -o /dev/null http://127.0.0.2:$port/small; done"
cd "$work/net"
hyperfine -N --warmup 3 --runs "${RUNS:-30}" --export-json "$work/start.json" \
  -n "true" "true" \
  -n "agentctx run -- true" "$bin run --agent claude -- true" \
  -n "bash -c true" "bash -c true" \
  -n "exec, files only" "$bin exec --session files -- true" \
  -n "exec, network confined" "$bin exec --session net -- true"
hyperfine --warmup 1 --runs "${RUNS_NET:-10}" --export-json "$work/net.json" \
  -n "100 requests, straight" "$direct" \
  -n "100 requests, through the proxy (exec)" "$bin exec --session net -- '$small'" \
  -n "exec of one request (its overhead)" "$bin exec --session net -- 'curl -s -o /dev/null http://www.test:$port/small'" \
  -n "100 MB, straight" "curl -s -o /dev/null http://127.0.0.2:$port/big" \
  -n "100 MB, through the proxy (exec)" "$bin exec --session net -- 'curl -s -o /dev/null http://www.test:$port/big'"
# At the speed of a fast link (400 Mbit/s) rather than of memory.
hyperfine --warmup 1 --runs "${RUNS_LINK:-5}" --export-json "$work/link.json" \
  -n "100 MB at 50 MB/s, straight" "curl -s --limit-rate 50M -o /dev/null http://127.0.0.2:$port/big" \
  -n "100 MB at 50 MB/s, through the proxy (exec)" "$bin exec --session net -- 'curl -s --limit-rate 50M -o /dev/null http://www.test:$port/big'"
pre='"session_id":"net","cwd":"'"$work/net"'","hook_event_name":"PreToolUse","permission_mode":"default"'
echo '{'"$pre"',"tool_name":"Read","tool_input":{"file_path":"'"$work/net"'/README.md"}}' > "$work/read.json"
echo '{'"$pre"',"tool_name":"WebFetch","tool_input":{"url":"http://www.test:'"$port"'/small","prompt":"x"}}' > "$work/fetch.json"
sed 's/"session_id":"net","cwd":"[^"]*"/"session_id":"files","cwd":"'"${work//\//\\/}"'\/files"/' "$work/read.json" > "$work/read-files.json"
hyperfine --warmup 5 --runs "${RUNS:-30}" --export-json "$work/hook.json" \
  -n "hook Read, files only" "$bin hook < $work/read-files.json" \
  -n "hook Read, network section" "$bin hook < $work/read.json" \
  -n "hook WebFetch, network section" "$bin hook < $work/fetch.json"
python3 - "$work" <<'PY'
import json, sys, os
w = sys.argv[1]
r = {}
for f in ("start", "net", "link", "hook"):
    for x in json.load(open(os.path.join(w, f + ".json")))["results"]:
        r[x["command"]] = x["median"] * 1000
print("\nmedians (ms):")
for k, v in r.items():
    print(f"  {k:<45} {v:9.2f}")
print("\nderived:")
print(f"  run -- true over true:                   {r['agentctx run -- true'] - r['true']:7.2f} ms")
print(f"  exec network over exec files-only:       {r['exec, network confined'] - r['exec, files only']:7.2f} ms")
print(f"  exec network over bash -c true:          {r['exec, network confined'] - r['bash -c true']:7.2f} ms")
per = (r['100 requests, through the proxy (exec)'] - r['exec of one request (its overhead)']) / 99 - r['100 requests, straight'] / 100
print(f"  proxy per connection:                    {per:7.2f} ms")
big = r['100 MB, through the proxy (exec)'] - (r['exec of one request (its overhead)'] - r['100 requests, straight'] / 100)
print(f"  100 MB through the proxy over straight:  {100 * (big / r['100 MB, straight'] - 1):7.1f} %")
link = r['100 MB at 50 MB/s, through the proxy (exec)'] - (r['exec of one request (its overhead)'] - r['100 requests, straight'] / 100)
print(f"  the same at 50 MB/s:                     {100 * (link / r['100 MB at 50 MB/s, straight'] - 1):7.1f} %")
PY
