//! opencode with its own `permission.bash` patterns, under agentctx's
//! plugin (issue 35, class 6). opencode matches those patterns against the
//! command a plugin changed, so a command wrapped in `agentctx exec` would
//! slip past `git push *: deny`; agentctx ran such commands as written,
//! judged by their words only. The plugin now makes agentctx's shell
//! opencode's (its `config` hook sets `shell`): the command keeps its text,
//! the patterns judge it as written, and the shell runs it in the sandbox
//! with the line the plugin hands it through `shell.env`.
//!
//! The real opencode (installed by `scripts/e2e`) against the mock's Chat
//! Completions API, a project install, the patterns in the user's
//! opencode.json and a project opencode.json naming a shell of its own
//! (agentctx's plugin sets its own after every config file is read).
//! Asserted on what the model was sent and what is on disk.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests fail loudly")]

use agentctx_e2e::{Block, MockApi, Sandbox, Script, text_of_request};
use serde_json::{Value, json};

fn bash(command: &str) -> Block {
    Block::tool("bash", json!({"command": command, "description": "e2e"}))
}

#[test]
#[ignore = "needs the real opencode: scripts/e2e"]
fn opencode_runs_commands_in_the_sandbox_with_its_own_command_patterns_set() {
    let s = Sandbox::new();
    s.write("tools/run.sh", "echo TOOLS-RUN-SOURCE\n");
    s.write("secrets/token.txt", "SECRET-TOKEN-E2E\n");
    s.write(
        ".coding-agent-rules.yaml",
        "file_patterns:\n  exclude: [\"secrets/\"]\n",
    );
    // A project's own shell: agentctx's plugin replaces it.
    s.write("opencode.json", "{\"shell\": \"/bin/dash\"}\n");
    s.commit();
    // A file list that names the secret: a program reading it opens the
    // secret by another route than its words.
    s.write("list", "secrets/token.txt\0");

    let main = "E2E-OPENCODE-SHELL";
    let mock = MockApi::start(Script::new().conversation(
        main,
        vec![
            vec![bash(
                "cat tools/run.sh; echo \"in-sandbox:${AGENTCTX_COMMAND:+yes}\"",
            )],
            vec![bash("git push origin HEAD")],
            vec![bash("sort --files0-from=list; echo \"sort-status:$?\"")],
            vec![bash("cat secrets/token.txt")],
            vec![Block::text("MAIN-DONE")],
        ],
    ));
    s.opencode_config(mock.base_url());
    let config_path = s.opencode_config_path();
    let mut config: Value =
        serde_json::from_str(&std::fs::read_to_string(&config_path).unwrap()).unwrap();
    config["permission"] = json!({"bash": {"*": "allow", "git push *": "deny"}});
    std::fs::write(&config_path, serde_json::to_string_pretty(&config).unwrap()).unwrap();
    let user_config = std::fs::read(&config_path).unwrap();

    let install = s.install("opencode", &[]);
    assert_eq!(install.code, Some(0), "{}", install.stderr);
    let shell = s.root.join(".opencode/agentctx/bash");
    assert!(shell.is_file(), "install wrote no shell");

    let run = s.opencode(&s.root, &format!("{main} go"));
    let requests = mock.conversation(main);
    let log =
        std::fs::read_to_string(s.home.join(".local/state/agentctx/hook.log")).unwrap_or_default();
    let context = format!(
        "{} requests\nstdout:\n{}\nstderr:\n{}\nhook.log:\n{log}",
        requests.len(),
        run.stdout,
        run.stderr
    );
    assert!(requests.len() >= 5, "{context}");
    let texts: Vec<String> = requests.iter().map(text_of_request).collect();
    for text in &texts {
        assert!(
            !text.contains("SECRET-TOKEN-E2E"),
            "the secret was read\n{text}"
        );
    }
    // The model is told the shell is bash (opencode names it by its file).
    let tools = requests[0].to_string();
    assert!(tools.contains("Shell: bash"), "{tools}");
    let last = texts.last().unwrap();
    // 1. An allowed command ran, in the sandbox (`agentctx exec` sets
    //    AGENTCTX_COMMAND for the command it runs).
    assert!(last.contains("TOOLS-RUN-SOURCE"), "{last}\n{context}");
    assert!(last.contains("in-sandbox:yes"), "{last}\n{context}");
    // 2. opencode's own pattern judged the command as written.
    assert!(
        last.contains(
            "The user has specified a rule which prevents you from using this specific tool call"
        ) && last.contains("git push *"),
        "opencode's `git push *: deny` did not judge the command\n{last}\n{context}"
    );
    // 3. A program that opens files by another route ran in the sandbox:
    //    the kernel kept the secret from it.
    assert!(last.contains("sort-status:2"), "{last}\n{context}");
    // 4. A command naming the secret: agentctx's denial reached the model.
    assert!(
        last.contains("exclude pattern `secrets/`"),
        "{last}\n{context}"
    );

    // Uninstall: the plugin and the shell go; the user's config is as it was.
    let uninstall = s.agentctx(&s.root, &["uninstall", "opencode"]);
    assert_eq!(uninstall.code, Some(0), "{}", uninstall.stderr);
    assert!(!shell.exists());
    assert!(!s.root.join(".opencode/plugin/agentctx.js").exists());
    assert_eq!(std::fs::read(&config_path).unwrap(), user_config);
}
