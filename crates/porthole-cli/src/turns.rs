//! The turns: each prompt sent and its events answered by the policy and printed, and the
//! events outside a turn (a replay, notices).

use std::process::ExitCode;
use std::sync::Arc;

use porthole_core::{AgentClient, AgentCommand, Event};

use crate::args::Args;
use crate::sign_in::{self, SignedIn};
use crate::term::{self, note};
use crate::{output, policy};

/// How long the CLI goes on reading a replay that never falls quiet.
const SETTLE_LIMIT: std::time::Duration = std::time::Duration::from_secs(60);

/// Events outside a turn (a replay, notices): answered by the policy and printed.
pub(crate) struct Reader<'a> {
    pub(crate) client: &'a AgentClient,
    pub(crate) events: tokio::sync::mpsc::Receiver<Event>,
    pub(crate) out: &'a output::Output,
    pub(crate) policy: &'a policy::Policy,
    /// Lines over core's limit the agent wrote, each reported when it came and discarded: the
    /// run then did not see all the agent said, and does not end with success.
    pub(crate) discarded: std::cell::Cell<u64>,
    /// MCP Apps of the `--mcp` connections (unless `--mcp-apps off`): the calls the gateway
    /// saw finish, matched to the session's tool calls as they come.
    pub(crate) apps: Option<(
        crate::mcp_apps::Shared,
        std::cell::RefCell<crate::mcp_apps::Matcher>,
    )>,
    /// The `--mcp` connections' questions: told the session's tool calls, to name the one a
    /// question came with.
    pub(crate) questions: Arc<crate::mcp_questions::CliQuestions>,
}

impl Reader<'_> {
    /// The exit of a run that went to its end: success, unless a line of the agent's was
    /// discarded (said once more, last, so it is not lost in the output).
    pub(crate) fn success(&self) -> ExitCode {
        match self.discarded.get() {
            0 => ExitCode::SUCCESS,
            n => {
                note!(
                    "porthole-cli: {n} message{} from the agent exceeded the limit of {} bytes per line and {} discarded (reported above)",
                    if n == 1 { "" } else { "s" },
                    porthole_core::transport::DEFAULT_MAX_LINE_BYTES,
                    if n == 1 { "was" } else { "were" },
                );
                ExitCode::FAILURE
            }
        }
    }

    /// Print an event and answer it if it is a dialog. `Err` when the agent is gone.
    pub(crate) fn passive(&self, event: &Event, during: &str) -> Result<(), ExitCode> {
        if let Event::AgentExited(info) = event {
            self.out.event(event, None, false);
            note!(
                "porthole-cli: the agent exited {during}: {}",
                porthole_core::client::describe_exit(info)
            );
            return Err(ExitCode::FAILURE);
        }
        if let Event::LineTooLong { .. } = event {
            self.discarded.set(self.discarded.get() + 1);
        }
        let decision = self.policy.decide(self.client, event);
        // A waiting event is read right away: its line goes out with this one.
        self.out.event(event, decision.as_ref(), !self.events.is_empty());
        if let Event::SessionUpdate { session_id, update } = event {
            self.questions.seen(session_id, update);
            self.apps(session_id, Some(update), false);
        }
        Ok(())
    }

    /// Note a session update's tool call, then print the app calls that can be: the matched
    /// ones, or (`all`, the turn ended) every one.
    pub(crate) fn apps(
        &self,
        session_id: &str,
        update: Option<&porthole_core::transcript::TranscriptUpdate>,
        all: bool,
    ) {
        let Some((apps, matcher)) = &self.apps else { return };
        let mut matcher = matcher.borrow_mut();
        if let Some(update) = update {
            matcher.update(session_id, update);
        }
        for line in matcher.ready(apps, Some(session_id), all) {
            self.out.mcp_app(&line);
        }
    }

    /// Read until the agent has sent nothing for `quiet` (replays may come after the answer
    /// to `session/load`).
    async fn settle(&mut self, quiet: std::time::Duration) -> Result<(), ExitCode> {
        let deadline = tokio::time::Instant::now() + SETTLE_LIMIT;
        loop {
            let wait = quiet.min(deadline.saturating_duration_since(tokio::time::Instant::now()));
            if wait.is_zero() {
                note!(
                    "porthole-cli: the agent was still sending updates after {}s; going on",
                    SETTLE_LIMIT.as_secs()
                );
                return Ok(());
            }
            match tokio::time::timeout(wait, self.events.recv()).await {
                Ok(Some(event)) => self.passive(&event, "while replaying the session")?,
                Ok(None) => {
                    note!("porthole-cli: the connection closed unexpectedly");
                    return Err(ExitCode::FAILURE);
                }
                Err(_) => return Ok(()),
            }
        }
    }

    /// What has arrived and not been read yet, printed (before a prompt is sent).
    fn drain_pending(&mut self) -> Result<(), ExitCode> {
        while let Ok(event) = self.events.try_recv() {
            self.passive(&event, "between turns")?;
        }
        Ok(())
    }
}

pub(crate) async fn run_prompts(
    args: &Args,
    mut reader: Reader<'_>,
    session_id: String,
    // For the sign-in hint after `auth_required` at a turn.
    (command, signed_in): (&AgentCommand, Option<&SignedIn>),
) -> ExitCode {
    let (client, out) = (reader.client, reader.out);
    if args.load.is_some()
        && let Err(code) = reader
            .settle(std::time::Duration::from_millis(args.load_quiet_ms))
            .await
    {
        return code;
    }

    for prompt in &args.prompts {
        // Whatever came before this turn (a late replay, notices) is not the turn's.
        if let Err(code) = reader.drain_pending() {
            return code;
        }
        if let Err(e) = client.prompt_text(&session_id, prompt) {
            note!(
                "porthole-cli: session/prompt failed: {}",
                term::line(&e.to_string())
            );
            client.shutdown().await;
            return ExitCode::FAILURE;
        }
        let mut updates_seen = 0u64;
        loop {
            let Some(event) = reader.events.recv().await else {
                note!("porthole-cli: the connection closed unexpectedly");
                return ExitCode::FAILURE;
            };
            match &event {
                Event::TurnEnded {
                    session_id: s, error, ..
                } if *s == session_id => {
                    // The turn's UI tool calls, matched or not, before its end.
                    reader.apps(&session_id, None, true);
                    out.event(&event, None, false);
                    if let Some(error) = error {
                        note!(
                            "porthole-cli: turn failed: {} (code {})",
                            term::line(&error.message),
                            error.code
                        );
                        if error.code == porthole_core::sessions::AUTH_REQUIRED {
                            sign_in::print_sign_in_hint(client, command, signed_in);
                        }
                        client.shutdown().await;
                        return ExitCode::FAILURE;
                    }
                    break;
                }
                _ => {
                    if let Err(code) = reader.passive(&event, "before the turn ended") {
                        return code;
                    }
                    if let Event::SessionUpdate {
                        session_id: s,
                        update,
                    } = &event
                        && *s == session_id
                        // The turn's own content: not commands, mode or config notices, session
                        // info, usage, or the user's message echoed.
                        && update.is_agent_output()
                    {
                        updates_seen += 1;
                        if args.cancel_after_updates == Some(updates_seen)
                            && let Err(e) = client.cancel(&session_id)
                        {
                            note!(
                                "porthole-cli: session/cancel failed: {}",
                                term::line(&e.to_string())
                            );
                        }
                    }
                }
            }
        }
    }
    if args.close {
        if let Err(e) = client.close_session(&session_id).await {
            note!(
                "porthole-cli: session/close failed: {}",
                term::line(&e.to_string())
            );
            client.shutdown().await;
            return ExitCode::FAILURE;
        }
        out.done("session/close");
    }
    client.shutdown().await;
    reader.success()
}
