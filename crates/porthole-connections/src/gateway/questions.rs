//! A connection's questions (MCP elicitation), answered by the gateway's owner rather than
//! the agent.
//!
//! Most agents declare no elicitation to their MCP servers, so a server is told "unsupported"
//! and the person never sees its question. Where the session's owner supplies [`Questions`],
//! the gateway adds the capability to the agent's `initialize` (`rewrite_initialize`), takes
//! `elicitation/create` and `notifications/elicitation/complete` out of the server's streams
//! (`sse`), asks the owner, and posts the answer upstream itself. Where the agent declared
//! elicitation itself, [`PassOwner::over_agent`] chooses who answers.

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use bytes::Bytes;
use serde_json::{Map, Value, json};

use super::sse::Taken;
use super::{BoxFuture, Inner, PassState};

/// Who asks: the connection, through which agent's session (the pass).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Asker {
    /// The connection's name.
    pub connection: String,
    /// The agent whose session the pass serves, as the owner named it in [`PassOwner`].
    pub agent: String,
    /// The pass, unique in this gateway: which session asks.
    pub pass: u64,
    /// The `tools/call` the question came with, when the gateway can tell: it came on that
    /// call's own stream, or on the session's standalone stream while that call was the only
    /// one in flight. The owner finds the agent's ACP tool call from it (`tool_match`).
    pub call: Option<McpCall>,
}

/// A `tools/call` of the agent through the gateway: the tool and its arguments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct McpCall {
    pub tool: String,
    pub arguments: Value,
}

impl McpCall {
    /// `body` when it is a `tools/call` request.
    pub(crate) fn of(body: &[u8]) -> Option<McpCall> {
        let message: Value = serde_json::from_slice(body).ok()?;
        if message.get("method").and_then(Value::as_str) != Some("tools/call") {
            return None;
        }
        let params = message.get("params")?;
        Some(McpCall {
            tool: params.get("name")?.as_str()?.to_string(),
            arguments: params.get("arguments").cloned().unwrap_or(Value::Null),
        })
    }
}

/// A tool call in flight: what it is, and whether its answer has been passed on.
pub(crate) struct CallState {
    pub call: McpCall,
    pub ended: AtomicBool,
}

/// Why a question got no answer from the owner: sent upstream as a JSON-RPC error.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{0}")]
pub struct Unanswered(pub String);

/// The gateway owner's answers to connections' questions.
pub trait Questions: Send + Sync + 'static {
    /// Answer one `elicitation/create`: `request` is the whole JSON-RPC request as the server
    /// sent it (its `params` checked only for `mode` and `message`; the owner validates the
    /// form as for an agent's question). Returns the `ElicitResult` (`{"action": ...}`).
    fn ask<'a>(&'a self, who: &'a Asker, request: Value) -> BoxFuture<'a, Result<Value, Unanswered>>;
    /// The server's `notifications/elicitation/complete` for a URL question it asked on this
    /// pass (`notification` whole; unknown ids never reach here).
    fn completed(&self, who: &Asker, notification: Value);
}

/// Who owns a pass: the agent (for [`Asker`]) and, when the owner answers connections'
/// questions, its [`Questions`]. Without them the gateway passes questions to the agent.
#[derive(Clone)]
pub struct PassOwner {
    pub agent: String,
    pub questions: Option<Arc<dyn Questions>>,
    /// MCP Apps: when set, the gateway declares the UI extension to the connections' servers
    /// where the agent did not, notes their UI tools, and tells this owner of each call of one
    /// (see [`super::apps`]). `None`: the gateway declares nothing of MCP Apps.
    pub apps: Option<Arc<dyn super::apps::Apps>>,
    /// How long a tool call answered with -32042 waits for the server's completion of the
    /// URLs the person consented to before its one retry (`porthole-cli --url-wait`).
    pub url_wait: Duration,
    /// With `questions`: the owner answers even where the agent declared elicitation to the
    /// server itself (the dialog then names the server, which the agent's forwarded question
    /// cannot do truthfully). `false`: such an agent answers its servers' questions itself.
    pub over_agent: bool,
    /// The session's working directory: the stdio servers the gateway starts for it run there,
    /// as they would have under the agent (`server-filesystem .` depends on it). `None`: the
    /// current directory of Porthole.
    pub cwd: Option<std::path::PathBuf>,
}

impl Default for PassOwner {
    fn default() -> Self {
        Self {
            agent: String::new(),
            questions: None,
            apps: None,
            url_wait: Duration::from_secs(120),
            over_agent: true,
            cwd: None,
        }
    }
}

/// A question's request, JSON-encoded, larger than this is refused (an error upstream).
const QUESTION_CAP: usize = 64 * 1024;
/// Questions waiting behind the open one of a connection and session; more are declined.
const QUEUE_CAP: usize = 4;
/// Questions a connection may ask in a minute, over all sessions; more are declined.
pub(crate) const PER_MINUTE: usize = 10;

/// The session headers an answer goes upstream with.
#[derive(Debug, Clone, Default)]
pub(crate) struct SessionHeaders {
    pub id: Option<String>,
    pub protocol: Option<String>,
}

/// What the gateway keeps about one connection of one pass.
#[derive(Default)]
pub(crate) struct ConnState {
    /// The gateway answers this connection's questions (the agent declared no elicitation, or
    /// the owner answers over the agent).
    pub we_answer: AtomicBool,
    /// One question open at a time; others wait their turn.
    turn: tokio::sync::Mutex<()>,
    waiting: AtomicUsize,
    /// URL questions asked and not completed: a completion for any other id is ignored.
    url_ids: Mutex<HashSet<String>>,
    /// The gateway's own standalone GET stream, when it opened one (`standalone`).
    pub own_get: Mutex<Option<Arc<super::standalone::OwnGet>>>,
    /// The gateway is opening its own GET stream: the session's requests wait.
    pub opening: tokio::sync::watch::Sender<bool>,
    /// Completions a retry after -32042 waits for, by elicitation id.
    waiters: Mutex<HashMap<String, tokio::sync::oneshot::Sender<()>>>,
    /// The agent's requests to this connection whose answers are still coming ([`InFlight`]):
    /// a server asks while it works on one; a question with none left (its tool call ended) is
    /// declined.
    in_flight: AtomicUsize,
    /// The `tools/call`s among them.
    calls: Mutex<Vec<Arc<CallState>>>,
    /// MCP Apps: the connection's UI tools as its `tools/list` answers gave them.
    pub apps: super::apps::Noted,
    /// MCP Apps: Porthole's own MCP session with the server ([`super::Gateway::app_request`]).
    pub own_session: tokio::sync::Mutex<Option<super::app_request::OwnSession>>,
    /// What was taken out of streams, so that a replay (`Last-Event-ID`) asks nothing twice.
    pub replays: super::resume::Replays,
}

/// One of the agent's requests in flight on a connection, until its answer has been passed on;
/// a `tools/call` is also listed with what it calls.
pub(crate) struct InFlight(Arc<ConnState>, Option<Arc<CallState>>);

impl InFlight {
    pub(crate) fn start(conn: Arc<ConnState>, body: &[u8]) -> Self {
        conn.in_flight.fetch_add(1, Ordering::SeqCst);
        let call = McpCall::of(body).map(|call| {
            let call = Arc::new(CallState {
                call,
                ended: AtomicBool::new(false),
            });
            conn.calls
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .push(call.clone());
            call
        });
        InFlight(conn, call)
    }

    /// The tool call this request is, if it is one.
    pub(crate) fn call(&self) -> Option<Arc<CallState>> {
        self.1.clone()
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        if let Some(call) = &self.1 {
            call.ended.store(true, Ordering::SeqCst);
            self.0
                .calls
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .retain(|c| !Arc::ptr_eq(c, call));
        }
        self.0.in_flight.fetch_sub(1, Ordering::SeqCst);
    }
}

impl ConnState {
    /// The only tool call in flight, when there is exactly one.
    fn only_call(&self) -> Option<McpCall> {
        match &self.calls.lock().unwrap_or_else(|p| p.into_inner())[..] {
            [one] => Some(one.call.clone()),
            _ => None,
        }
    }
}

/// The longest the gateway's own GET stream takes to open before it gives up (a loaded machine
/// may need seconds); requests wait for it a little longer, so that they never overtake it.
pub(crate) const OPENING_WAIT: Duration = Duration::from_secs(10);

impl ConnState {
    /// Resolves when the server completes the URL elicitation `id`.
    pub(crate) fn completion(&self, id: &str) -> tokio::sync::oneshot::Receiver<()> {
        let (tx, rx) = tokio::sync::oneshot::channel();
        // Known from now on: the server may complete before the person is asked.
        self.url_ids
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(id.to_string());
        self.waiters
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(id.to_string(), tx);
        rx
    }

    /// Returns once the gateway's own GET stream is open or failed (a request sent before it
    /// could ask on a stream no one listens to), or after a bound, should no one clear it.
    pub(crate) async fn settled(&self) {
        let mut opening = self.opening.subscribe();
        let bound = OPENING_WAIT + Duration::from_secs(2);
        if tokio::time::timeout(bound, opening.wait_for(|o| !*o))
            .await
            .is_err()
        {
            // An agent that never says `notifications/initialized`: only its first request waits.
            self.opening.send_replace(false);
        }
    }
}

/// Questions per connection name in the last minute.
#[derive(Default)]
pub(crate) struct Rates(Mutex<HashMap<String, (VecDeque<Instant>, bool)>>);

impl Rates {
    /// `Ok` when the connection may ask now; `Err(first)` when over the cap (`first`: the
    /// first refusal of this minute, to say once).
    fn admit(&self, connection: &str, now: Instant) -> Result<(), bool> {
        let mut rates = self.0.lock().unwrap_or_else(|p| p.into_inner());
        let (times, said) = rates.entry(connection.to_string()).or_default();
        while times
            .front()
            .is_some_and(|t| now.duration_since(*t) >= Duration::from_secs(60))
        {
            times.pop_front();
        }
        if times.len() >= PER_MINUTE {
            return Err(!std::mem::replace(said, true));
        }
        if times.is_empty() {
            *said = false;
        }
        times.push_back(now);
        Ok(())
    }
}

/// The agent's `initialize` with the capabilities the gateway's owner provides added where the
/// agent declared none ([`widen`]). `Some((body, declared))`, `body` the request to send (the
/// agent's own bytes when nothing was added), `declared` whether the agent declared elicitation
/// itself. `None` when `body` is not an `initialize` request.
pub(crate) fn rewrite_initialize(
    body: &[u8],
    elicitation: bool,
    over_agent: bool,
    apps: bool,
) -> Option<(Bytes, bool)> {
    let mut message: Value = serde_json::from_slice(body).ok()?;
    if message.get("method").and_then(Value::as_str) != Some("initialize") {
        return None;
    }
    let params = message.get_mut("params")?.as_object_mut()?;
    let capabilities = params
        .entry("capabilities")
        .or_insert_with(|| json!({}))
        .as_object_mut()?;
    let (added, declared) = widen(capabilities, elicitation, over_agent, apps);
    Some((rewritten(body, &message, added), declared))
}

/// The `_meta` key under which a request of the 2026-07-28 revision carries its client's
/// capabilities (that revision has no `initialize`: every request says what its client takes).
pub(crate) const REQUEST_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";

/// A 2026-07-28 request (one whose `params._meta` carries [`REQUEST_CAPABILITIES`]) with the
/// owner's capabilities added as [`rewrite_initialize`] adds them; `None` for any other
/// message. Such a request's questions come back in its own result (`input_required`), so the
/// gateway answers them per request, not per session.
pub(crate) fn rewrite_request_capabilities(
    body: &[u8],
    elicitation: bool,
    over_agent: bool,
    apps: bool,
) -> Option<(Bytes, bool)> {
    let mut message: Value = serde_json::from_slice(body).ok()?;
    let capabilities = message
        .pointer_mut("/params/_meta")?
        .get_mut(REQUEST_CAPABILITIES)?
        .as_object_mut()?;
    let (added, declared) = widen(capabilities, elicitation, over_agent, apps);
    Some((rewritten(body, &message, added), declared))
}

fn rewritten(body: &[u8], message: &Value, added: bool) -> Bytes {
    match added {
        true => Bytes::from(message.to_string()),
        false => Bytes::copy_from_slice(body),
    }
}

/// Add to a client's capabilities what the gateway's owner provides where the agent declared
/// none: elicitation (with `elicitation`, the owner answers questions) and the MCP Apps
/// extension (with `apps`, [`super::apps::declare`]). Where the agent declared elicitation and
/// the owner answers over it (`over_agent`), both modes are declared: the owner answers URL
/// questions too, though the agent may declare only forms (Goose sends `{}`, which MCP reads
/// as forms only, so a server would never ask it for a URL). Returns (something was added, the
/// agent declared elicitation itself).
fn widen(
    capabilities: &mut Map<String, Value>,
    elicitation: bool,
    over_agent: bool,
    apps: bool,
) -> (bool, bool) {
    let declared = capabilities.contains_key("elicitation");
    let mut added = false;
    if elicitation && !declared {
        capabilities.insert("elicitation".into(), json!({"form": {}, "url": {}}));
        added = true;
    } else if elicitation
        && over_agent
        && let Some(declared) = capabilities.get_mut("elicitation").and_then(Value::as_object_mut)
    {
        for mode in ["form", "url"] {
            if !declared.contains_key(mode) {
                declared.insert(mode.into(), json!({}));
                added = true;
            }
        }
    }
    if apps {
        added |= super::apps::declare(capabilities);
    }
    (added, declared)
}

/// Where a stream's answers go: everything needed to post one upstream as `forward` does.
#[derive(Clone)]
pub(crate) struct Answering {
    pub inner: Arc<Inner>,
    pub pass: Arc<PassState>,
    pub connection: String,
    pub session: SessionHeaders,
    /// The tool call whose answer this stream is, if it is one (a question on it is that
    /// call's).
    pub call: Option<Arc<CallState>>,
}

impl Answering {
    fn asker(&self) -> Asker {
        let call = match &self.call {
            Some(own) => Some(own.call.clone()),
            None => self.pass.conn(&self.connection).only_call(),
        };
        Asker {
            connection: self.connection.clone(),
            agent: self.pass.owner.agent.clone(),
            pass: self.pass.id,
            call,
        }
    }

    /// Handle a message taken out of a stream, in a task of its own so the stream goes on.
    pub(crate) fn spawn(&self, taken: Taken) {
        let this = self.clone();
        tokio::spawn(async move {
            match taken {
                Taken::Question(request) => this.question(request).await,
                Taken::Completed(notification) => this.completed(notification),
                // Only a filter holding a tool call takes these, and its pump handles them.
                Taken::Held(..) => {}
                // Only a watching filter takes these (MCP Apps), and its reader handles them.
                Taken::Answer(_) => {}
            }
        });
    }

    fn completed(&self, notification: Value) {
        let id = notification["params"]["elicitationId"]
            .as_str()
            .unwrap_or_default();
        let conn = self.pass.conn(&self.connection);
        let known = conn.url_ids.lock().unwrap_or_else(|p| p.into_inner()).remove(id);
        if known && let Some(waiter) = conn.waiters.lock().unwrap_or_else(|p| p.into_inner()).remove(id) {
            let _ = waiter.send(());
        }
        match (&self.pass.owner.questions, known) {
            (Some(questions), true) => questions.completed(&self.asker(), notification),
            _ => tracing::debug!(
                connection = self.connection,
                "a completion for an elicitation this session did not ask: ignored"
            ),
        }
    }

    async fn question(&self, request: Value) {
        let id = request["id"].clone();
        let conn = self.pass.conn(&self.connection);
        // Asked already: a replay of the stream it came on (the agent reconnected with
        // `Last-Event-ID`), whose answer went upstream then.
        if !conn.replays.first_ask(self.session.id.as_deref(), &id) {
            tracing::debug!(
                connection = self.connection,
                "a question asked before, replayed: not asked again"
            );
            return;
        }
        // The call that asked has ended: its own (the question came on its stream), or, when
        // the stream does not tell, every request of the agent's is answered.
        let ended = match &self.call {
            Some(own) => own.ended.load(Ordering::SeqCst),
            None => conn.in_flight.load(Ordering::SeqCst) == 0,
        };
        let result = if ended {
            tracing::warn!(
                connection = self.connection,
                "a question after the request that asked had its answer: declined"
            );
            json!({"jsonrpc": "2.0", "id": id, "result": {"action": "decline"}})
        } else {
            match self.answer(&request).await {
                Ok(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
                Err((code, reason)) => {
                    tracing::warn!(connection = self.connection, %reason, "MCP server's question not answered");
                    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": reason}})
                }
            }
        };
        let Some(endpoint) = self.pass.remote(&self.connection) else {
            return;
        };
        let post = super::forward::send(
            &self.inner,
            &self.connection,
            &endpoint,
            hyper::Method::POST,
            &self.session.headers(),
            Bytes::from(result.to_string()),
        )
        .await;
        match post {
            Ok(answer) if answer.status().is_success() => {}
            Ok(answer) => tracing::warn!(
                connection = self.connection,
                status = answer.status().as_u16(),
                "the server refused the answer to its question"
            ),
            Err(e) => {
                tracing::warn!(connection = self.connection, reason = %e, "the answer to an MCP server's question could not be sent")
            }
        }
    }

    /// The `ElicitResult`, or a JSON-RPC error (code, reason).
    pub(crate) async fn answer(&self, request: &Value) -> Result<Value, (i64, String)> {
        let decline = || Ok(json!({"action": "decline"}));
        let Some(questions) = self.pass.owner.questions.clone() else {
            return Err((-32601, "this client does not answer elicitation".into()));
        };
        if !self.inner.is_open(&self.pass) {
            tracing::warn!(
                connection = self.connection,
                "a question after its session closed: declined"
            );
            return decline();
        }
        let size = request.to_string().len();
        if size > QUESTION_CAP {
            return Err((
                -32602,
                format!("elicitation request of {size} bytes is over Porthole's {QUESTION_CAP}"),
            ));
        }
        let params = &request["params"];
        let mode = params.get("mode").and_then(Value::as_str).unwrap_or("form");
        if !matches!(mode, "form" | "url") || !params["message"].is_string() {
            return Err((
                -32602,
                "elicitation/create needs a `message` and mode `form` or `url`".into(),
            ));
        }
        let url_id = match (mode, params["elicitationId"].as_str()) {
            ("url", Some(id)) if !id.is_empty() && params["url"].is_string() => Some(id.to_string()),
            ("url", _) => {
                return Err((
                    -32602,
                    "URL elicitation needs a `url` and an `elicitationId`".into(),
                ));
            }
            _ => None,
        };
        if let Err(first) = self.inner.rates.admit(&self.connection, Instant::now()) {
            if first {
                tracing::warn!(
                    connection = self.connection,
                    "more than {PER_MINUTE} questions in a minute: declining the rest of this minute's"
                );
            }
            return decline();
        }
        let conn = self.pass.conn(&self.connection);
        // Counted only when it must wait: the open question is not in the queue.
        let turn = match conn.turn.try_lock() {
            Ok(turn) => turn,
            Err(_) => {
                if conn.waiting.fetch_add(1, Ordering::SeqCst) >= QUEUE_CAP {
                    conn.waiting.fetch_sub(1, Ordering::SeqCst);
                    tracing::warn!(
                        connection = self.connection,
                        "too many questions waiting: declined"
                    );
                    return decline();
                }
                let turn = conn.turn.lock().await;
                conn.waiting.fetch_sub(1, Ordering::SeqCst);
                turn
            }
        };
        if let Some(id) = &url_id {
            conn.url_ids
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .insert(id.clone());
        }
        // MCP 2025-11-25: a form question may leave `mode` out (servers of 2025-06-18 do);
        // the owner gets it said.
        let mut request = request.clone();
        if let Some(params) = request["params"].as_object_mut()
            && !params.contains_key("mode")
        {
            params.insert("mode".into(), json!("form"));
        }
        let answer = questions.ask(&self.asker(), request).await;
        drop(turn);
        let declined_url = answer.as_ref().map_or(true, |a| a["action"] != "accept");
        if let (Some(id), true) = (&url_id, declined_url) {
            // Nothing will be completed: a completion for it is now unknown.
            conn.url_ids.lock().unwrap_or_else(|p| p.into_inner()).remove(id);
        }
        answer.map_err(|e| (-32603, e.0))
    }
}

impl SessionHeaders {
    pub(crate) fn headers(&self) -> Vec<(&'static str, String)> {
        let mut out = vec![
            ("content-type", "application/json".to_string()),
            ("accept", "application/json, text/event-stream".to_string()),
        ];
        if let Some(id) = &self.id {
            out.push(("mcp-session-id", id.clone()));
        }
        if let Some(p) = &self.protocol {
            out.push(("mcp-protocol-version", p.clone()));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 2026-07-28: no `initialize`; each request's `_meta` says what its client takes, and gets
    /// the same additions an `initialize` gets.
    #[test]
    fn a_2026_07_28_request_gets_the_capabilities_in_its_own_meta() {
        let body = br#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"book","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"roots":{}}}}}"#;
        let (sent, declared) = rewrite_request_capabilities(body, true, false, true).unwrap();
        assert!(!declared);
        let sent: Value = serde_json::from_slice(&sent).unwrap();
        let caps = &sent["params"]["_meta"][REQUEST_CAPABILITIES];
        assert_eq!(caps["elicitation"], json!({"form": {}, "url": {}}));
        assert!(caps["extensions"]["io.modelcontextprotocol/ui"].is_object());
        assert_eq!(caps["roots"], json!({}));
        assert_eq!(sent["params"]["name"], "book");

        // Declared by the agent (and not answered over it): sent as it came.
        let own = br#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{}}}}}}"#;
        let (sent, declared) = rewrite_request_capabilities(own, true, false, false).unwrap();
        assert!(declared);
        assert_eq!(&sent[..], &own[..]);
        // A 2025 request (no capabilities in `_meta`) is not one.
        let old = br#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"x","_meta":{"progressToken":1}}}"#;
        assert!(rewrite_request_capabilities(old, true, true, true).is_none());
    }

    #[test]
    fn initialize_gets_elicitation_when_the_agent_declared_none_and_keeps_the_rest() {
        let body = br#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"roots":{"listChanged":true},"x-custom":[1,2]},"clientInfo":{"name":"gemini","version":"1"},"zeta":true}}"#;
        let (sent, declared) = rewrite_initialize(body, true, true, false).unwrap();
        assert!(!declared);
        let sent: Value = serde_json::from_slice(&sent).unwrap();
        let mut want: Value = serde_json::from_slice(body).unwrap();
        want["params"]["capabilities"]["elicitation"] = json!({"form": {}, "url": {}});
        assert_eq!(sent, want);
        // The agent's order kept (preserve_order), the capability last.
        let keys: Vec<&String> = sent["params"]["capabilities"]
            .as_object()
            .unwrap()
            .keys()
            .collect();
        assert_eq!(keys, ["roots", "x-custom", "elicitation"]);
        let keys: Vec<&String> = sent["params"].as_object().unwrap().keys().collect();
        assert_eq!(keys, ["protocolVersion", "capabilities", "clientInfo", "zeta"]);

        let none =
            br#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}"#;
        let (sent, _) = rewrite_initialize(none, true, true, false).unwrap();
        let sent: Value = serde_json::from_slice(&sent).unwrap();
        assert_eq!(
            sent["params"]["capabilities"],
            json!({"elicitation": {"form": {}, "url": {}}})
        );
    }

    #[test]
    fn an_agent_that_declared_elicitation_is_sent_as_it_was_and_other_requests_are_untouched() {
        let body =
            br#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"capabilities":{"elicitation":{}}}}"#;
        let (sent, declared) = rewrite_initialize(body, true, false, false).unwrap();
        assert!(declared);
        assert_eq!(&sent[..], &body[..]);
        assert!(
            rewrite_initialize(
                br#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#,
                true,
                true,
                true
            )
            .is_none()
        );
        assert!(rewrite_initialize(b"not json", true, true, true).is_none());
    }

    #[test]
    fn an_agent_that_declared_forms_only_gets_url_too_when_porthole_answers_over_it() {
        // Goose declares `elicitation: {}` (forms only): server-everything then lists no
        // `trigger-url-elicitation` and the TS SDK refuses `notifications/elicitation/complete`.
        let body = br#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"capabilities":{"elicitation":{"form":{"x":1}}}}}"#;
        let (sent, declared) = rewrite_initialize(body, true, true, false).unwrap();
        assert!(declared);
        let sent: Value = serde_json::from_slice(&sent).unwrap();
        assert_eq!(
            sent["params"]["capabilities"]["elicitation"],
            json!({"form": {"x": 1}, "url": {}})
        );
        let both = br#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"capabilities":{"elicitation":{"form":{},"url":{}}}}}"#;
        assert_eq!(
            &rewrite_initialize(both, true, true, false).unwrap().0[..],
            &both[..]
        );
    }

    #[test]
    fn a_connection_asks_at_most_the_cap_in_a_minute_and_the_refusal_is_said_once() {
        let rates = Rates::default();
        let t0 = Instant::now();
        for _ in 0..PER_MINUTE {
            assert_eq!(rates.admit("github", t0), Ok(()));
        }
        assert_eq!(rates.admit("github", t0), Err(true));
        assert_eq!(rates.admit("github", t0), Err(false));
        assert_eq!(rates.admit("docs", t0), Ok(()));
        assert_eq!(rates.admit("github", t0 + Duration::from_secs(61)), Ok(()));
    }
}
