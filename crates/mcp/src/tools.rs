//! The tools: each takes its request type from agentctx-types and answers
//! with text within its budget (`page.rs`). What they answer is what the
//! CLI and the hooks answer: the same library calls.

use std::path::PathBuf;

use agentctx_agentmem::CaptureStore;
use agentctx_context::{ComposeParts, compose};
use agentctx_guard::{Guard, Verdict};
use agentctx_session::Host;
use agentctx_types::{
    ContextRequest, FilesRequest, IdRequest, MemQueryRequest, MemSaveRequest, ResolveRequest,
    RulesCheckRequest,
};
use rmcp::handler::server::wrapper::Parameters;
use rmcp::{tool, tool_router};

use crate::{ContextServer, page};

/// A failure, as the model reads it.
fn failed(what: &str, error: impl std::fmt::Display) -> String {
    format!("agentctx: {what} failed: {error}\n")
}

impl ContextServer {
    fn host(&self) -> Host<'_> {
        Host {
            program: self.state.program.as_deref(),
            ..Host::new(&self.state.config, &self.state.env, Some(&self.state.cwd))
        }
    }

    /// `path` against the server's folder (default: that folder), real.
    fn folder(&self, path: Option<&str>) -> PathBuf {
        let joined = match path.filter(|p| !p.is_empty()) {
            Some(p) => self.state.cwd.join(expand_home(p, &self.state.env)),
            None => self.state.cwd.clone(),
        };
        std::fs::canonicalize(&joined).unwrap_or(joined)
    }

    fn store(&self) -> Result<Box<dyn CaptureStore + Send>, String> {
        match self.memory.as_ref() {
            Ok(source) => source.open().map_err(|e| e.to_string()),
            Err(why) => Err(why.clone()),
        }
    }

    /// Runs `work` on a thread that may block: the memory tools reach the
    /// shared PostgreSQL store through a blocking client, which must not
    /// run on the server's async runtime.
    async fn blocking(&self, work: impl FnOnce(&Self) -> String + Send + 'static) -> String {
        let this = self.clone();
        tokio::task::spawn_blocking(move || work(&this))
            .await
            .unwrap_or_else(|error| failed("the tool", error))
    }

    /// The captures this project's sessions see.
    fn project_scope(&self) -> agentctx_agentmem::Scope {
        let memory = &self.state.config.agentmem;
        let cache = self.state.env.xdg_dir("XDG_CACHE_HOME", ".cache");
        let options = agentctx_agentmem::identity_options(memory, cache.as_deref());
        let identity = agentctx_agentmem::identify(&self.state.cwd, &options);
        agentctx_agentmem::Scope::of(
            &identity,
            &memory.identities,
            &memory.recall.also,
            self.state.env.home().as_deref(),
        )
    }
}

/// `~/...` against the environment's home (agentmem's expansion).
fn expand_home(path: &str, env: &agentctx_config::Environment) -> PathBuf {
    agentctx_agentmem::expand_home(path, env.home().as_deref())
}

/// `github:OWNER/REPO[@REF]` or `gitlab:...`, against `api` when given.
fn remote_of(spec: &str, api: Option<&str>) -> Option<agentctx_filelist::RemoteRepo> {
    use agentctx_filelist::{Platform, RemoteRepo};
    let (platform, rest) = match spec.split_once(':')? {
        ("github", rest) => (Platform::GitHub, rest),
        ("gitlab", rest) => (Platform::GitLab, rest),
        _ => return None,
    };
    Some(RemoteRepo::parse(platform, rest, api))
}

#[tool_router(vis = "pub(crate)")]
impl ContextServer {
    #[tool(
        description = "The project's context to start with: its rules' instructions, the AGENTS.md chain from the project root to the folder, its file list and an index of past work. `path`: a folder (default the server's); `remote`: github:OWNER/REPO[@REF] or gitlab:GROUP/PROJECT[@REF] instead. Paged: max_tokens, cursor."
    )]
    async fn context(&self, Parameters(request): Parameters<ContextRequest>) -> String {
        self.blocking(move |this| {
            let host = this.host();
            let composed = match request.remote.as_deref() {
                Some(spec) => match remote_of(spec, this.state.api_url.as_deref()) {
                    Some(repo) => match agentctx_context::compose_remote(&host, &repo, false) {
                        Ok(composed) => composed,
                        Err(error) => return failed("context", error),
                    },
                    None => {
                        return failed(
                            "context",
                            format!("{spec:?} is not github:OWNER/REPO or gitlab:GROUP/PROJECT"),
                        );
                    }
                },
                None => {
                    let folder = this.folder(request.path.as_deref());
                    let mut composed = compose(&host, &folder, ComposeParts::ALL);
                    let recall = &this.state.config.agentmem.recall;
                    if recall.enabled {
                        let mut notes = Vec::new();
                        if let Ok(source) = this.memory.as_ref()
                            && let Ok(index) = agentctx_context::memory_index_in(
                                &host,
                                source,
                                &folder,
                                recall,
                                jiff::Zoned::now().date(),
                                &mut notes,
                            )
                            && !index.text.is_empty()
                        {
                            composed.system.push(agentctx_types::ContextPart {
                                kind: agentctx_types::ContextPartKind::Memory,
                                text: index.text,
                            });
                        }
                    }
                    composed
                }
            };
            page(&composed.text(), &request.paging)
        })
        .await
    }

    #[tool(
        description = "Call before reading or writing files: the AGENTS.md files that are new or changed for these paths since this session last asked (their paths and modification times, never their bodies). Read each one named before working there."
    )]
    async fn agents_resolve(&self, Parameters(request): Parameters<ResolveRequest>) -> String {
        let Some(dir) = self.host().sessions_dir() else {
            return failed(
                "agents_resolve",
                "no state folder ($XDG_STATE_HOME or $HOME)",
            );
        };
        let store = match agentctx_core::SessionStore::for_id(&dir, &self.session) {
            Ok(store) => store,
            Err(error) => return failed("agents_resolve", error),
        };
        let targets: Vec<PathBuf> = request
            .paths
            .iter()
            .map(|p| self.state.cwd.join(expand_home(p, &self.state.env)))
            .collect();
        match agentctx_core::resolve_in_store(
            &store,
            &self.state.cwd,
            &self.state.config.agents,
            self.state.env.home(),
            &targets,
        ) {
            Ok(resolved) if resolved.found.files.is_empty() => {
                "No AGENTS.md is new or changed for these paths.\n".to_owned()
            }
            Ok(resolved) => agentctx_core::render_resolve_paths_in(
                &resolved.found,
                agentctx_types::ReminderEnvelope::SystemReminder,
            ),
            Err(error) => failed("agents_resolve", error),
        }
    }

    #[tool(
        description = "Whether the project's rules allow a tool (`tool`, e.g. Bash, github/delete_file) or reading or writing a path (`path`, `access`: read or write), with the rule that decides and where it is written."
    )]
    async fn rules_check(&self, Parameters(request): Parameters<RulesCheckRequest>) -> String {
        let host = self.host();
        let rules = match host.rules(&self.state.cwd) {
            Ok(rules) => rules,
            Err(error) => return failed("rules_check", error),
        };
        let guard = Guard::new(&host, &rules, &self.state.cwd);
        let mut answers = Vec::new();
        let mut notes = Vec::new();
        if let Some(tool) = request.tool.as_deref() {
            let verdict = guard.decide(tool, &serde_json::json!({}), &mut notes);
            answers.push(verdict_text(&format!("tool `{tool}`"), verdict));
        }
        if let Some(path) = request.path.as_deref() {
            let absolute = self.state.cwd.join(expand_home(path, &self.state.env));
            let write = request.access.as_deref() == Some("write");
            let (tool, input) = if write {
                (
                    "Write",
                    serde_json::json!({"file_path": absolute, "content": ""}),
                )
            } else {
                ("Read", serde_json::json!({"file_path": absolute}))
            };
            let verdict = guard.decide(tool, &input, &mut notes);
            let what = format!("{} `{path}`", if write { "writing" } else { "reading" });
            answers.push(verdict_text(&what, verdict));
        }
        if answers.is_empty() {
            return "Name a `tool`, a `path`, or both.\n".to_owned();
        }
        answers.concat()
    }

    #[tool(
        description = "The project's file list within a token budget, the most useful entries first (README, manifests, sources before generated files). `path`: a folder; `remote`: github:OWNER/REPO[@REF] or gitlab:GROUP/PROJECT[@REF]; with `remote`, `file` (and `lines`: FIRST-LAST) reads that file's lines instead. Paged: max_tokens, cursor."
    )]
    async fn files(&self, Parameters(request): Parameters<FilesRequest>) -> String {
        let host = self.host();
        if let (Some(spec), Some(file)) = (request.remote.as_deref(), request.file.as_deref()) {
            return match remote_of(spec, self.state.api_url.as_deref()) {
                Some(repo) => match remote_lines(&host, &repo, file, request.lines.as_deref()) {
                    Ok(text) => page(&text, &request.paging),
                    Err(error) => failed("files", error),
                },
                None => failed(
                    "files",
                    format!("{spec:?} is not github:OWNER/REPO or gitlab:GROUP/PROJECT"),
                ),
            };
        }
        let text = match request.remote.as_deref() {
            Some(spec) => match remote_of(spec, self.state.api_url.as_deref()) {
                Some(repo) => match agentctx_context::compose_remote(&host, &repo, false) {
                    Ok(composed) => composed
                        .parts()
                        .filter(|p| p.kind == agentctx_types::ContextPartKind::Files)
                        .map(|p| p.text.clone())
                        .collect::<String>(),
                    Err(error) => return failed("files", error),
                },
                None => {
                    return failed(
                        "files",
                        format!("{spec:?} is not github:OWNER/REPO or gitlab:GROUP/PROJECT"),
                    );
                }
            },
            None => {
                let folder = self.folder(request.path.as_deref());
                let rules = host.rules(&folder).ok();
                match agentctx_context::file_list_setup(&host, &folder, rules.as_ref()) {
                    Ok((root, options)) => match agentctx_filelist::list_local(&root, &options) {
                        Ok(listing) => listing.text,
                        Err(error) => return failed("files", error),
                    },
                    Err(error) => return failed("files", error),
                }
            }
        };
        page(&text, &request.paging)
    }

    #[tool(
        description = "Search the work captured in earlier sessions of this project (words, \"phrases\", prefix*, category:X). One line per capture with its id; read one with mem_get. `all_projects`: search every project's captures."
    )]
    async fn mem_search(&self, Parameters(request): Parameters<MemQueryRequest>) -> String {
        self.blocking(move |this| {
            let mut store = match this.store() {
                Ok(store) => store,
                Err(error) => return failed("mem_search", error),
            };
            let filter = agentctx_agentmem::Filter {
                scope: (!request.all_projects).then(|| this.project_scope()),
                limit: 50,
                ..agentctx_agentmem::Filter::default()
            };
            match store.search(&request.query, &filter) {
                Ok(hits) if hits.is_empty() => "No capture matches.\n".to_owned(),
                Ok(hits) => {
                    let text: String = hits
                        .iter()
                        .map(|hit| {
                            format!(
                                "- {} {} {}: {} [{}]\n  {}\n",
                                hit.record.time.get(..10).unwrap_or(""),
                                hit.record.category,
                                hit.record.agent,
                                hit.record.completion.replace('\n', " "),
                                agentctx_agentmem::short_id(&hit.record.id),
                                hit.snippet.replace('\n', " ")
                            )
                        })
                        .collect();
                    page(&text, &request.paging)
                }
                Err(error) => failed("mem_search", error),
            }
        })
        .await
    }

    #[tool(
        description = "One captured piece of earlier work, whole, by the id an index line or a search result shows."
    )]
    async fn mem_get(&self, Parameters(request): Parameters<IdRequest>) -> String {
        self.blocking(move |this| {
            let mut store = match this.store() {
                Ok(store) => store,
                Err(error) => return failed("mem_get", error),
            };
            match store.find(&request.id) {
                Ok(record) => match store.document(&record) {
                    Ok(text) => page(&text, &request.paging),
                    Err(error) => failed("mem_get", error),
                },
                Err(error) => failed("mem_get", error),
            }
        })
        .await
    }

    #[tool(
        description = "The captures that best match a query, as one block with the start of each (within max_tokens, default 8,000)."
    )]
    async fn mem_context(&self, Parameters(request): Parameters<MemQueryRequest>) -> String {
        self.blocking(move |this| {
            let mut store = match this.store() {
                Ok(store) => store,
                Err(error) => return failed("mem_context", error),
            };
            let filter = agentctx_agentmem::Filter {
                scope: (!request.all_projects).then(|| this.project_scope()),
                limit: 20,
                ..agentctx_agentmem::Filter::default()
            };
            let budget = request
                .paging
                .max_tokens
                .unwrap_or(agentctx_types::DEFAULT_MAX_TOKENS) as usize;
            match store.context(
                &request.query,
                &filter,
                budget,
                &agentctx_context::O200kCounter,
                jiff::Zoned::now().date(),
            ) {
                Ok(block) => block.text,
                Err(error) => failed("mem_context", error),
            }
        })
        .await
    }

    #[tool(
        description = "Keep a finding or decision for later sessions of this project (for agents without sub-agents whose output is captured). `text`: what was found; its first line is its title. `agent`: who found it (researcher, architect, engineer: its category follows)."
    )]
    async fn mem_save(&self, Parameters(request): Parameters<MemSaveRequest>) -> String {
        self.blocking(move |this| {
            let agent = request.agent.clone().unwrap_or_else(|| "mcp".to_owned());
            let hook = agentctx_types::HookInput {
                session_id: Some(this.session.as_str().to_owned()),
                cwd: Some(this.state.cwd.display().to_string()),
                hook_event_name: Some("SubagentStop".into()),
                agent_id: Some(format!("mcp-{}", short_digest(&request.text))),
                agent_type: Some(agent),
                agent_transcript_path: Some("mcp".into()),
                last_assistant_message: Some(request.text.clone()),
                ..agentctx_types::HookInput::default()
            };
            let cache = this.state.env.xdg_dir("XDG_CACHE_HOME", ".cache");
            let report = agentctx_agentmem::capture_with_config(
                &agentctx_agentmem::Trigger::hook(hook),
                &this.state.config.agentmem,
                this.state.env.home().as_deref(),
                this.state.env.codex_home().as_deref(),
                cache.as_deref(),
            );
            match report.outcome {
                Ok(agentctx_agentmem::CaptureOutcome::Captured { path, .. }) => {
                    let name = path
                        .file_stem()
                        .map(|n| n.to_string_lossy().into_owned())
                        .unwrap_or_default();
                    format!(
                        "Saved as {} (id {}).\n",
                        path.display(),
                        agentctx_agentmem::short_id(&name)
                    )
                }
                Ok(agentctx_agentmem::CaptureOutcome::Duplicate { .. }) => {
                    "Already saved: the same text was kept before.\n".to_owned()
                }
                Ok(
                    agentctx_agentmem::CaptureOutcome::Skipped { reason }
                    | agentctx_agentmem::CaptureOutcome::Pending { reason, .. },
                ) => failed("mem_save", reason),
                Err(error) => failed("mem_save", error),
            }
        })
        .await
    }

    #[tool(
        description = "The part of a tool output that agentctx trimmed, by the id its tool.output.trimmed reminder names. Paged: max_tokens, cursor."
    )]
    async fn output_get(&self, Parameters(request): Parameters<IdRequest>) -> String {
        let Some(state) = agentctx_config::state_dir(&self.state.env) else {
            return failed("output_get", "no state folder ($XDG_STATE_HOME or $HOME)");
        };
        let store = agentctx_core::OutputStore::at(state.join("outputs"));
        match store.page(&request.id, 0, usize::MAX) {
            Ok(whole) => page(&whole.text, &request.paging),
            Err(error) => failed("output_get", error),
        }
    }
}

/// Lines `range` (`FIRST-LAST`, 1-based) of `file` in `repo` at the commit
/// its listing names, headed by where they come from.
fn remote_lines(
    host: &Host<'_>,
    repo: &agentctx_filelist::RemoteRepo,
    file: &str,
    range: Option<&str>,
) -> Result<String, String> {
    use agentctx_filelist::{FileListOptions, remote};
    let options = FileListOptions::layered(
        &host.config.file_list_context,
        &agentctx_types::FileListOverrides::default(),
    );
    let remote_options =
        agentctx_context::remote_options(host, repo.platform, &options, false, true);
    let listing = remote::fetch(repo, &remote_options).map_err(|e| e.to_string())?;
    let commit = listing
        .commit
        .clone()
        .ok_or("the listing names no commit")?;
    let text = remote::fetch_file(repo, &commit, file.trim_start_matches('/'), &remote_options)
        .map_err(|e| e.to_string())?
        .ok_or_else(|| format!("{file}: no such file, or larger than 256 KiB"))?;
    let lines: Vec<&str> = text.lines().collect();
    let (first, last) = match range {
        None => (1, lines.len()),
        Some(range) => {
            let (a, b) = range.split_once('-').unwrap_or((range, range));
            let first: usize = a
                .trim()
                .parse()
                .map_err(|_| format!("lines {range:?}: FIRST-LAST"))?;
            let last: usize = match b.trim() {
                "" => lines.len(),
                b => b
                    .parse()
                    .map_err(|_| format!("lines {range:?}: FIRST-LAST"))?,
            };
            (first.max(1), last.min(lines.len()))
        }
    };
    let mut out = format!(
        "{}@{commit}:{file} lines {first}-{last} of {}\n",
        repo.repo,
        lines.len()
    );
    if first <= last {
        for line in &lines[first - 1..last] {
            out.push_str(line);
            out.push('\n');
        }
    }
    Ok(out)
}

/// A guard's verdict as a line for the model.
fn verdict_text(what: &str, verdict: Verdict) -> String {
    match verdict {
        Verdict::Allow => format!("Allowed: {what}. No rule of the project restricts it.\n"),
        Verdict::Deny(reason) => format!("Denied: {what}.\n{reason}"),
        Verdict::Ask(reason) => format!("Asked about: {what}.\n{reason}"),
        // Only a search tool that can leave entries out runs it narrowed.
        Verdict::SearchWithout { denial, .. } => format!("Denied: {what}.\n{denial}"),
    }
}

/// 16 hex digits of a text's SHA-256: the id of an explicit capture, so
/// the same text saved twice is kept once.
fn short_digest(text: &str) -> String {
    use sha2::Digest as _;
    sha2::Sha256::digest(text.as_bytes())[..8]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}
