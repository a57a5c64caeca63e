// agentctx for opencode: written by `agentctx install opencode`, removed by
// `agentctx uninstall opencode`. opencode has no command hooks; this plugin
// hands each call to `agentctx hook --agent opencode` in Claude Code's
// payload shape and does what the reply says: a denial is thrown (the
// model reads its reason as the tool's result), a rewritten command
// replaces the call's, context is appended to the tool's output or, for
// the session's start, to the system prompt (the same text for every
// request of the session, so opencode's prompt cache holds). It makes
// agentctx's shell opencode's: a command agentctx puts in its sandbox then
// keeps its text (opencode's own `permission.bash` patterns judge it as
// written) and reaches that shell with the line that runs it in the
// sandbox, through `shell.env`.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";

const PROGRAM = __AGENTCTX_PROGRAM__;
const SHELL = __AGENTCTX_SHELL__;

export const AgentctxPlugin = async ({ directory }) => {
  // Sub-agents run in child sessions: their calls are the parent's
  // session's, with the child as the sub-agent. A session this process did
  // not see start (a task resumed by its `task_id`, a grandchild) belongs
  // to the session this process works in: the model never picks the
  // session whose rules judge its calls.
  const parents = new Map();
  const agentTypes = new Map();
  const mains = new Set();
  let current = null;
  // Each session's start context, asked for once per opencode process.
  const started = new Map();
  // opencode's config as its `config` hook gave it (the object its bash
  // tool reads `shell` from), and the sandboxed line of each bash call
  // agentctx judged, until opencode's `shell.env` for that call.
  let config = null;
  const lines = new Map();
  const viaShell = () => config !== null && config.shell === SHELL;

  const hook = (payload) => {
    const run = spawnSync(PROGRAM, ["hook", "--agent", "opencode"], {
      input: JSON.stringify({ cwd: directory, ...payload }),
      cwd: directory,
      encoding: "utf8",
      timeout: 30000,
      maxBuffer: 64 * 1024 * 1024,
    });
    if (run.error || run.status !== 0) {
      return { failed: String(run.error ?? (run.stderr || `exit ${run.status}`)).trim() };
    }
    const text = (run.stdout ?? "").trim();
    if (!text) return {};
    try {
      const reply = JSON.parse(text);
      // agentctx prints nothing or a `hookSpecificOutput`: anything else
      // is not its answer.
      return reply?.hookSpecificOutput ?? { failed: "its reply is not a hook reply" };
    } catch {
      return { failed: "its reply is not JSON" };
    }
  };

  const root = (sessionID) => {
    let id = sessionID;
    for (let depth = 0; parents.has(id) && depth < 64; depth++) id = parents.get(id);
    return id;
  };
  const who = (sessionID) => {
    if (parents.has(sessionID)) {
      return { session_id: root(sessionID), agent_id: sessionID, agent_type: agentTypes.get(sessionID) ?? "" };
    }
    if (mains.has(sessionID) || current === null) {
      return { session_id: sessionID };
    }
    return { session_id: current, agent_id: sessionID, agent_type: "" };
  };

  return {
    // After every config file is read: agentctx's shell is opencode's,
    // whatever a project's opencode.json says.
    config: async (cfg) => {
      if (cfg && typeof cfg === "object" && existsSync(SHELL)) {
        cfg.shell = SHELL;
        config = cfg;
      }
    },

    "shell.env": async (input, output) => {
      const line = input?.callID ? lines.get(input.callID) : undefined;
      if (!line || !output) return;
      lines.delete(input.callID);
      output.env = output.env ?? {};
      output.env.AGENTCTX_OPENCODE_RUN = line.run;
      output.env.AGENTCTX_OPENCODE_JUDGED = line.judged;
    },

    event: async ({ event }) => {
      const info = event?.properties?.info;
      if (event?.type === "session.created" && info?.parentID) {
        parents.set(info.id, info.parentID);
        agentTypes.set(info.id, info.agent ?? "");
      }
    },

    "experimental.chat.system.transform": async (input, output) => {
      const id = input?.sessionID;
      if (!id || !Array.isArray(output?.system)) return;
      // The first session this process prompts with no parent is the
      // one it works in.
      if (!parents.has(id) && current === null) {
        current = id;
        mains.add(id);
      }
      if (!started.has(id)) {
        const event = who(id).agent_id ? "SubagentStart" : "SessionStart";
        const reply = hook({ ...who(id), hook_event_name: event, source: "startup" });
        // Asked again at the next request when agentctx could not answer.
        if (!reply.failed) started.set(id, reply.additionalContext ?? "");
      }
      const text = started.get(id);
      if (text) output.system.push(text);
    },

    "tool.execute.before": async (input, output) => {
      const reply = hook({
        ...who(input.sessionID),
        hook_event_name: "PreToolUse",
        tool_name: input.tool,
        tool_input: output.args ?? {},
        tool_use_id: input.callID,
        agentctx_shell: viaShell(),
      });
      if (reply.failed) {
        throw new Error(
          `agentctx could not judge this call (${reply.failed}), so it does not run. Ask the user to reinstall: agentctx install opencode`,
        );
      }
      if (reply.permissionDecision === "deny") {
        throw new Error(reply.permissionDecisionReason ?? "Denied by agentctx.");
      }
      const changed = reply.updatedInput;
      if (changed && typeof changed.command === "string" && output.args) {
        if (input.tool === "bash" && viaShell() && typeof output.args.command === "string") {
          lines.set(input.callID, { judged: output.args.command, run: changed.command });
        } else {
          output.args.command = changed.command;
        }
      }
    },

    "tool.execute.after": async (input, output) => {
      lines.delete(input.callID);
      const reply = hook({
        ...who(input.sessionID),
        hook_event_name: "PostToolUse",
        tool_name: input.tool,
        tool_input: input.args ?? {},
        tool_use_id: input.callID,
        tool_response: { output: output?.output, metadata: output?.metadata },
      });
      if (reply.additionalContext && output) {
        output.output = `${output.output ?? ""}\n\n${reply.additionalContext}`;
      }
    },
  };
};
