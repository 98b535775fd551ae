//! MCP Apps in the window: a connection's UI tool called in a session shows its app under the
//! agent's tool call (or under the turn when no tool call matches).
//!
//! The gateway notes each call of a UI tool ([`Apps`]) for the session whose pass it came on;
//! here it becomes an [`McpAppView`] the transcript shows, with an unguessable page address
//! (`mcp-app://localhost/KEY`) the shell serves from [`Backend::mcp_app_page`] with the policy
//! of `page`. What the app then asks goes through this module and nothing else:
//! - `tools/call` reaches its own server only (Porthole's own session, through the gateway);
//!   a tool the person has not allowed "for this app" asks first, in the one list of dialogs
//!   (`AgentClient::ask_app_permission`, the dialog naming the server); at most one such
//!   question per app at a time and [`CALLS_PER_MINUTE`] calls a minute;
//! - `ui/open-link` is the URL dialog of an MCP server's question (every URL rule, the sealed
//!   view or the browser), never opened directly;
//! - the devices its resource declares (`_meta.ui.permissions`: camera, microphone, geolocation,
//!   clipboard writes) are given to its frame only when the person allows them, before it loads
//!   ("Allow for this app" kept per server and resource); the webview's own permission requests
//!   are granted only for a kind an app shown now was given ([`Backend::mcp_app_device_allowed`]).
//!
//! The app never gets a token, another connection, another session or another tool result.

mod page;

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use indexmap::IndexMap;
use porthole_connections::gateway::{AppCall, Apps};
use porthole_core::events::McpAsker;
use serde::Serialize;
use serde_json::{Value, json};

use crate::app_event::AppEvent;
use crate::mcp_questions::WindowQuestions;
use crate::{AnswerError, Backend};
pub use page::{AppPermission, Page};

/// Apps kept per window; the oldest go (their frames then show that the page is gone).
const KEPT: usize = 500;
/// Tool calls one app may make in a minute; more are refused.
pub(crate) const CALLS_PER_MINUTE: usize = 30;

/// One MCP App, as the transcript shows it.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(any(test, feature = "ts"), derive(ts_rs::TS))]
pub struct McpAppView {
    pub id: u64,
    pub session_id: String,
    /// The connection's name.
    pub connection: String,
    /// The remote server's host; `null` for a server on this computer.
    pub host: Option<String>,
    pub tool: String,
    pub resource_uri: String,
    /// Where the frame loads the app from (served by the shell, `Backend::mcp_app_page`).
    pub page: String,
    /// The agent's tool call it belongs to; `null` when none matched (shown under the turn).
    pub tool_call_id: Option<String>,
    #[cfg_attr(any(test, feature = "ts"), ts(type = "Record<string, unknown>"))]
    pub arguments: Value,
    /// The tool's `CallToolResult`, once it came.
    #[cfg_attr(any(test, feature = "ts"), ts(type = "Record<string, unknown> | null"))]
    pub result: Option<Value>,
    /// Why the tool call failed, when it did.
    pub error: Option<String>,
    /// The first app of this connection in this window: the frame says where it comes from.
    pub first_of_connection: bool,
}

/// A tool's `CallToolResult`, as an app gets it.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(any(test, feature = "ts"), derive(ts_rs::TS))]
pub struct McpToolResult(
    #[cfg_attr(any(test, feature = "ts"), ts(type = "Record<string, unknown>"))] pub Value,
);

/// What the window keeps of its apps.
#[derive(Default)]
pub(crate) struct AppsTable {
    inner: Mutex<Table>,
}

#[derive(Default)]
struct Table {
    next: u64,
    apps: IndexMap<u64, Entry>,
    by_page: HashMap<String, u64>,
    by_call: HashMap<u64, u64>,
    connections_seen: HashSet<String>,
    /// Apps with a permission question open.
    asking: HashSet<u64>,
    calls: HashMap<u64, VecDeque<Instant>>,
}

struct Entry {
    view: McpAppView,
    agent_id: String,
    pass: u64,
    /// The page read to learn its permissions, served once by the next load of the frame.
    page: Option<Page>,
    /// What its frame may use, once decided (the person's answer, or nothing asked).
    granted: Option<Vec<AppPermission>>,
}

/// What an app's resource asks to use, and what its frame may use.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(any(test, feature = "ts"), derive(ts_rs::TS))]
pub struct McpAppPermissions {
    pub requested: Vec<AppPermission>,
    /// `null` until the person answered (the frame waits); then what the frame's `allow` gives.
    pub granted: Option<Vec<AppPermission>>,
}

impl AppsTable {
    fn lock(&self) -> std::sync::MutexGuard<'_, Table> {
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// A session closed: its apps go (their pages are no longer served).
    pub(crate) fn session_closed(&self, session_id: &str) {
        let mut table = self.lock();
        let gone: HashSet<u64> = (table.apps.iter())
            .filter(|(_, e)| e.view.session_id == session_id)
            .map(|(id, _)| *id)
            .collect();
        table.remove(&gone);
    }
}

impl Table {
    fn remove(&mut self, gone: &HashSet<u64>) {
        self.apps.retain(|id, _| !gone.contains(id));
        self.by_page.retain(|_, id| !gone.contains(id));
        self.by_call.retain(|_, id| !gone.contains(id));
        self.calls.retain(|id, _| !gone.contains(id));
    }
}

fn page_key() -> String {
    use base64::Engine;
    let mut bytes = [0u8; 24];
    getrandom::fill(&mut bytes).expect("the OS gives random bytes");
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
}

/// The scheme the shell serves app pages on.
pub const PAGE_SCHEME: &str = "mcp-app";

impl Apps for WindowQuestions {
    fn started(&self, call: &AppCall) {
        let Some(backend) = self.backend() else { return };
        let Some(session_id) = self.session() else {
            tracing::warn!(connection = %call.who.connection, "an MCP App's tool call came before its session opened: not shown");
            return;
        };
        let view = {
            let mut table = backend.0.apps.lock();
            table.next += 1;
            let id = table.next;
            let key = page_key();
            let first = table.connections_seen.insert(call.who.connection.clone());
            let view = McpAppView {
                id,
                session_id: session_id.clone(),
                connection: call.who.connection.clone(),
                host: self.host(&call.who.connection),
                tool: call.tool.clone(),
                resource_uri: call.resource_uri.clone(),
                page: format!("{PAGE_SCHEME}://localhost/{key}"),
                tool_call_id: None,
                arguments: call.arguments.clone(),
                result: None,
                error: None,
                first_of_connection: first,
            };
            table.by_page.insert(key, id);
            table.by_call.insert(call.call, id);
            table.apps.insert(
                id,
                Entry {
                    view: view.clone(),
                    agent_id: self.agent_id().to_string(),
                    pass: call.who.pass,
                    page: None,
                    granted: None,
                },
            );
            if table.apps.len() > KEPT {
                let oldest: HashSet<u64> = table.apps.keys().take(table.apps.len() - KEPT).copied().collect();
                table.remove(&oldest);
            }
            view
        };
        // The agent's tool call usually came before its MCP request: placed at once.
        let view = match backend.matching_tool_call(call) {
            Some(matched) => backend.matched(view.id, matched).unwrap_or(view),
            None => view,
        };
        backend.push_app(AppEvent::McpApp { app: Box::new(view) });
    }

    fn wanted(&self, connection: &str) -> bool {
        self.backend()
            .is_some_and(|b| !b.settings().mcp_apps_off.iter().any(|c| c == connection))
    }

    fn finished(&self, call: &AppCall, outcome: Result<Value, Value>) {
        let Some(backend) = self.backend() else { return };
        let unmatched = {
            let table = backend.0.apps.lock();
            (table.by_call.get(&call.call))
                .and_then(|id| table.apps.get(id))
                .is_some_and(|e| e.view.tool_call_id.is_none())
        };
        let matched = if unmatched {
            backend.matching_tool_call(call)
        } else {
            None
        };
        let view = {
            let mut table = backend.0.apps.lock();
            let Some(id) = table.by_call.remove(&call.call) else {
                return;
            };
            let Some(entry) = table.apps.get_mut(&id) else {
                return;
            };
            if matched.is_some() {
                entry.view.tool_call_id = matched;
            }
            match outcome {
                Ok(result) => entry.view.result = Some(result),
                Err(error) => {
                    let message = error["message"].as_str().unwrap_or("the tool call failed");
                    entry.view.error = Some(porthole_core::hidden_chars::neutralize(message));
                }
            }
            entry.view.clone()
        };
        backend.push_app(AppEvent::McpApp { app: Box::new(view) });
    }
}

impl Backend {
    /// The page of the app at `key` (the last segment of its `page` address), ready to serve:
    /// the one read for its permissions, or read now from its server.
    pub async fn mcp_app_page(&self, key: &str) -> Result<Page, AnswerError> {
        let (id, cached) = {
            let mut table = self.0.apps.lock();
            let id = *table
                .by_page
                .get(key)
                .ok_or_else(|| AnswerError::msg("no such app (it may have been closed)"))?;
            let entry = table.apps.get_mut(&id).expect("by_page names kept apps");
            (id, entry.page.take())
        };
        match cached {
            Some(page) => Ok(page),
            None => self.read_page(id).await,
        }
    }

    /// The app's page, read from its server through Porthole's own session.
    async fn read_page(&self, app_id: u64) -> Result<Page, AnswerError> {
        let (view, _, pass) = self.app(app_id)?;
        let result = self
            .connector()
            .app_request(
                pass,
                &view.connection,
                "resources/read",
                json!({"uri": view.resource_uri}),
            )
            .await
            .map_err(|e| AnswerError::msg(format!("the app's page could not be read: {e}")))?;
        let page = page::from_read_result(&view.resource_uri, &result).map_err(AnswerError::msg)?;
        for dropped in &page.dropped {
            tracing::warn!(connection = %view.connection, "an MCP App's declaration was not used: {dropped}");
        }
        Ok(page)
    }

    /// What app `app_id` asks to use, before its frame loads: its page is read (and kept for
    /// that load); what the person allowed for this server's resource before is given again.
    pub async fn mcp_app_permissions(&self, app_id: u64) -> Result<McpAppPermissions, AnswerError> {
        let page = self.read_page(app_id).await?;
        let requested = page.permissions.clone();
        let (view, _, _) = self.app(app_id)?;
        let remembered = self
            .settings()
            .mcp_app_permissions
            .get(&view.connection)
            .and_then(|by_resource| by_resource.get(&view.resource_uri))
            .cloned();
        let granted = match remembered {
            _ if requested.is_empty() => Some(Vec::new()),
            Some(allowed) => Some(
                requested
                    .iter()
                    .copied()
                    .filter(|p| allowed.contains(p))
                    .collect(),
            ),
            None => None,
        };
        let mut table = self.0.apps.lock();
        let entry = table
            .apps
            .get_mut(&app_id)
            .ok_or_else(|| AnswerError::msg("no such app (it may have been closed)"))?;
        entry.page = Some(page);
        entry.granted = granted.clone();
        Ok(McpAppPermissions { requested, granted })
    }

    /// The person's answer about what app `app_id` asked to use: allowed (kept for this
    /// server's resource, "Allow for this app") or not (this time; asked again next time).
    pub fn mcp_app_allow(&self, app_id: u64, allow: bool) -> Result<McpAppPermissions, AnswerError> {
        let (view, requested) = {
            let table = self.0.apps.lock();
            let entry = table
                .apps
                .get(&app_id)
                .ok_or_else(|| AnswerError::msg("no such app (it may have been closed)"))?;
            let requested = (entry.page.as_ref())
                .map(|p| p.permissions.clone())
                .ok_or_else(|| AnswerError::msg("the app's permissions were not read yet"))?;
            (entry.view.clone(), requested)
        };
        let granted = if allow { requested.clone() } else { Vec::new() };
        if allow {
            let mut settings = self.settings();
            (settings.mcp_app_permissions.entry(view.connection.clone()))
                .or_default()
                .insert(view.resource_uri.clone(), requested.clone());
            self.save_settings(settings)?;
        }
        if let Some(entry) = self.0.apps.lock().apps.get_mut(&app_id) {
            entry.granted = Some(granted.clone());
        }
        Ok(McpAppPermissions {
            requested,
            granted: Some(granted),
        })
    }

    /// Whether the webview may give `kind` when a page asks: only if an app of an open session
    /// was given it (each frame's `allow` then decides which frame may ask).
    pub fn mcp_app_device_allowed(&self, kind: AppPermission) -> bool {
        let open: HashSet<String> = self.state().sessions().map(|s| s.session_id.clone()).collect();
        let table = self.0.apps.lock();
        table.apps.values().any(|e| {
            open.contains(&e.view.session_id) && e.granted.as_ref().is_some_and(|g| g.contains(&kind))
        })
    }

    /// Show `connection`'s apps or not (while apps are on): its calls are noted, or not, at once;
    /// the server learns it at the next session's `initialize`.
    pub fn mcp_set_apps(&self, connection: &str, on: bool) -> Result<(), AnswerError> {
        let mut settings = self.settings();
        settings.mcp_apps_off.retain(|c| c != connection);
        if !on {
            settings.mcp_apps_off.push(connection.to_string());
        }
        self.save_settings(settings)
    }

    /// The app `app_id` calls `tool` of its own server with `arguments`: asked first unless the
    /// person allowed that tool for the server's apps. Returns the `CallToolResult`.
    pub async fn mcp_app_call_tool(
        &self,
        app_id: u64,
        tool: &str,
        arguments: Value,
    ) -> Result<McpToolResult, AnswerError> {
        let arguments = match arguments {
            Value::Null => json!({}),
            Value::Object(_) => arguments,
            _ => return Err(AnswerError::msg("a tool's arguments must be an object")),
        };
        let (view, agent_id, pass) = self.app(app_id)?;
        self.count_call(app_id)?;
        if !self.app_tool_allowed(&view.connection, tool) {
            self.ask_for_app_tool(app_id, &view, &agent_id, tool, &arguments)
                .await?;
        }
        self.connector()
            .app_request(
                pass,
                &view.connection,
                "tools/call",
                json!({"name": tool, "arguments": arguments}),
            )
            .await
            .map(McpToolResult)
            .map_err(|e| AnswerError::msg(format!("the tool call failed: {e}")))
    }

    /// The app `app_id` asks to open `url`: the URL dialog of an MCP server's question (every
    /// URL rule; opened in the sealed view or the browser only if the person consents).
    /// Returns the person's action (`accept`, `decline`, `cancel`).
    pub async fn mcp_app_open_link(&self, app_id: u64, url: &str) -> Result<String, AnswerError> {
        let (view, agent_id, _) = self.app(app_id)?;
        let client = self.client_of_agent(&agent_id)?;
        let id = format!("app-link-{app_id}-{}", page_key());
        let params = json!({
            "mode": "url",
            "url": url,
            "elicitationId": id,
            "message": format!("The app of “{}” asks to open this page.", view.connection),
        });
        let asker = McpAsker {
            connection: view.connection.clone(),
            host: view.host.clone(),
        };
        let answer = client
            .ask_for_connection(asker, &view.session_id, None, &params)
            .await
            .map_err(|e| AnswerError::msg(e.message))?;
        let action = answer["action"].as_str().unwrap_or("cancel").to_string();
        if action == "accept" {
            // Opening is all a link asks: nothing will say it is complete but this.
            client.connection_completed(&view.connection, &id).await;
        }
        Ok(action)
    }

    /// The app `app_id` belongs to the agent's tool call `tool_call_id`.
    fn matched(&self, app_id: u64, tool_call_id: String) -> Option<McpAppView> {
        let mut table = self.0.apps.lock();
        let entry = table.apps.get_mut(&app_id)?;
        entry.view.tool_call_id = Some(tool_call_id);
        Some(entry.view.clone())
    }

    fn app(&self, app_id: u64) -> Result<(McpAppView, String, u64), AnswerError> {
        let table = self.0.apps.lock();
        let entry = table
            .apps
            .get(&app_id)
            .ok_or_else(|| AnswerError::msg("no such app (it may have been closed)"))?;
        Ok((entry.view.clone(), entry.agent_id.clone(), entry.pass))
    }

    fn count_call(&self, app_id: u64) -> Result<(), AnswerError> {
        let mut table = self.0.apps.lock();
        let calls = table.calls.entry(app_id).or_default();
        let now = Instant::now();
        while calls
            .front()
            .is_some_and(|t| now.duration_since(*t) > Duration::from_secs(60))
        {
            calls.pop_front();
        }
        if calls.len() >= CALLS_PER_MINUTE {
            return Err(AnswerError::msg(format!(
                "the app made more than {CALLS_PER_MINUTE} tool calls in a minute: refused"
            )));
        }
        calls.push_back(now);
        Ok(())
    }

    fn app_tool_allowed(&self, connection: &str, tool: &str) -> bool {
        self.settings()
            .mcp_app_tools
            .get(connection)
            .is_some_and(|tools| tools.iter().any(|t| t == tool))
    }

    async fn ask_for_app_tool(
        &self,
        app_id: u64,
        view: &McpAppView,
        agent_id: &str,
        tool: &str,
        arguments: &Value,
    ) -> Result<(), AnswerError> {
        if !self.0.apps.lock().asking.insert(app_id) {
            return Err(AnswerError::msg(
                "the app already waits for your answer about another tool call: refused",
            ));
        }
        let _asked = Asked {
            backend: self,
            app_id,
        };
        let client = self.client_of_agent(agent_id)?;
        let asker = McpAsker {
            connection: view.connection.clone(),
            host: view.host.clone(),
        };
        let chosen = client
            .ask_app_permission(asker, &view.session_id, tool, arguments)
            .await
            .map_err(AnswerError::msg)?;
        use porthole_core::app_permission::{APP_ALLOW_ALWAYS, APP_ALLOW_ONCE};
        match chosen.as_deref() {
            Some(APP_ALLOW_ONCE) => Ok(()),
            Some(APP_ALLOW_ALWAYS) => {
                self.remember_app_tool(&view.connection, tool)?;
                Ok(())
            }
            _ => Err(AnswerError::msg("you did not allow this tool call")),
        }
    }

    fn remember_app_tool(&self, connection: &str, tool: &str) -> Result<(), AnswerError> {
        let mut settings = self.settings();
        let tools = settings.mcp_app_tools.entry(connection.to_string()).or_default();
        if !tools.iter().any(|t| t == tool) {
            tools.push(tool.to_string());
        }
        self.save_settings(settings).map(|_| ())
    }

    /// The agent's tool call `call` belongs to, among the session's recent ones.
    fn matching_tool_call(&self, call: &AppCall) -> Option<String> {
        use porthole_connections::tool_match::{AgentToolCall, matching};
        let (session, taken) = {
            let table = self.0.apps.lock();
            let id = table.by_call.get(&call.call)?;
            let session = table.apps.get(id)?.view.session_id.clone();
            let taken: HashSet<String> = (table.apps.values())
                .filter(|e| e.view.session_id == session)
                .filter_map(|e| e.view.tool_call_id.clone())
                .collect();
            (session, taken)
        };
        let state = self.state();
        let recent = state.tool_calls(&session)?;
        let calls = recent.iter().map(|c| AgentToolCall {
            id: &c.id,
            title: c.title.as_deref(),
            raw_input: c.raw_input.as_ref(),
        });
        matching(calls, &call.tool, &call.arguments, &|id| taken.contains(id))
    }
}

/// Ends an app's open permission question, however it ends.
struct Asked<'b> {
    backend: &'b Backend,
    app_id: u64,
}

impl Drop for Asked<'_> {
    fn drop(&mut self) {
        self.backend.0.apps.lock().asking.remove(&self.app_id);
    }
}
