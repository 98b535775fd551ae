//! MCP Apps (the extension `io.modelcontextprotocol/ui`, spec 2026-01-26) at the gateway.
//!
//! A server's tool may declare a `ui://` HTML resource (`_meta.ui.resourceUri`) that a host
//! renders beside the tool call. The agents Porthole drives render none, and most declare no
//! support, so servers that check for it offer no UI. Where the pass's owner takes apps
//! ([`PassOwner::apps`](super::PassOwner)), the gateway:
//!
//! - adds `capabilities.extensions["io.modelcontextprotocol/ui"]` (`{"mimeTypes":
//!   ["text/html;profile=mcp-app"]}`) to the agent's `initialize` where the agent did not
//!   declare it ([`declare`], in the same rewrite as elicitation);
//! - reads (never changes) each `tools/list` answer, JSON or an event stream, and notes the
//!   tools with a `ui://` resource ([`ui_resource`]), per pass and connection ([`Noted`]);
//! - for each `tools/call` of a noted tool, tells the owner when it is sent
//!   ([`Apps::started`], with its arguments) and when its answer has passed back to the agent
//!   ([`Apps::finished`], the result or the JSON-RPC error), streamed answers included ([`tap`]).
//!
//! The agent's traffic passes on unchanged: the reader sees the bytes as they go to the agent.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use bytes::BytesMut;
use http_body_util::BodyExt;
use hyper::Response;
use serde_json::{Map, Value, json};

use super::questions::{Asker, ConnState};
use super::sse::{EVENT_CAP, SseFilter, Taken};
use super::{Body, PassState};

/// The extension's name in `capabilities.extensions`.
pub const EXTENSION: &str = "io.modelcontextprotocol/ui";
/// The MIME type of an MCP App's HTML resource.
pub const MIME_TYPE: &str = "text/html;profile=mcp-app";
/// UI tools noted per connection of a pass; a listing with more notes the first ones (said in
/// the log).
pub const TOOLS_CAP: usize = 256;
/// The noted tools' definitions of one connection, JSON-encoded, take at most this much (a
/// server's later pages cannot add without bound); tools past it are not noted (said in the log).
pub const DEFINITIONS_CAP: usize = 4 * 1024 * 1024;
/// The largest `tools/list` or `tools/call` answer read to note (a JSON body, or one event of
/// a stream): a larger one passes on unread, said in the log.
pub const NOTE_CAP: usize = EVENT_CAP;

/// One call of a UI tool by the agent.
#[derive(Debug, Clone, PartialEq)]
pub struct AppCall {
    /// The connection, the agent and the pass (the session) that made the call.
    pub who: Asker,
    /// Unique in the gateway.
    pub call: u64,
    /// The tool's name.
    pub tool: String,
    /// Its `ui://` resource (`_meta.ui.resourceUri`, or the deprecated `_meta["ui/resourceUri"]`).
    pub resource_uri: String,
    /// The tool as `tools/list` gave it (server text: untrusted).
    pub tool_definition: Value,
    /// The arguments the agent sent (`{}` when it sent none).
    pub arguments: Value,
}

/// The gateway owner's side of MCP Apps. Both are called from the gateway's request path: they
/// must return at once (hand the work to a task or a channel).
pub trait Apps: Send + Sync + 'static {
    /// The agent's call of a UI tool is being sent to its server.
    fn started(&self, call: &AppCall);
    /// Its answer has passed back to the agent: the `CallToolResult`, or the JSON-RPC error
    /// object. When the gateway could not read the answer (over [`NOTE_CAP`], the stream broke
    /// or ended without it, the server answered with no JSON-RPC), the error is Porthole's own:
    /// code [`UNSEEN`] with `data.porthole` `"too-large"` or `"no-answer"`.
    fn finished(&self, call: &AppCall, outcome: Result<Value, Value>);
    /// Whether `connection`'s apps are wanted (the person may turn them off for one connection):
    /// when not, the gateway declares nothing of MCP Apps to it and notes none of its calls.
    fn wanted(&self, connection: &str) -> bool {
        let _ = connection;
        true
    }
}

/// The JSON-RPC error code of [`Apps::finished`] when the gateway did not see the answer.
pub const UNSEEN: i64 = -32603;

/// Add the extension to an `initialize`'s client capabilities unless the agent declared it.
/// True when something was added.
pub(crate) fn declare(capabilities: &mut Map<String, Value>) -> bool {
    let extensions = capabilities.entry("extensions").or_insert_with(|| json!({}));
    let Some(extensions) = extensions.as_object_mut() else {
        // Not an object: the agent's own (odd) value stays as it is.
        return false;
    };
    if extensions.contains_key(EXTENSION) {
        return false;
    }
    extensions.insert(EXTENSION.into(), json!({"mimeTypes": [MIME_TYPE]}));
    true
}

/// A tool's UI resource: `_meta.ui.resourceUri`, else the deprecated flat
/// `_meta["ui/resourceUri"]`; only a `ui://` URI.
pub fn ui_resource(tool: &Value) -> Option<String> {
    let meta = tool.get("_meta")?;
    let uri = meta
        .pointer("/ui/resourceUri")
        .and_then(Value::as_str)
        .or_else(|| meta.get("ui/resourceUri").and_then(Value::as_str))?;
    let scheme_ok = uri.get(..5).is_some_and(|s| s.eq_ignore_ascii_case("ui://"));
    (scheme_ok && uri.len() > 5).then(|| uri.to_string())
}

/// A UI tool as `tools/list` gave it.
#[derive(Debug, Clone)]
struct UiTool {
    resource_uri: String,
    definition: Value,
}

/// The UI tools of one connection of a pass.
#[derive(Default)]
pub(crate) struct Noted {
    tools: Mutex<HashMap<String, UiTool>>,
    /// The JSON length of each noted definition, by tool ([`DEFINITIONS_CAP`]).
    sizes: Mutex<HashMap<String, usize>>,
    /// The cap was said in the log.
    said_full: AtomicBool,
}

impl Noted {
    /// Note the tools of one `tools/list` answer: `fresh` (a first page, no cursor) replaces
    /// what was noted, a later page adds to it.
    fn list(&self, connection: &str, fresh: bool, tools: &[Value]) {
        let mut noted = self.tools.lock().unwrap_or_else(|p| p.into_inner());
        let mut sizes = self.sizes.lock().unwrap_or_else(|p| p.into_inner());
        if fresh {
            noted.clear();
            sizes.clear();
        }
        for tool in tools {
            let (Some(name), Some(resource_uri)) =
                (tool.get("name").and_then(Value::as_str), ui_resource(tool))
            else {
                continue;
            };
            if noted.len() >= TOOLS_CAP && !noted.contains_key(name) {
                if !self.said_full.swap(true, Ordering::Relaxed) {
                    tracing::warn!(
                        connection,
                        "more than {TOOLS_CAP} UI tools: the rest are not noted for MCP Apps"
                    );
                }
                continue;
            }
            let size = tool.to_string().len();
            let others: usize = sizes.iter().filter(|(n, _)| *n != name).map(|(_, s)| s).sum();
            if others + size > DEFINITIONS_CAP {
                if !self.said_full.swap(true, Ordering::Relaxed) {
                    tracing::warn!(
                        connection,
                        "UI tool definitions over {DEFINITIONS_CAP} bytes: the rest are not noted for MCP Apps"
                    );
                }
                continue;
            }
            sizes.insert(name.to_string(), size);
            noted.insert(
                name.to_string(),
                UiTool {
                    resource_uri,
                    definition: tool.clone(),
                },
            );
        }
    }

    fn get(&self, name: &str) -> Option<UiTool> {
        self.tools
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(name)
            .cloned()
    }

    /// How many UI tools are noted (for tests).
    #[cfg(test)]
    fn len(&self) -> usize {
        self.tools.lock().unwrap_or_else(|p| p.into_inner()).len()
    }
}

/// What the gateway reads of one answer passing back to the agent.
enum Watch {
    /// A `tools/list` answer; `fresh` when the request had no cursor.
    List { fresh: bool },
    /// The answer to a UI tool's call.
    Call(Box<AppCall>),
}

/// One request whose answer MCP Apps reads. Delivered once: with the answer, or (dropped
/// unread: the agent went away while the gateway waited for the server) as not seen.
pub(crate) struct Note {
    id: Value,
    watch: Option<Watch>,
    apps: Arc<dyn Apps>,
    conn: Arc<ConnState>,
    connection: String,
}

impl Note {
    /// The note for the agent's request `body` when the pass takes apps and it is a `tools/list`
    /// or a call of a noted UI tool ([`Apps::started`] is called here: it is about to be sent).
    pub(crate) fn of(
        pass: &PassState,
        conn: &Arc<ConnState>,
        connection: &str,
        body: &[u8],
        calls: &AtomicU64,
    ) -> Option<Note> {
        let apps = pass.owner.apps.clone().filter(|a| a.wanted(connection))?;
        // Only requests that are about tools are parsed.
        if !contains(body, b"tools/") {
            return None;
        }
        let message: Value = serde_json::from_slice(body).ok()?;
        let id = message.get("id").filter(|id| !id.is_null())?.clone();
        let params = message.get("params");
        let watch = match message.get("method").and_then(Value::as_str)? {
            "tools/list" => Watch::List {
                fresh: params.and_then(|p| p.get("cursor")).is_none_or(Value::is_null),
            },
            "tools/call" => {
                let tool = params?.get("name")?.as_str()?;
                let noted = conn.apps.get(tool)?;
                let call = AppCall {
                    who: Asker {
                        connection: connection.to_string(),
                        agent: pass.owner.agent.clone(),
                        pass: pass.id,
                        call: None,
                    },
                    call: calls.fetch_add(1, Ordering::Relaxed),
                    tool: tool.to_string(),
                    resource_uri: noted.resource_uri,
                    tool_definition: noted.definition,
                    arguments: params
                        .and_then(|p| p.get("arguments"))
                        .filter(|a| !a.is_null())
                        .cloned()
                        .unwrap_or_else(|| json!({})),
                };
                apps.started(&call);
                Watch::Call(Box::new(call))
            }
            _ => return None,
        };
        Some(Note {
            id,
            watch: Some(watch),
            apps,
            conn: conn.clone(),
            connection: connection.to_string(),
        })
    }

    /// The answer came (`Ok`), or could not be read (`Err`: why, for the log and `data.porthole`).
    fn deliver(&mut self, answer: Result<Value, &'static str>) {
        let Some(watch) = self.watch.take() else { return };
        match (watch, answer) {
            (Watch::List { fresh }, Ok(message)) => {
                if let Some(tools) = message.pointer("/result/tools").and_then(Value::as_array) {
                    self.conn.apps.list(&self.connection, fresh, tools);
                }
            }
            (Watch::List { .. }, Err(why)) => {
                if why == "too-large" {
                    tracing::warn!(
                        connection = self.connection,
                        "a tools/list answer over {NOTE_CAP} bytes passed on unread: its UI tools are not noted"
                    );
                }
            }
            (Watch::Call(call), Ok(message)) => {
                let outcome = match message.get("result") {
                    Some(result) => Ok(result.clone()),
                    None => Err(message.get("error").cloned().unwrap_or(Value::Null)),
                };
                self.apps.finished(&call, outcome);
            }
            (Watch::Call(call), Err(why)) => {
                let message = match why {
                    "too-large" => {
                        tracing::warn!(
                            connection = self.connection,
                            tool = call.tool,
                            "a UI tool's answer over {NOTE_CAP} bytes passed on unread: not noted"
                        );
                        format!(
                            "the tool's answer is larger than the {NOTE_CAP} bytes Porthole reads for MCP Apps"
                        )
                    }
                    _ => "Porthole did not see the tool's answer".to_string(),
                };
                self.apps.finished(
                    &call,
                    Err(json!({"code": UNSEEN, "message": message, "data": {"porthole": why}})),
                );
            }
        }
    }
}

impl Drop for Note {
    fn drop(&mut self) {
        self.deliver(Err("no-answer"));
    }
}

/// How the tap reads the answer's body.
enum Reader {
    Json {
        read: BytesMut,
        over: bool,
    },
    Sse(SseFilter),
    /// Neither: no answer to read.
    Other,
}

/// The tap's state, delivered once: when the answer is read, else when the body is dropped
/// (it ended, or the agent went away).
struct Tap {
    note: Option<Note>,
    reader: Reader,
}

impl Tap {
    fn feed(&mut self, bytes: &[u8]) {
        if self.note.is_none() {
            return;
        }
        match &mut self.reader {
            Reader::Json { read, over } => {
                if *over {
                    return;
                }
                if read.len() + bytes.len() > NOTE_CAP {
                    *over = true;
                    *read = BytesMut::new();
                } else {
                    read.extend_from_slice(bytes);
                }
            }
            Reader::Sse(filter) => {
                let (_, taken) = filter.push(bytes);
                for t in taken {
                    if let (Taken::Answer(message), Some(mut note)) = (t, self.note.take()) {
                        note.deliver(Ok(message));
                    }
                }
            }
            Reader::Other => {}
        }
    }
}

impl Drop for Tap {
    fn drop(&mut self) {
        let Some(mut note) = self.note.take() else { return };
        let answer = match &mut self.reader {
            Reader::Json { over: true, .. } => Err("too-large"),
            Reader::Json { read, .. } => serde_json::from_slice::<Value>(read)
                .ok()
                .filter(|m| m.get("id") == Some(&note.id))
                .filter(|m| m.get("result").is_some() || m.get("error").is_some())
                .ok_or("no-answer"),
            Reader::Sse(filter) => {
                // An unfinished last event (no blank line after it) is read as it is.
                let rest = filter.finish();
                match super::sse::answer_to(&rest, &note.id) {
                    Some(message) => Ok(message),
                    None if filter.overflowed => Err("too-large"),
                    None => Err("no-answer"),
                }
            }
            Reader::Other => Err("no-answer"),
        };
        note.deliver(answer);
    }
}

/// `response` as it goes to the agent, read on the way for `note`'s answer.
pub(crate) fn tap(response: Response<Body>, note: Option<Note>) -> Response<Body> {
    let Some(note) = note else { return response };
    let content_type = response
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_ascii_lowercase();
    let reader = if content_type.starts_with("application/json") {
        Reader::Json {
            read: BytesMut::new(),
            over: false,
        }
    } else if content_type.starts_with("text/event-stream") {
        Reader::Sse(SseFilter::watching(note.id.clone()))
    } else {
        Reader::Other
    };
    let mut tap = Tap {
        note: Some(note),
        reader,
    };
    let (parts, body) = response.into_parts();
    let body = body.map_frame(move |frame| {
        if let Some(data) = frame.data_ref() {
            tap.feed(data);
        }
        frame
    });
    Response::from_parts(parts, BodyExt::boxed(body))
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_extension_is_added_where_the_agent_declared_none_and_kept_where_it_did() {
        let mut caps = Map::new();
        assert!(declare(&mut caps));
        assert_eq!(
            Value::Object(caps),
            json!({"extensions": {EXTENSION: {"mimeTypes": [MIME_TYPE]}}})
        );
        let mut caps = json!({"extensions": {"x.other/ext": {"a": 1}}, "roots": {}})
            .as_object()
            .unwrap()
            .clone();
        assert!(declare(&mut caps));
        assert_eq!(
            Value::Object(caps),
            json!({"extensions": {"x.other/ext": {"a": 1}, EXTENSION: {"mimeTypes": [MIME_TYPE]}}, "roots": {}})
        );
        let mine = json!({"extensions": {EXTENSION: {"mimeTypes": ["text/html;profile=mcp-app", "x/y"]}}});
        let mut caps = mine.as_object().unwrap().clone();
        assert!(!declare(&mut caps));
        assert_eq!(Value::Object(caps), mine);
    }

    #[test]
    fn initialize_gets_elicitation_and_the_extension_in_one_rewrite() {
        use super::super::questions::rewrite_initialize;
        let body = br#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"roots":{}},"clientInfo":{"name":"a","version":"1"}}}"#;
        let (sent, declared) = rewrite_initialize(body, true, true, true).unwrap();
        assert!(!declared);
        let sent: Value = serde_json::from_slice(&sent).unwrap();
        assert_eq!(
            sent["params"]["capabilities"],
            json!({"roots": {}, "elicitation": {"form": {}, "url": {}},
                "extensions": {EXTENSION: {"mimeTypes": [MIME_TYPE]}}})
        );
        assert_eq!(sent["params"]["clientInfo"], json!({"name": "a", "version": "1"}));
        // Apps only: no elicitation added.
        let (sent, _) = rewrite_initialize(body, false, true, true).unwrap();
        let sent: Value = serde_json::from_slice(&sent).unwrap();
        assert!(sent["params"]["capabilities"].get("elicitation").is_none());
        assert!(sent["params"]["capabilities"]["extensions"][EXTENSION].is_object());
        // Everything declared already: the agent's bytes as they came.
        let all = br#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"capabilities":{"elicitation":{},"extensions":{"io.modelcontextprotocol/ui":{}}}}}"#;
        let (sent, declared) = rewrite_initialize(all, true, false, true).unwrap();
        assert!(declared);
        assert_eq!(&sent[..], &all[..]);
    }

    #[test]
    fn a_ui_resource_is_a_ui_uri_in_meta_ui_or_the_flat_deprecated_key() {
        assert_eq!(
            ui_resource(&json!({"name": "t", "_meta": {"ui": {"resourceUri": "ui://a/b.html"}}})),
            Some("ui://a/b.html".into())
        );
        assert_eq!(
            ui_resource(&json!({"name": "t", "_meta": {"ui/resourceUri": "ui://flat"}})),
            Some("ui://flat".into())
        );
        // The nested key wins over the flat one.
        assert_eq!(
            ui_resource(&json!({"_meta": {"ui": {"resourceUri": "ui://new"}, "ui/resourceUri": "ui://old"}})),
            Some("ui://new".into())
        );
        for no in [
            json!({"name": "t"}),
            json!({"_meta": {"ui": {"resourceUri": "https://evil.example/app.html"}}}),
            json!({"_meta": {"ui": {"resourceUri": "ui://"}}}),
            json!({"_meta": {"ui": {"resourceUri": 7}}}),
            json!({"_meta": {"ui/resourceUri": "file:///etc/passwd"}}),
        ] {
            assert_eq!(ui_resource(&no), None, "{no}");
        }
    }

    #[test]
    fn noted_tools_are_capped_a_fresh_listing_replaces_and_app_only_tools_count() {
        let noted = Noted::default();
        let tool = |i: usize| json!({"name": format!("t{i}"), "_meta": {"ui": {"resourceUri": format!("ui://t/{i}")}}});
        let many: Vec<Value> = (0..TOOLS_CAP + 10).map(tool).collect();
        noted.list("c", true, &many);
        assert_eq!(noted.len(), TOOLS_CAP);
        assert!(noted.get(&format!("t{}", TOOLS_CAP + 1)).is_none());
        // A later page adds (within the cap); a fresh listing replaces.
        noted.list(
            "c",
            true,
            &[
                tool(1),
                json!({"name": "plain"}),
                json!({"name": "hidden", "_meta": {"ui": {"resourceUri": "ui://h", "visibility": ["app"]}}}),
            ],
        );
        assert_eq!(noted.len(), 2);
        assert_eq!(noted.get("hidden").unwrap().resource_uri, "ui://h");
        assert!(noted.get("plain").is_none());
        noted.list("c", false, &[tool(2)]);
        assert_eq!(noted.len(), 3);
        assert_eq!(
            noted.get("t2").unwrap().definition,
            json!({"name": "t2", "_meta": {"ui": {"resourceUri": "ui://t/2"}}})
        );
    }

    #[test]
    fn later_pages_cannot_note_definitions_past_the_cap() {
        let noted = Noted::default();
        let big = |i: usize| {
            json!({"name": format!("big{i}"), "description": "d".repeat(DEFINITIONS_CAP / 3),
                "_meta": {"ui": {"resourceUri": "ui://big"}}})
        };
        noted.list("c", true, &[big(0)]);
        noted.list("c", false, &[big(1)]);
        noted.list("c", false, &[big(2), big(3)]);
        assert_eq!(noted.len(), 2);
        assert!(noted.get("big2").is_none());
        // The same tool listed again replaces its own size, it does not add to it.
        noted.list("c", false, &[big(1)]);
        assert!(noted.get("big1").is_some());
        // A fresh listing starts again.
        noted.list("c", true, &[big(2)]);
        assert!(noted.get("big2").is_some() && noted.get("big0").is_none());
    }
}
