#!/usr/bin/env python3
"""`agentctx mcp` on a warm server: median wall time of tool calls over
stdio (JSON-RPC, one request at a time, as an agent makes them), and the
`context` tool beside `agentctx context` as a process.

Usage: benches/mcp.py AGENTCTX PROJECT [RUNS]   (release build recommended)
PROJECT should be a git repository with some rules and captures.
"""
import json, os, statistics, subprocess, sys, time

program, project = sys.argv[1], os.path.abspath(sys.argv[2])
runs = int(sys.argv[3]) if len(sys.argv) > 3 else 200
server = subprocess.Popen([program, "mcp"], cwd=project, stdin=subprocess.PIPE,
                          stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
ids = iter(range(1, 10**9))

def rpc(method, params=None, notify=False):
    message = {"jsonrpc": "2.0", "method": method}
    if params is not None:
        message["params"] = params
    if not notify:
        message["id"] = next(ids)
    server.stdin.write((json.dumps(message) + "\n").encode())
    server.stdin.flush()
    if not notify:
        return json.loads(server.stdout.readline())

rpc("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "bench", "version": "1"}})
rpc("notifications/initialized", notify=True)

def tool(name, arguments):
    return rpc("tools/call", {"name": name, "arguments": arguments})

saved = tool("mem_save", {"text": "Bench finding about the cache.\n\nBody.", "agent": "researcher"})
text = saved["result"]["content"][0]["text"]
memory_id = text.split("(id ")[1].split(")")[0] if "(id " in text else "000000000000"
cases = [
    ("agents_resolve", {"paths": ["README.md"]}),
    ("rules_check", {"path": "README.md"}),
    ("rules_check", {"tool": "Bash"}),
    ("mem_get", {"id": memory_id}),
    ("context", {}),
]
print(f"{runs} calls each, warm server, {project}")
for name, arguments in cases:
    for _ in range(5):
        tool(name, arguments)
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        tool(name, arguments)
        times.append((time.perf_counter() - start) * 1000)
    print(f"  {name:<15} {json.dumps(arguments)[:40]:<42} median {statistics.median(times):7.2f} ms")
server.stdin.close()
server.wait()
times = []
for _ in range(min(runs, 50)):
    start = time.perf_counter()
    subprocess.run([program, "context"], cwd=project, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    times.append((time.perf_counter() - start) * 1000)
print(f"  agentctx context (a process)                              median {statistics.median(times):7.2f} ms")
