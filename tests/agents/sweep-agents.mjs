// The registry-wide sweep's plan: for each agent of the registry snapshot
// (tests/fixtures/acp-registry) that installs from a package registry, the versions the sweep
// runs and what a run must show. sweep.mjs reads it; scripts/test-sweep runs it.
//
// Versions: the snapshot's own where the npm registry here still holds it, else the nearest newer
// one (said in `why`), and a newer one. Pinned, so a run tomorrow tests what a run today did.
//
// A run with `skip` is listed with that reason and not installed.
//
// expect: what a run with no network but loopback must show.
//   session: "open"           session/new answers with a session
//            "auth_required"  session/new answers auth_required (-32000), and the agent names at
//                             least one sign-in method in initialize
//   noMethods: true when the agent names no sign-in method in initialize and asks the user to
//            sign in elsewhere (its auth_required message says how; Porthole shows it).
//   turn:    the id of an agent in agents.mjs whose fake model API stands in for the vendor's, so
//            a full turn runs (a reply streamed, stop reason end_turn); absent: no stand-in exists.
//   noTurn:  why no turn is run.

export const SWEEP = [
  {
    id: "auggie",
    runs: [
      { version: "0.16.1", why: "the snapshot's 0.15.0 is not on the npm registry here; the nearest newer one" },
      { version: "0.36.0", why: "the newest" },
    ],
    // "Auggie does not currently support authenticating over ACP. Please run `auggie login`".
    expect: { session: "auth_required", noMethods: true },
    noTurn: "Augment's model service only (no base URL to point elsewhere)",
  },
  {
    id: "claude-code-acp",
    runs: [
      { version: "0.16.0", why: "the snapshot's" },
      { version: "0.16.2", why: "the newest of this package (renamed @agentclientprotocol/claude-agent-acp, which tests/agents runs)" },
    ],
    expect: { session: "open", turn: "claude" },
  },
  {
    id: "gemini",
    runs: [
      { version: "0.27.4", why: "the snapshot's 0.27.3 is not on the npm registry here; the nearest newer one" },
      { version: "0.61.0", why: "the newest" },
    ],
    // Signed in with an API key from the environment, against the fake Gemini API.
    expect: { session: "open", turn: "gemini" },
  },
  {
    id: "github-copilot",
    runs: [
      { version: "1.430.0", why: "the snapshot's 1.425.0 is not on the npm registry here; the nearest newer one" },
      { version: "1.539.0", why: "the newest" },
    ],
    expect: { session: "auth_required" },
    noTurn: "GitHub's Copilot service only, after a GitHub sign-in",
  },
  {
    id: "qoder",
    runs: [
      {
        version: "0.2.4",
        why: "the snapshot's 0.1.26 is not on the npm registry here; the nearest newer one",
        skip: "its npm package only holds an installer: the postinstall script downloads the program from Qoder's servers, outside the package registries",
      },
      { version: "1.1.52", why: "the newest" },
    ],
    expect: { session: "auth_required" },
    noTurn: "Qoder's service only, after a Qoder sign-in",
  },
  {
    id: "qwen-code",
    runs: [
      { version: "0.10.1", why: "the snapshot's 0.9.1 is not on the npm registry here; the nearest newer one" },
      { version: "0.24.4", why: "the newest" },
    ],
    // Its OpenAI-compatible provider set in its settings, against the fake chat completions API.
    expect: { session: "open", turn: "qwen" },
  },
];

/** Binary-only agents of the snapshot that the suite runs another way, by id. */
export const ELSEWHERE = {
  "codex-acp": "the same adapter, published on npm as @agentclientprotocol/codex-acp, runs in scripts/test-agents",
  "factory-droid": "the same program, published on npm as droid (its platform binary in @factory/cli-*), runs in scripts/test-agents",
  "mistral-vibe": "the same agent, published on PyPI as mistral-vibe (vibe-acp), runs in scripts/test-agents",
  opencode: "the same program, published on npm as opencode-ai (its platform binary in opencode-*), runs in scripts/test-agents",
};
