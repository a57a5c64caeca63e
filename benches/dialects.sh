#!/usr/bin/env bash
# `agentctx hook` per agent dialect on the payloads each real CLI sent
# (fixtures/agents/), and the time agentctx's opencode and Cline CLI
# plugins add to a tool call (opencode's `tool.execute.before` and
# `tool.execute.after`, Cline's `beforeTool` and `afterTool`, each a
# process spawn), in one run. Needs hyperfine and node.
# Usage: benches/dialects.sh (from the repository root)
set -euo pipefail
cargo build --release -q -p agentctx-cli
bin=$(realpath target/release/agentctx)
fixtures=$(realpath fixtures/agents)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
repo="$work/repo"
python3 benches/gen-tree.py "$repo" 10000 > /dev/null
mkdir -p "$repo/.git" "$repo/secrets" "$repo/packages/web/src" "$repo/packages/api/lib"
echo 'ref: refs/heads/main' > "$repo/.git/HEAD"
echo "Root rules." > "$repo/AGENTS.md"
echo "Web rules." > "$repo/packages/web/AGENTS.md"
echo "export const app = 1;" > "$repo/packages/web/src/app.tsx"
echo "secret" > "$repo/secrets/token.txt"
printf 'denied_tools: [Glob]\nfile_patterns:\n  exclude: ["secrets/", "**/.env"]\n' > "$repo/.coding-agent-rules.yaml"
export HOME="$work/home"; mkdir -p "$HOME"
# A recorded payload with its placeholders set to this project.
payload() {
  sed -e "s#{{CWD}}#$repo/#g; s#{{REPO}}#$repo#g; s#{{HOME}}#$HOME#g; s#{{SCRATCH}}#$work#g; s#{{SESSION_ID}}#1795748557193_zzcu3#g" "$fixtures/$1" \
    | sed -e "s#$repo//#$repo/#g" \
    | python3 -c 'import json,sys; d=json.load(sys.stdin); json.dump(d.get("stdin", d), sys.stdout)' > "$work/$2"
}
payload gemini-cli-0.61.0/BeforeTool-read_file.json gemini-pre.json
payload gemini-cli-0.61.0/AfterTool-read_file.json gemini-post.json
payload copilot-cli-1.0.102/PreToolUse-Read.json copilot-pre.json
payload copilot-cli-1.0.102/PostToolUse-Read.json copilot-post.json
payload qwen-code-0.15.10/PreToolUse-read_file.json qwen-pre.json
payload qwen-code-0.15.10/PostToolUse-read_file.json qwen-post.json
payload cline-cli-3.0.65/PreToolUse-read_files.json cline-pre.json
payload cline-cli-3.0.65/PostToolUse-read_files.json cline-post.json
# opencode: the payload its plugin builds from the recorded call.
python3 - "$fixtures/opencode-1.18.33/tool.execute.before-read.json" "$repo" > "$work/opencode-pre.json" <<'PY'
import json, sys
call = json.loads(open(sys.argv[1]).read().replace("{{REPO}}", sys.argv[2]).replace("{{CWD}}", sys.argv[2]))
print(json.dumps({"cwd": sys.argv[2], "session_id": call["input"]["sessionID"], "hook_event_name": "PreToolUse",
                  "tool_name": call["input"]["tool"], "tool_input": call["output"]["args"], "tool_use_id": call["input"]["callID"]}))
PY
sed -e 's/"PreToolUse"/"PostToolUse"/' "$work/opencode-pre.json" > "$work/opencode-post.json"
cd "$repo"
# Each session's first call decides its anchor: made before timing.
for agent in gemini copilot qwen opencode cline; do
  "$bin" hook --agent "$agent" < "$work/$agent-pre.json" > /dev/null
  "$bin" hook --agent "$agent" < "$work/$agent-post.json" > /dev/null
done
args=()
for agent in gemini copilot opencode qwen cline; do
  args+=(-n "$agent pre (read, allowed)" "sh -c '$bin hook --agent $agent < $work/$agent-pre.json'")
  args+=(-n "$agent post (read, nothing new)" "sh -c '$bin hook --agent $agent < $work/$agent-post.json'")
done
hyperfine -N --warmup 10 --runs 100 --export-json "$work/a.json" "${args[@]}" \
  -n "claude pre (read, allowed)" "sh -c '$bin hook --agent claude < $work/opencode-pre.json'" \
  -n "sh -c true (shell floor)" "sh -c true"
# The opencode plugin as opencode calls it, in node: installed by
# `agentctx install opencode`, its two hooks per tool call timed.
mkdir -p "$repo/.opencode/plugin"
(cd "$repo" && "$bin" install opencode --program "$bin" > /dev/null)
cat > "$work/plugin-bench.mjs" <<'JS'
const [plugin, call, runs] = process.argv.slice(2);
const { AgentctxPlugin } = await import(plugin);
const recorded = JSON.parse((await import("node:fs")).readFileSync(call, "utf8"));
const hooks = await AgentctxPlugin({ directory: process.cwd() });
const times = [];
for (let i = 0; i < Number(runs); i++) {
  const args = { ...recorded.tool_input };
  const start = process.hrtime.bigint();
  await hooks["tool.execute.before"]({ tool: recorded.tool_name, sessionID: recorded.session_id, callID: `c${i}` }, { args });
  await hooks["tool.execute.after"]({ tool: recorded.tool_name, sessionID: recorded.session_id, callID: `c${i}`, args }, { output: "x", metadata: {} });
  times.push(Number(process.hrtime.bigint() - start) / 1e6);
}
times.sort((a, b) => a - b);
console.log(`  opencode plugin, per tool call (before + after)      ${times[times.length >> 1].toFixed(2)} ms  (p90 ${times[Math.floor(times.length * 0.9)].toFixed(2)}, ${runs} calls)`);
JS
python3 - "$work/a.json" <<'PY'
import json, sys
print("\nmedians:")
for r in json.load(open(sys.argv[1]))["results"]:
    print(f"  {r['command']:<52} {r['median']*1000:7.2f} ms  (mean {r['mean']*1000:.2f})")
PY
# node reads `.js` by the nearest package.json (the generated tree has
# one); opencode's Bun reads the plugin as a module whatever it holds.
cp "$repo/.opencode/plugin/agentctx.js" "$work/agentctx-plugin.mjs"
node "$work/plugin-bench.mjs" "$work/agentctx-plugin.mjs" "$work/opencode-pre.json" 200
# Cline CLI's plugin, as Cline calls it: installed by `agentctx install
# cline`, its beforeTool and afterTool per tool call timed.
mkdir -p "$HOME/.cline"
(cd "$repo" && "$bin" install cline --user --program "$bin" > /dev/null)
cp "$HOME/.cline/plugins/agentctx.js" "$work/agentctx-cline.mjs"
cat > "$work/cline-bench.mjs" <<'JS'
const [plugin, runs] = process.argv.slice(2);
const { default: p } = await import(plugin);
p.setup({}, { session: { sessionId: "1795748557193_zzcu3" }, workspaceInfo: { rootPath: process.cwd() } });
const snapshot = { agentId: "agent_main", conversationId: "conv_1", iteration: 1 };
const times = [];
for (let i = 0; i < Number(runs); i++) {
  const toolCall = { toolCallId: `c${i}`, toolName: "read_files" };
  const input = { files: [{ path: "packages/web/src/app.tsx" }] };
  const start = process.hrtime.bigint();
  const before = await p.hooks.beforeTool({ snapshot: { ...snapshot, iteration: i }, toolCall, input });
  if (before?.skip) throw new Error(`denied: ${before.reason}`);
  await p.hooks.afterTool({ snapshot: { ...snapshot, iteration: i }, toolCall, input, result: { output: "x", isError: false } });
  times.push(Number(process.hrtime.bigint() - start) / 1e6);
}
times.sort((a, b) => a - b);
console.log(`  cline plugin, per tool call (before + after)         ${times[times.length >> 1].toFixed(2)} ms  (p90 ${times[Math.floor(times.length * 0.9)].toFixed(2)}, ${runs} calls)`);
JS
# Where `cline` runs: Cline tells its plugins (relative reads are from there).
CLINE_CONNECTOR_CLI_LAUNCH="{\"cwd\":\"$repo\"}" node "$work/cline-bench.mjs" "$work/agentctx-cline.mjs" 200
