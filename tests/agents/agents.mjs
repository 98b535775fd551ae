// The real agents the suite runs: pinned npm packages, how to start each one against the fake
// model API on 127.0.0.1, and what each needs to stay offline (telemetry and update checks off,
// a throwaway HOME). scripts/test-agents installs the packages into $PORTHOLE_AGENT_CACHE.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export const AGENTS = [
  {
    id: "claude",
    name: "Claude Code (claude-agent-acp)",
    package: "@agentclientprotocol/claude-agent-acp",
    version: "0.101.0",
    entry: "@agentclientprotocol/claude-agent-acp/dist/index.js",
    /** Permission requests in "default" mode (the default is "auto", which asks a classifier). */
    mode: "default",
    /** The environment for a run against the fake API; `signedIn: false` leaves out the key. */
    env({ baseUrl, home, signedIn = true }) {
      mkdirSync(join(home, ".claude"), { recursive: true });
      writeFileSync(join(home, ".claude", "settings.json"), JSON.stringify({ permissions: { defaultMode: "default" } }));
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
      };
    },
  },
  {
    id: "codex",
    name: "Codex (codex-acp)",
    package: "@agentclientprotocol/codex-acp",
    version: "2.6.0",
    entry: "@agentclientprotocol/codex-acp/dist/index.js",
    /** Flows not covered for this agent, and why (shown in the matrix, never counted as passed). */
    notCovered: {
      "edit a file (permission asked)":
        "Codex 0.166 ran the fake model's tool call but sent the client no tool_call update for it (see docs/interop.md)",
      "shell command":
        "Codex 0.166 ran the command (its output reached the model) but sent the client no tool_call update for it (see docs/interop.md)",
    },
    env({ baseUrl, home, signedIn = true }) {
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
          "",
        ].join("\n"),
      );
      return { HOME: home, CODEX_HOME: codexHome };
    },
  },
];
