#!/usr/bin/env node
// The `agentctx` command of the npm package: finds the binary in the
// per-platform package npm installed beside this one (an optional
// dependency whose `os`, `cpu` and `libc` fields match this machine) and
// hands it the process: arguments, stdio, exit status and signals. Nothing
// is downloaded and nothing runs at install time, so `--ignore-scripts`,
// pnpm's build-script policy and offline mirrors all work.
"use strict";

const { spawn } = require("node:child_process");
const path = require("node:path");

// Which platform packages can run here, best first (packaging/npm/pack.sh
// writes them under these names).
function candidates() {
  const { platform, arch } = process;
  if (platform === "linux") {
    // A static musl build runs on glibc systems too, so it is the fallback
    // there; a glibc build does not run on musl systems (Alpine).
    const glibc = process.report?.getReport?.()?.header?.glibcVersionRuntime;
    return glibc
      ? [`@agentctx/cli-linux-${arch}`, `@agentctx/cli-linux-${arch}-musl`]
      : [`@agentctx/cli-linux-${arch}-musl`];
  }
  if (platform === "darwin" || platform === "win32") {
    return [`@agentctx/cli-${platform}-${arch}`];
  }
  return [];
}

function findBinary() {
  const exe = process.platform === "win32" ? "agentctx.exe" : "agentctx";
  for (const name of candidates()) {
    let manifest;
    try {
      manifest = require.resolve(`${name}/package.json`);
    } catch {
      continue;
    }
    return path.join(path.dirname(manifest), "bin", exe);
  }
  return null;
}

const binary = findBinary();
if (binary === null) {
  const wanted = candidates();
  console.error(
    `agentctx: no prebuilt binary for ${process.platform}-${process.arch} is installed` +
      (wanted.length
        ? ` (looked for ${wanted.join(", ")}; it is an optional dependency: was the install run with --no-optional or --omit=optional?)`
        : " (no package is built for this platform)") +
      "; build from source: cargo install --locked --path crates/cli",
  );
  process.exit(1);
}

const args = process.argv.slice(2);

// Replace Node with the binary where Node can (22.15+, 23.11+; not on
// Windows): the binary then gets signals and the terminal directly, and
// its exit status is the command's.
if (process.platform !== "win32" && typeof process.execve === "function") {
  // Node ignores SIGPIPE and SIGXFSZ, and an ignored signal stays ignored
  // across execve; a handler is reset to the default there, so the binary
  // starts with the dispositions it has when run directly.
  process.on("SIGPIPE", () => {});
  process.on("SIGXFSZ", () => {});
  process.execve(binary, [binary, ...args], process.env);
}

// Elsewhere a child process, with the signals Node receives passed on and
// the child's end mirrored.
const child = spawn(binary, args, { stdio: "inherit" });
child.on("error", (error) => {
  console.error(`agentctx: cannot run ${binary}: ${error.message}`);
  process.exit(1);
});
const forwarded = ["SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT"];
for (const signal of forwarded) {
  process.on(signal, () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill(signal);
    }
  });
}
child.on("exit", (code, signal) => {
  if (signal) {
    // Die of the same signal, so a shell sees 128+N; the exit code is the
    // answer where the signal is ignored or cannot be raised.
    process.exitCode = 128 + (require("node:os").constants.signals[signal] ?? 0);
    process.removeAllListeners(signal);
    process.kill(process.pid, signal);
    return;
  }
  process.exit(code ?? 1);
});
