#!/usr/bin/env python3
"""The guard's cost, side by side: agentctx's PreToolUse hook and openmoat's
(0.12.1, default policy) on the recorded payloads of Claude Code 2.1.330 and
Codex 0.169.0 (fixtures/agents/), and the cost of running a shell command in
agentctx's sandbox (`agentctx exec`) next to the bare command and to Codex's own
sandbox (`codex sandbox`, with the permission profile agentctx writes).
Run with benches/guard.sh. Needs hyperfine (shell mode: 1.15 has no --input, so
the payload comes by redirection and hyperfine subtracts the shell's start-up)."""

import json, os, re, shutil, subprocess, sys, tempfile

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
AGENTCTX = os.environ.get("AGENTCTX", os.path.join(REPO, "target/release/agentctx"))
OPENMOAT = os.environ.get("OPENMOAT", os.path.join(REPO, "target/moatbench/bin/openmoat"))
CODEX = os.path.join(REPO, "target/e2e/agents/node_modules/.bin/codex")
RUNS = os.environ.get("RUNS", "40")
RULES = 'denied_tools: [github/delete_file]\nfile_patterns:\n  exclude: ["secrets/", "**/.env", "~/.ssh/"]\n'


def sh(cmd, **kw):
    return subprocess.run(cmd, check=True, capture_output=True, text=True, **kw)


def tree(base):
    home, proj = os.path.join(base, "home"), os.path.join(base, "home/proj")
    for rel, text in {"README.md": "# app\n", "src/main.rs": "fn main() {}\n", "secrets/key": "S\n",
                      ".env": "E\n", ".coding-agent-rules.yaml": RULES}.items():
        path = os.path.join(proj, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        open(path, "w").write(text)
    os.makedirs(os.path.join(home, ".claude"), exist_ok=True)
    os.makedirs(os.path.join(home, ".codex"), exist_ok=True)
    sh(["git", "init", "-q"], cwd=proj)
    return home, proj


def payload(name, home, proj, tool_input, path):
    folder = "claude-code-2.1.330" if name.startswith("claude-") else "codex-0.169.0"
    text = open(os.path.join(REPO, "fixtures/agents", folder, name)).read()
    text = (text.replace("{{CWD}}", proj).replace("{{HOME}}", home)
            .replace("{{PROJECT_SLUG}}", "proj").replace("{{SCRATCH}}/repo", proj)
            .replace("{{SCRATCH}}/codex-home", os.path.join(home, ".codex")))
    doc = json.loads(text)
    doc["tool_input"] = tool_input
    doc["session_id"] = "bench"
    open(path, "w").write(json.dumps(doc))
    return path


def hyperfine(commands, cwd, env, out):
    args = ["hyperfine", "--warmup", "5", "--runs", RUNS, "--style", "none", "--export-json", out]
    for name, cmd in commands:
        args += ["-n", name, cmd]
    subprocess.run(args, cwd=cwd, env=env, check=True, capture_output=True)
    return json.load(open(out))["results"]


def q(s):
    return "'" + s.replace("'", "'\\''") + "'"


def main():
    # BENCH_DIR: where the trees go (another user than the repository's owner: /tmp).
    base = tempfile.mkdtemp(prefix="agentctx-guard-", dir=os.environ.get("BENCH_DIR", os.path.join(REPO, "target")))
    rows = []
    for guard in ("agentctx", "openmoat"):
        home, proj = tree(os.path.join(base, guard))
        env = {"PATH": os.environ["PATH"], "HOME": home}
        if guard == "openmoat":
            sh([OPENMOAT, "init", "--yes"], cwd=proj, env=env)
        else:
            start = json.dumps({"session_id": "bench", "cwd": proj, "hook_event_name": "SessionStart", "source": "startup"})
            subprocess.run([AGENTCTX, "hook", "--agent", "claude"], input=start, text=True, cwd=proj, env=env, check=True, capture_output=True)
        p = lambda n, f, i, t: payload(f, home, proj, i, os.path.join(base, guard, n + ".json"))
        cases = [
            ("Claude Read, allowed", p("cr", "claude-PreToolUse-Read.json", {"file_path": proj + "/src/main.rs"}, "claude"), "claude"),
            ("Claude Read, excluded", p("crx", "claude-PreToolUse-Read.json", {"file_path": proj + "/secrets/key"}, "claude"), "claude"),
            ("Claude Bash, allowed", p("cb", "claude-PreToolUse-Bash.json", {"command": "git status --short", "description": "x"}, "claude"), "claude"),
            ("Claude Bash, excluded", p("cbx", "claude-PreToolUse-Bash.json", {"command": "cat secrets/key", "description": "x"}, "claude"), "claude"),
            ("Codex Bash, allowed", p("xb", "hook-pre-tool-use-bash.json", {"command": "git status --short"}, "codex"), "codex"),
            ("Codex apply_patch", p("xp", "hook-pre-tool-use-apply-patch.json", {"command": "*** Begin Patch\n*** Add File: src/a.rs\n+x\n*** End Patch\n"}, "codex"), "codex"),
        ]
        commands = []
        for name, path, agent in cases:
            argv = [AGENTCTX, "hook", "--agent", agent] if guard == "agentctx" else [OPENMOAT, "guard", "--host", "claude-code" if agent == "claude" else "codex"]
            commands.append((f"{guard}: {name}", " ".join(q(a) for a in argv) + " < " + q(path)))
        for r in hyperfine(commands, proj, env, os.path.join(base, guard + ".json")):
            rows.append((r["command"], r["median"] * 1000, r["mean"] * 1000))
    print("PreToolUse, median / mean (ms), hyperfine", RUNS, "runs")
    for name, med, mean in rows:
        print(f"  {name:38} {med:7.2f} {mean:7.2f}")

    # The sandbox's cost per command.
    home, proj = os.path.join(base, "agentctx/home"), os.path.join(base, "agentctx/home/proj")
    env = {"PATH": os.environ["PATH"], "HOME": home}
    ex = f"{q(AGENTCTX)} exec --session bench --required --"
    # The same program without agentctx-sandbox-init beside it: bubblewrap
    # makes every mask itself.
    alone = os.path.join(base, "alone")
    os.makedirs(alone)
    shutil.copy(AGENTCTX, alone)
    ex_alone = f"{q(os.path.join(alone, 'agentctx'))} exec --session bench --required --"
    commands = [("bare: true", "true"), ("sandbox: true", f"{ex} true"),
                ("sandbox without its first program: true", f"{ex_alone} true"),
                ("bare: ls", "ls -la > /dev/null"), ("sandbox: ls", f"{ex} 'ls -la' > /dev/null"),
                ("bare: cat README.md", "cat README.md > /dev/null"), ("sandbox: cat README.md", f"{ex} 'cat README.md' > /dev/null")]
    if os.path.exists(CODEX) and os.access(CODEX, os.X_OK):
        chome = os.path.join(base, "codex-home")
        os.makedirs(chome, exist_ok=True)
        sh([AGENTCTX, "install", "codex", "--program", AGENTCTX], cwd=proj, env=dict(env, CODEX_HOME=chome))
        cfg = open(os.path.join(proj, ".codex/config.toml")).read()
        open(os.path.join(chome, "config.toml"), "w").write(cfg + f'\n[projects."{proj}"]\ntrust_level = "trusted"\n')
        ctmp = os.path.join(base, "codex-tmp"); os.makedirs(ctmp, exist_ok=True)
        cx = f"CODEX_HOME={q(chome)} TMPDIR={q(ctmp)} {q(CODEX)} sandbox -P agentctx -C {q(proj)} --"
        commands += [("Codex's sandbox (agentctx profile): true", f"{cx} true"),
                     ("Codex's sandbox (agentctx profile): cat README.md", f"{cx} cat README.md > /dev/null")]
    results = hyperfine(commands, proj, env, os.path.join(base, "exec.json"))
    print("\nA shell command, median / mean (ms), hyperfine", RUNS, "runs")
    for r in results:
        print(f"  {r['command']:48} {r['median']*1000:7.2f} {r['mean']*1000:7.2f}")
    shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
