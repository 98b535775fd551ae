// The real agents the suite runs: pinned npm packages, how to start each one against the fake
// model API on 127.0.0.1, and what each needs to stay offline (telemetry and update checks off,
// a throwaway HOME). scripts/test-agents installs the packages into $PORTHOLE_AGENT_CACHE.
//
// env({ baseUrl, home, signedIn, mcp, connections }) writes the agent's configuration under `home`
// and returns the environment to run it with; `mcp` ({ name, command, args }) adds an MCP stdio
// server through the agent's own configuration; `connections: true` says MCP servers come in
// ACP's session/new mcpServers (Porthole's connections, porthole-cli --mcp), which the agent's
// settings cannot mark to load their tools up front.
import { mkdirSync, readdirSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** Third-party ACP clients the suite drives agents with (companion.test.mjs: acpx through the proxy). */
export const CLIENTS = [{ id: "acpx", package: "acpx", version: "0.19.1" }];

export const AGENTS = [
  {
    id: "claude",
    name: "Claude Code (claude-agent-acp)",
    package: "@agentclientprotocol/claude-agent-acp",
    version: "0.101.0",
    entry: "@agentclientprotocol/claude-agent-acp/dist/index.js",
    /** Permission requests in "default" mode (the default is "auto", which asks a classifier). */
    mode: "default",
    /** Answers ACP v2 (the matrix's v2 column, flows-v2.mjs); its modes are then the config option `mode`. */
    v2: true,
    /** Codex starts a session's MCP servers in the background: one whose start takes seconds
     * (server-everything through npx) may not be listed for the first turn, whose call then
     * ends "unsupported call: echo" (seen once, on a cold machine). A first turn gives it time. */
    slowMcpWarmup: true,
    /** AskUserQuestion becomes a form whose first question is the field `question_0`. */
    questionTool: { field: "question_0" },
    /** Claude Code handles a -32042 itself: the retry's -32042, which the gateway passes on as
     * it came, becomes Claude's own URL elicitation over ACP, and once it is accepted Claude calls
     * the tool again (each call asked, completed and retried once by the gateway). */
    urlRequired: { own: "the retry's -32042 became Claude Code's own URL question over ACP, and Claude called the tool again itself" },
    /** The environment for a run against the fake API; `signedIn: false` leaves out the key. */
    env({ baseUrl, home, signedIn = true, mcp }) {
      mkdirSync(join(home, ".claude"), { recursive: true });
      writeFileSync(join(home, ".claude", "settings.json"), JSON.stringify({ permissions: { defaultMode: "default" } }));
      // User-scope MCP servers (~/.claude.json) start without the approval project ones need.
      if (mcp) writeFileSync(join(home, ".claude.json"), JSON.stringify({ mcpServers: { [mcp.name]: { type: "stdio", command: mcp.command, args: mcp.args } } }));
      return {
        HOME: home,
        ANTHROPIC_BASE_URL: baseUrl,
        ...(signedIn ? { ANTHROPIC_API_KEY: "sk-porthole-fake-key" } : {}),
        // Claude Code refuses to start as root unless told it runs in a sandbox (CI runs as root).
        IS_SANDBOX: "1",
        DISABLE_TELEMETRY: "1",
        DISABLE_AUTOUPDATER: "1",
        DISABLE_ERROR_REPORTING: "1",
        DISABLE_BUG_COMMAND: "1",
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
        DISABLE_GROWTHBOOK: "1",
        // MCP tools are otherwise deferred behind ToolSearch, which a scripted model cannot drive.
        ENABLE_TOOL_SEARCH: "false",
      };
    },
  },
  {
    id: "codex",
    name: "Codex (codex-acp)",
    package: "@agentclientprotocol/codex-acp",
    version: "2.6.0",
    entry: "@agentclientprotocol/codex-acp/dist/index.js",
    /** Permission requests for edits: "read-only" asks before every edit ("agent", the default,
     * lets a reviewer model decide; "workspace-write" edits the workspace without asking). */
    mode: "read-only",
    /** Answers ACP v2 (the matrix's v2 column, flows-v2.mjs); its modes are then the config option `mode`. */
    v2: true,
    /** Codex starts a session's MCP servers in the background: one whose start takes seconds
     * (server-everything through npx) may not be listed for the first turn, whose call then
     * ends "unsupported call: echo" (seen once, on a cold machine). A first turn gives it time. */
    slowMcpWarmup: true,
    /** In v2, an MCP tool call that needs approval is cancelled without a request: codex-acp
     * 2.6.0 builds the approval as a v1 permission request (`buildMcpPermissionRequest`: a
     * `toolCall`, no `title`) and its own v2 layer refuses to send it (its stderr: "request has
     * no title to send on ACP v2"). In "agent-full-access" nothing is asked and the call runs. */
    v2McpApproval: { error: "user cancelled MCP tool call", mode: "agent-full-access", why: "codex-acp 2.6.0 cannot send its MCP approval in v2 (a v1-shaped request without a title)" },
    /** `authenticate` reads the key from `_meta["api-key"]["apiKey"]`. */
    apiKeyMethod: "api-key",
    /** request_user_input is offered in the Plan collaboration mode only (a session config
     * option, set with --config); its question becomes a form whose field is the question's id. */
    questionTool: { field: "color", config: ["collaboration_mode=plan"], answered: /"color".*Orange/ },
    env({ baseUrl, home, signedIn = true, mcp }) {
      // A model provider of our own on 127.0.0.1; signed out, it requires an OpenAI sign-in
      // (so the agent answers auth_required) while still pointing nowhere but loopback.
      const codexHome = join(home, ".codex");
      mkdirSync(codexHome, { recursive: true });
      writeFileSync(
        join(codexHome, "config.toml"),
        [
          'model = "fake-model"',
          'model_provider = "porthole"',
          "check_for_update_on_startup = false",
          "[model_providers.porthole]",
          'name = "Porthole fake models"',
          `base_url = "${baseUrl}/v1"`,
          'wire_api = "responses"',
          `requires_openai_auth = ${!signedIn}`,
          "[analytics]",
          "enabled = false",
          "[otel]",
          'exporter = "none"',
          ...(mcp ? [`[mcp_servers.${JSON.stringify(mcp.name)}]`, `command = ${JSON.stringify(mcp.command)}`, `args = ${JSON.stringify(mcp.args)}`] : []),
          "",
        ].join("\n"),
      );
      // Codex refuses to create its sandbox helper (codex-linux-sandbox, found through PATH
      // aliases under CODEX_HOME) when CODEX_HOME lies in the temp dir: every command would then
      // fail with "bwrap: execvp codex-linux-sandbox". A temp dir of its own inside HOME avoids that.
      const tmp = join(home, "tmp");
      mkdirSync(tmp, { recursive: true });
      return { HOME: home, CODEX_HOME: codexHome, TMPDIR: tmp };
    },
  },
  {
    id: "gemini",
    name: "Gemini CLI",
    package: "@google/gemini-cli",
    version: "0.61.0",
    entry: "@google/gemini-cli/bundle/gemini.js",
    args: ["--acp"],
    /** Its ask_user tool is excluded in ACP mode (`if (!interactive || isAcpMode) extraExcludes.push(ASK_USER_TOOL_NAME)`). */
    questionTool: { absent: "Gemini CLI leaves its ask_user tool out in ACP mode" },
    /** Its MCP client declares no capabilities (no `elicitation`), so servers cannot elicit. */
    mcpElicitation: { unsupported: "Gemini CLI's MCP client advertises no elicitation capability" },
    /** The shell tool's display (an ANSI output object, not a string) becomes no ACP content. */
    shellOutputHidden: "Gemini's ACP layer turns only string or file-diff displays into tool call content, and the shell's is neither",
    /** `authenticate` reads the key from `_meta["api-key"]` (a string). */
    apiKeyMethod: "gemini-api-key",
    /** Gemini names a stored session's file by the minute it was opened in
     * (`session-2026-12-04T16-18-<id8>.jsonl`), and `session/load` first opens a fresh recording
     * with the same id: within the same minute that is the same file, whose history the fresh
     * recording replaces, and the load fails ("No previous sessions found for this project").
     * Loading a session from an earlier minute, as a person would, works: move it a minute back. */
    /** A session can be loaded once. `session/load` leaves a second file under the session's
     * id holding only Gemini's context (the fresh recording above), and the session cleanup that
     * runs at every start (`cleanupExpiredSessions`, `general.sessionRetention`, on by default)
     * deletes each file without resumable content *and every file with the same 8-character short
     * id*, the stored session included: the next load answers this error. With
     * `general.sessionRetention.enabled: false` repeated loads work (checked by hand). */
    loadOnce: { error: "No previous sessions found for this project" },
    beforeLoad(home) {
      const tmp = join(home, ".gemini", "tmp");
      let moved = 0;
      for (const project of readdirSync(tmp)) {
        const chats = join(tmp, project, "chats");
        for (const f of readdirSync(chats).filter((n) => /^session-\d{4}-\d\d-\d\dT\d\d-\d\d-.*\.jsonl$/.test(n))) {
          const stamp = f.slice(8, 24);
          const earlier = new Date(Date.parse(`${stamp.slice(0, 13)}:${stamp.slice(14)}:00Z`) - 60_000).toISOString().slice(0, 16).replace(/:/g, "-");
          renameSync(join(chats, f), join(chats, `session-${earlier}${f.slice(24)}`));
          moved++;
        }
      }
      return `${moved} stored session file(s) moved a minute back: Gemini overwrites a session loaded in the minute it was recorded`;
    },
    env({ baseUrl, home, signedIn = true, mcp }) {
      // The Gemini API key method, chosen in the settings (as `authenticate` would store it),
      // with telemetry, usage statistics and update checks off.
      mkdirSync(join(home, ".gemini"), { recursive: true });
      const settings = {
        security: { auth: { selectedType: "gemini-api-key" } },
        privacy: { usageStatisticsEnabled: false },
        telemetry: { enabled: false },
        general: { enableAutoUpdate: false, enableAutoUpdateNotification: false },
        ...(mcp ? { mcpServers: { [mcp.name]: { command: mcp.command, args: mcp.args, trust: false } } } : {}),
      };
      writeFileSync(join(home, ".gemini", "settings.json"), JSON.stringify(settings));
      return {
        HOME: home,
        GOOGLE_GEMINI_BASE_URL: baseUrl,
        ...(signedIn ? { GEMINI_API_KEY: "porthole-fake-gemini-key" } : {}),
        // Gemini CLI relaunches itself in a child process for a bigger heap; one process is enough.
        GEMINI_CLI_NO_RELAUNCH: "true",
        // Without a terminal it counts as headless and the folder as untrusted, and then starts
        // no MCP server at all (McpClientManager.startConfiguredMcpServers).
        GEMINI_CLI_TRUST_WORKSPACE: "true",
      };
    },
  },
  {
    id: "qwen",
    name: "Qwen Code",
    package: "@qwen-code/qwen-code",
    version: "0.24.4",
    /** cli.js itself: the bin (cli-entry.js) may run a managed npm update and relaunch. */
    entry: "@qwen-code/qwen-code/cli.js",
    args: ["--acp"],
    /** ask_user_question arrives as a session/request_permission (options Submit / Cancel) whose
     * tool call carries `_meta.qwenInteractionKind: "user_question"` and `_meta.qwenQuestions`;
     * Porthole shows it as a form (field `question_0` for the first question) and answers with
     * the Submit option plus a non-standard top-level `answers` field ({"0": "Orange"}), which
     * Qwen hands to the tool: `toolResult` is what the tool gives the model (askUserQuestion.ts
     * `execute`). Decline selects Qwen's Cancel option: Qwen does not run the tool (so never
     * says "User declined to answer the questions."), fails the tool call and ends the turn
     * (`stopAfterPermissionCancel`); the model gets `declined` as the call's result with the
     * next prompt. */
    questionTool: {
      field: "question_0",
      viaPermission: { submit: "proceed_once", cancel: "cancel", answers: { 0: "Orange" } },
      toolResult: /^User has provided the following answers:\s+\*\*Color\*\*: Orange$/,
      answered: /Tool finished: \*\*Color\*\*: Orange/,
      declined: /^Tool "ask_user_question" was canceled by the user\.$/,
    },
    /** Its MCP client declares only `roots` and the MCP-apps UI extension. */
    mcpElicitation: { unsupported: "Qwen Code's MCP client advertises no elicitation capability (only roots and the MCP apps extension)" },
    /** MCP servers from the settings are discovered in the background: the first model request of
     * a session may go out before their tools are registered. */
    mcpWarmup: true,
    /** Its default mode is "auto" (a classifier may approve); "default" asks before edits. */
    mode: "default",
    env({ baseUrl, home, signedIn = true, mcp, connections = false }) {
      // An OpenAI-compatible provider on 127.0.0.1 (chat completions), chosen in the settings.
      mkdirSync(join(home, ".qwen"), { recursive: true });
      const settings = {
        security: { auth: { selectedType: "openai" } },
        model: { name: "fake-model" },
        // Two models of one provider, so that the session offers a choice (session/set_model).
        modelProviders: {
          openai: ["fake-model", "fake-model-large"].map((id) => ({ id, name: id, baseUrl: `${baseUrl}/v1`, envKey: "OPENAI_API_KEY" })),
        },
        privacy: { usageStatisticsEnabled: false },
        telemetry: { enabled: false },
        general: { enableAutoUpdate: false },
        // MCP tools are otherwise deferred behind tool_search, which a scripted model cannot drive.
        ...(mcp ? { mcpServers: { [mcp.name]: { command: mcp.command, args: mcp.args, alwaysLoadTools: true } } } : {}),
        // Servers from session/new get no alwaysLoadTools (its ACP layer leaves it unset): without
        // tool_search (and its tool_call bridge) Qwen Code declares deferred tools up front.
        ...(connections ? { tools: { toolSearch: { enabled: false } } } : {}),
      };
      writeFileSync(join(home, ".qwen", "settings.json"), JSON.stringify(settings));
      // Qwen Code makes a socket dir per run and leaves it: in XDG_RUNTIME_DIR when set, else
      // qwen-socks-<nonce> in the temp dir, or in /tmp when that path would be too long for a
      // socket (103 bytes). A short runtime dir inside HOME goes with HOME.
      const run = join(home, "run");
      mkdirSync(run, { recursive: true, mode: 0o700 });
      return {
        HOME: home,
        XDG_RUNTIME_DIR: run,
        OPENAI_BASE_URL: `${baseUrl}/v1`,
        OPENAI_MODEL: "fake-model",
        ...(signedIn ? { OPENAI_API_KEY: "sk-porthole-fake-qwen-key" } : {}),
        QWEN_CODE_NO_RELAUNCH: "true",
      };
    },
  },
  {
    id: "opencode",
    name: "OpenCode",
    package: "opencode-ai",
    version: "1.18.33",
    /** Its native build (the postinstall links the platform package's binary here). */
    bin: "node_modules/opencode-ai/bin/opencode.exe",
    args: ["acp"],
    /** Its question tool is offered only to OpenCode's own app, CLI and desktop clients (or with
     * OPENCODE_ENABLE_QUESTION_TOOL), and this build has no ACP handler for it: neither the
     * `opencode/question` extension nor the elicitation bridge of its later source
     * (packages/opencode/src/acp/question-bridge.ts). */
    questionTool: { absent: "OpenCode 1.18.33 offers its question tool only to its own clients, not in `opencode acp`" },
    mcpElicitation: { unsupported: "OpenCode's MCP client advertises no elicitation capability" },
    /** A provider of its own needs no sign-in; its one method (`opencode-login`, "Run `opencode
     * auth login` in the terminal") is for its vendors' services. */
    signIn: { none: "a custom provider in opencode.json needs none; its one method, opencode-login, says to run `opencode auth login` in a terminal" },
    env({ baseUrl, home, signedIn = true, mcp }) {
      const config = {
        $schema: "https://opencode.ai/config.json",
        autoupdate: false,
        share: "disabled",
        model: "porthole/fake-model",
        // OpenCode edits and runs commands without asking unless told to ask.
        permission: { edit: "ask", bash: "ask" },
        provider: {
          porthole: {
            npm: "@ai-sdk/openai-compatible",
            name: "Porthole fake models",
            options: { baseURL: `${baseUrl}/v1`, ...(signedIn ? { apiKey: "sk-porthole-fake-opencode-key" } : {}) },
            models: { "fake-model": { name: "fake-model" }, "fake-model-large": { name: "fake-model-large" } },
          },
        },
        ...(mcp ? { mcp: { [mcp.name]: { type: "local", command: [mcp.command, ...mcp.args] } } } : {}),
      };
      mkdirSync(join(home, ".config", "opencode"), { recursive: true });
      writeFileSync(join(home, ".config", "opencode", "opencode.json"), JSON.stringify(config));
      return {
        HOME: home,
        XDG_CONFIG_HOME: join(home, ".config"),
        XDG_DATA_HOME: join(home, ".local", "share"),
        XDG_CACHE_HOME: join(home, ".cache"),
        XDG_STATE_HOME: join(home, ".local", "state"),
        OPENCODE_DISABLE_AUTOUPDATE: "1",
        OPENCODE_DISABLE_MODELS_FETCH: "1",
        OPENCODE_DISABLE_LSP_DOWNLOAD: "1",
        OPENCODE_DISABLE_SHARE: "1",
      };
    },
  },
  {
    id: "vibe",
    name: "Mistral Vibe",
    registry: "pypi",
    package: "mistral-vibe",
    /** 3.0.3, the newest, pins certifi==2026.10.19, which the package index here does not hold
     * (it has 2026.10.19.post1): it cannot be installed. */
    version: "3.0.2",
    /** The Python it requires (Requires-Python >= 3.12). */
    python: "3.12",
    /** A virtualenv of its own in the cache (scripts/test-agents). */
    bin: "venv-mistral-vibe/bin/vibe-acp",
    /** "ask" asks before every tool run ("accept-edits", the default, edits without asking). */
    mode: "ask",
    /** Its SSE reader hands on every delta that came in one read, so the fake model's words
     * (all sent at once) arrive in two or so chunks; paced ones arrive one by one (cancel mid-turn). */
    replyChunks: { min: 2, why: "Vibe merges the deltas that reach it together" },
    /** An MCP tool's JSON-RPC error (the retry's -32042) reaches the model only as
     * `mcp_transport_failed: The provided tool call failed`, without code or message. */
    urlRequired: { error: /mcp_transport_failed/ },
    /** ask_user_question becomes a standard form elicitation (message "User input required",
     * field `q0` per question); the model gets the answers as JSON, and on decline
     * `{"answers": [], "cancelled": true}` in the same turn. */
    questionTool: {
      field: "q0",
      toolResult: /^\{"answers": \[\{"question": "Which color\?", "answer": "Orange", "isOther": false\}\], "cancelled": false\}$/,
      declined: /^\{"answers": \[\], "cancelled": true\}$/,
    },
    mcpElicitation: { unsupported: "Mistral Vibe's MCP client advertises no elicitation capability" },
    /** It advertises session/fork, but forks only a session its process holds
     * (vibe/acp/agent.py `fork_session` looks the id up in `self.sessions`, sessions created or
     * loaded in this connection): a stored session, from a new process, is "Session not found". */
    forkLiveOnly: { error: "Session not found", why: "Vibe forks only sessions open in its own process" },
    /** No sign-in method over ACP: a missing key is "Missing API key for <provider> provider.". */
    signIn: { noMethods: "Vibe signs in to Mistral only in its terminal UI (`vibe --setup`); a custom provider's key comes from the environment variable its config names" },
    env({ baseUrl, home, signedIn = true, mcp }) {
      const vibeHome = join(home, ".vibe");
      mkdirSync(vibeHome, { recursive: true });
      writeFileSync(
        join(vibeHome, "config.toml"),
        [
          'active_model = "fake-model"',
          "enable_telemetry = false",
          "enable_update_checks = false",
          "[[providers]]",
          'name = "porthole"',
          `api_base = "${baseUrl}/v1"`,
          'api_key_env_var = "PORTHOLE_FAKE_API_KEY"',
          'api_style = "openai"',
          'backend = "generic"',
          ...["fake-model", "fake-model-large"].flatMap((m) => ["[[models]]", `name = "${m}"`, 'provider = "porthole"', `alias = "${m}"`]),
          ...(mcp ? ["[[mcp_servers]]", `name = ${JSON.stringify(mcp.name)}`, 'transport = "stdio"', `command = ${JSON.stringify(mcp.command)}`, `args = ${JSON.stringify(mcp.args)}`] : []),
          "",
        ].join("\n"),
      );
      return { HOME: home, VIBE_HOME: vibeHome, ...(signedIn ? { PORTHOLE_FAKE_API_KEY: "sk-porthole-fake-vibe-key" } : {}) };
    },
  },
  {
    id: "cline",
    name: "Cline",
    package: "cline",
    version: "3.0.65",
    entry: "cline/bin/cline",
    args: ["--acp"],
    /** Its ACP layer offers no question tool (ask_followup_question is the VS Code extension's). */
    questionTool: { absent: "Cline offers no question tool to the model in ACP mode" },
    mcpElicitation: { unsupported: "Cline's MCP client advertises no elicitation capability" },
    /** session/new's mcpServers are kept with the session but never started (its ACP agent's
     * buildConfig passes none on): only servers in cline_mcp_settings.json reach the model. */
    sessionMcpIgnored: "Cline keeps session/new's mcpServers but never starts them; only servers in its own cline_mcp_settings.json reach the model",
    env({ baseUrl, home, signedIn = true, mcp }) {
      // What `cline auth -p openai -k KEY -m MODEL -b URL` writes: an OpenAI-compatible provider.
      const settings = join(home, ".cline", "data", "settings");
      mkdirSync(settings, { recursive: true });
      const provider = { provider: "openai-compatible", model: "fake-model", baseUrl: `${baseUrl}/v1`, ...(signedIn ? { apiKey: "sk-porthole-fake-cline-key" } : {}) };
      // Telemetry off: otherwise it looks up data.cline.bot (PostHog) at start.
      writeFileSync(join(settings, "global-settings.json"), JSON.stringify({ telemetryOptOut: true, autoUpdateEnabled: false }));
      if (mcp) writeFileSync(join(settings, "cline_mcp_settings.json"), JSON.stringify({ mcpServers: { [mcp.name]: { command: mcp.command, args: mcp.args } } }));
      writeFileSync(join(settings, "providers.json"), JSON.stringify({ version: 1, lastUsedProvider: "openai-compatible", modes: {}, providers: { "openai-compatible": { settings: provider, updatedAt: new Date().toISOString(), tokenSource: "manual" } } }));
      return {
        HOME: home,
        CLINE_NO_AUTO_UPDATE: "1",
        CLINE_PROVIDER: "openai-compatible",
        CLINE_MODEL: "fake-model",
        ...(signedIn ? { CLINE_API_KEY: "sk-porthole-fake-cline-key" } : {}),
      };
    },
  },
  {
    id: "droid",
    name: "Factory Droid",
    package: "droid",
    version: "0.215.0",
    bin: "node_modules/droid/bin/droid",
    args: ["exec", "--output-format", "acp"],
    /** The reply comes as one agent_message_chunk when the model has finished. */
    replyChunks: { min: 1, max: 1, why: "Droid sends the reply whole when the model has finished" },
    /** Its tools for the model hold no question tool in `droid exec` (checked: none offered). */
    questionTool: { absent: "Droid offers no question tool to the model in exec (ACP) mode" },
    mcpElicitation: { unsupported: "Droid's MCP client advertises no elicitation capability" },
    apiKeyNote: "no method takes a key in _meta: factory-api-key reads FACTORY_API_KEY from Droid's environment",
    /** MCP servers start in the background, and their tools are deferred behind ToolSearch: a
     * search before they are up answers "No deferred tools matched" (seen on a busy machine). A
     * first turn gives them the time. */
    mcpWarmup: true,
    env({ baseUrl, home, signedIn = true, mcp }) {
      mkdirSync(join(home, ".factory"), { recursive: true });
      // Two custom models (BYOK, OpenAI chat completions), so that the session offers a choice.
      const models = ["fake-model", "fake-model-large"].map((m) => ({ model: m, displayName: m, baseUrl: `${baseUrl}/v1`, apiKey: "sk-porthole-fake-droid-key", provider: "generic-chat-completion-api", maxOutputTokens: 4096 }));
      writeFileSync(join(home, ".factory", "settings.json"), JSON.stringify({ customModels: models, model: "custom:fake-model" }));
      if (mcp) writeFileSync(join(home, ".factory", "mcp.json"), JSON.stringify({ mcpServers: { [mcp.name]: { type: "stdio", command: mcp.command, args: mcp.args } } }));
      // Airgap mode: no Factory sign-in, no Factory API, custom models only. Signed out is Droid's
      // ordinary mode, which wants a Factory login (or FACTORY_API_KEY) before any session.
      return { HOME: home, DROID_DISABLE_AUTO_UPDATE: "true", FACTORY_DROID_AUTO_UPDATE_ENABLED: "false", ...(signedIn ? { FACTORY_AIRGAP_ENABLED: "true" } : {}) };
    },
  },
  {
    id: "goose",
    name: "Goose",
    /** The Goose CLI's own build for Linux x64 (the `goose` binary, Rust), published by the Agentic
     * AI Foundation as the platform package of `@aaif/goose-sdk`; the SDK itself pins an older
     * binary (0.20.2), so the suite pins the binary's package. npm installs it on Linux x64 only
     * (its package.json says `os: linux`, `cpu: x64`). */
    package: "@aaif/goose-binary-linux-x64",
    version: "1.52.0",
    bin: "node_modules/@aaif/goose-binary-linux-x64/bin/goose",
    args: ["acp"],
    /** "auto", its default, runs every tool without asking; "approve" asks before every call. */
    mode: "approve",
    /** In "approve" it asks before reads too. */
    asksBeforeReads: "Goose's approve mode asks before every tool call",
    /** Its tools for the model (shell, write, edit, read, tree, ...) hold no question tool. */
    questionTool: { absent: "Goose offers the model no question tool" },
    /** Against a provider on 127.0.0.1 it runs without a key: nothing to refuse. */
    signIn: { none: "its OpenAI provider pointed at 127.0.0.1 answers turns without OPENAI_API_KEY; its one method, goose-provider, says to run `goose configure`" },
    /** Its one method, goose-provider, says to run `goose configure`: nothing takes a key over ACP. */
    apiKeyNote: "no method takes a key in _meta: goose-provider says to run `goose configure`, and the provider's key comes from its configuration or environment",
    env({ baseUrl, home, signedIn = true, mcp }) {
      // Its OpenAI provider pointed at 127.0.0.1 (chat completions), all through the
      // environment, which Goose reads before its config.yaml; the rest of its state under HOME.
      const config = join(home, ".config");
      mkdirSync(join(config, "goose"), { recursive: true });
      // An MCP server of the suite's as one of its extensions (config.yaml; JSON is YAML).
      if (mcp) writeFileSync(join(config, "goose", "config.yaml"), JSON.stringify({ extensions: { [mcp.name]: { type: "stdio", name: mcp.name, cmd: mcp.command, args: mcp.args, enabled: true, timeout: 60 } } }));
      return {
        HOME: home,
        XDG_CONFIG_HOME: config,
        XDG_DATA_HOME: join(home, ".local", "share"),
        XDG_STATE_HOME: join(home, ".local", "state"),
        XDG_CACHE_HOME: join(home, ".cache"),
        GOOSE_PROVIDER: "openai",
        GOOSE_MODEL: "fake-model",
        OPENAI_HOST: baseUrl,
        OPENAI_BASE_PATH: "v1/chat/completions",
        ...(signedIn ? { OPENAI_API_KEY: "sk-porthole-fake-goose-key" } : {}),
        // Secrets in a file under HOME, never the OS keyring; no telemetry.
        GOOSE_DISABLE_KEYRING: "1",
        GOOSE_TELEMETRY_OFF: "1",
        GOOSE_TELEMETRY_ENABLED: "false",
      };
    },
  },
];
