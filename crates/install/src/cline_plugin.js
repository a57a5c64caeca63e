// agentctx for Cline CLI: written by `agentctx install cline`, removed by
// `agentctx uninstall cline`. Cline's hook files cannot give context before
// the model's first turn and can stop a call only by ending the task, so
// agentctx is a plugin: each run's start, each tool call and each result
// go to `agentctx hook --agent cline` as the payload Cline's own hook-file
// adapter builds from the same call, and the reply, in Cline's hook
// control shape, is done: `contextModification` is appended context (for
// a run's start, in its first request), `overrideInput` the call's new
// input (a command in agentctx's sandbox), and `cancel` with its
// `errorMessage` stops that call only, the reason its result.
//
// Cline gives a plugin hook 3 s and fails the whole run when one throws or
// is late: agentctx gets 2.5 s, and nothing here throws. A call agentctx
// could not judge does not run.
import { spawnSync } from "node:child_process";

const PROGRAM = __AGENTCTX_PROGRAM__;
const LIMIT_MS = 2500;

export default {
  name: "agentctx",
  manifest: { capabilities: ["hooks"] },

  setup(_api, ctx) {
    session = ctx?.session?.sessionId ?? null;
    workspace = ctx?.workspaceInfo ?? null;
  },

  hooks: {
    beforeRun: async (c) => {
      try {
        const snapshot = c?.snapshot ?? {};
        const id = snapshot.agentId;
        // Once per agent: a new run of the same agent (the next prompt)
        // keeps what its first run was given.
        if (!id || started.has(id)) return undefined;
        const resumed = process.env.CLINE_HOOK_AGENT_RESUME === "1" && !snapshot.parentAgentId;
        const reply = hook(common(resumed ? "agent_resume" : "agent_start", snapshot));
        // Asked again at the next run when agentctx could not answer.
        if (reply.failed) return undefined;
        started.add(id);
        return context(reply) ? { appendContext: context(reply) } : undefined;
      } catch {
        return undefined;
      }
    },

    beforeTool: async (c) => {
      try {
        const call = c?.toolCall ?? {};
        const reply = hook({
          ...common("tool_call", c?.snapshot),
          iteration: c?.snapshot?.iteration,
          tool_call: { id: call.toolCallId, name: call.toolName ?? c?.tool?.name, input: c?.input },
        });
        if (reply.failed) {
          return {
            skip: true,
            reason: `agentctx could not judge this call (${reply.failed}), so it does not run. Ask the user to reinstall: agentctx install cline`,
          };
        }
        if (reply.cancel === true) {
          if (call.toolCallId !== undefined) denied.add(call.toolCallId);
          return { skip: true, reason: reply.errorMessage || "Denied by agentctx." };
        }
        const name = call.toolName ?? c?.tool?.name;
        const clash = sameTurn(c?.snapshot, name, reply.overrideInput !== undefined);
        if (clash) {
          if (call.toolCallId !== undefined) denied.add(call.toolCallId);
          return {
            skip: true,
            reason: `agentctx: not in the same turn as ${clash}. Cline judges every call of a turn before any of them runs, so this call would be judged before ${clash} changes what it reads (a link it makes, a file it moves). Send this call again, on its own, now that ${clash} has run.`,
          };
        }
        // The result's reminders are about what the model asked for.
        if (call.toolCallId !== undefined) inputs.set(call.toolCallId, c?.input);
        const out = {};
        if (reply.overrideInput !== undefined) out.input = reply.overrideInput;
        if (context(reply)) out.appendContext = context(reply);
        return Object.keys(out).length > 0 ? out : undefined;
      } catch (error) {
        return { skip: true, reason: `agentctx could not judge this call (${error}), so it does not run.` };
      }
    },

    afterTool: async (c) => {
      try {
        const call = c?.toolCall ?? {};
        const result = c?.result ?? {};
        // A denial is an answer, not a failure: Cline ends a task after
        // three turns in a row whose every call failed, and a user's rules
        // must not end it. Its reason stays the call's result.
        if (denied.delete(call.toolCallId)) {
          return { result: { output: result.output, isError: false } };
        }
        const input = inputs.has(call.toolCallId) ? inputs.get(call.toolCallId) : c?.input;
        inputs.delete(call.toolCallId);
        const reply = hook({
          ...common("tool_result", c?.snapshot),
          iteration: c?.snapshot?.iteration,
          tool_result: {
            id: call.toolCallId,
            name: call.toolName ?? c?.tool?.name,
            input,
            output: result.output,
            error: result.isError ? String(result.output) : undefined,
            durationMs: c?.durationMs,
          },
        });
        return context(reply) ? { appendContext: context(reply) } : undefined;
      } catch {
        return undefined;
      }
    },
  },
};

// The session (Cline's root session id, shared by its sub-agents) and the
// workspace, from the plugin's setup.
let session = null;
let workspace = null;
// The first agent that ran without a parent: the main one. A teammate runs
// without a parent too; to agentctx it is a sub-agent.
let main = null;
const started = new Set();
// Each call's input as the model sent it, until its result.
const inputs = new Map();
// The calls agentctx denied, until their result.
const denied = new Set();

// Cline judges every call of a turn (its plugins' beforeTool) before it
// runs any of them, some in parallel: a call agentctx judges by its paths
// (a file tool; a command it does not sandbox; a sub-agent or MCP tool,
// which may do either) must not share a turn with a call that may change
// what those paths lead to (a command, a sub-agent, an MCP tool). Per
// agent, the calls allowed in its current turn.
const JUDGED_BY_PATHS = new Set(["read_files", "editor", "apply_patch", "search_codebase"]);
const NO_FILES = new Set(["ask_question", "fetch_web_content", "submit_and_exit"]);
const turns = new Map();

// The earlier call of this turn that `name` may not run beside, if any;
// otherwise `name` is counted in the turn.
function sameTurn(snapshot, name, sandboxed) {
  if (NO_FILES.has(name)) return undefined;
  const key = snapshot?.agentId ?? "";
  let turn = turns.get(key);
  if (!turn || turn.iteration !== snapshot?.iteration) {
    turn = { iteration: snapshot?.iteration, reader: undefined, changer: undefined };
    turns.set(key, turn);
  }
  const command = name === "run_commands";
  const reads = JUDGED_BY_PATHS.has(name) || !command || !sandboxed;
  const changes = !JUDGED_BY_PATHS.has(name);
  if (reads && turn.changer) return turn.changer;
  if (changes && turn.reader) return turn.reader;
  if (reads) turn.reader = name;
  if (changes) turn.changer = name;
  return undefined;
}

// The folder `cline` runs in, where `read_files` resolves a relative path
// (not the session's `-c` folder): Cline tells its plugins' environment.
function clineCwd() {
  try {
    const cwd = JSON.parse(process.env.CLINE_CONNECTOR_CLI_LAUNCH ?? "{}")?.cwd;
    return typeof cwd === "string" && cwd ? cwd : undefined;
  } catch {
    return undefined;
  }
}

function common(hookName, snapshot) {
  const agentId = snapshot?.agentId ?? null;
  const parent = snapshot?.parentAgentId ?? null;
  if (parent === null && main === null) main = agentId;
  const payload = {
    clineVersion: process.env.CLINE_VERSION?.trim() || "",
    hookName,
    timestamp: new Date().toISOString(),
    taskId: snapshot?.conversationId ?? snapshot?.runId ?? agentId,
    sessionContext: { rootSessionId: session },
    workspaceRoots: workspace?.rootPath ? [workspace.rootPath] : [],
    workspaceInfo: workspace,
    userId: process.env.CLINE_USER_ID?.trim() || process.env.USER?.trim() || "unknown",
    agent_id: agentId,
    parent_agent_id: parent,
    cwd: process.cwd(),
    cline_cwd: clineCwd(),
  };
  if (parent === null && agentId !== main) payload.agent_type = "teammate";
  return payload;
}

function context(reply) {
  const text = reply?.contextModification ?? reply?.context;
  return typeof text === "string" && text.trim() ? text : undefined;
}

function hook(payload) {
  const run = spawnSync(PROGRAM, ["hook", "--agent", "cline"], {
    input: JSON.stringify(payload),
    cwd: process.cwd(),
    encoding: "utf8",
    timeout: LIMIT_MS,
    maxBuffer: 64 * 1024 * 1024,
  });
  if (run.error || run.status !== 0) {
    return { failed: String(run.error ?? (run.stderr || `exit ${run.status}`)).trim() };
  }
  const text = (run.stdout ?? "").trim();
  if (!text) return {};
  try {
    const reply = JSON.parse(text);
    if (reply === null || typeof reply !== "object" || Array.isArray(reply)) {
      return { failed: "its reply is not a hook reply" };
    }
    return reply;
  } catch {
    return { failed: "its reply is not JSON" };
  }
}
