//! Stdio servers the gateway starts itself, one per bridge that connects: their environment
//! may hold secrets (a `GITHUB_TOKEN`), which therefore never pass through the agent, its
//! arguments or its environment. The bridge (a child of the agent) asks for an HTTP upgrade
//! to `porthole-stdio`, and the connection then carries the server's stdin and stdout as
//! they are.
//!
//! The server runs in a process group of its own (porthole-process): when the connection ends,
//! the whole group is killed, so what the server started (`npx`'s node, a shell's children)
//! goes with it. tokio's `kill_on_drop` reached the leader only.

use std::path::PathBuf;
use std::process::Stdio;

use http_body_util::BodyExt;
use hyper::body::Incoming;
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;

use super::{Body, GatewayEvent, Inner, plain};

/// The protocol name of the bridge's upgrade.
pub const UPGRADE: &str = "porthole-stdio";

#[derive(Clone)]
pub struct StdioServer {
    pub command: String,
    pub args: Vec<String>,
    /// Every value, secret ones included (read from the keyring by the caller).
    pub env: Vec<(String, String)>,
    pub cwd: Option<PathBuf>,
}

impl StdioServer {
    /// Its command, piped both ways, in its working directory, with every value of its
    /// environment; its stderr goes nowhere (a server's stderr may echo its environment).
    pub(super) fn command(&self) -> tokio::process::Command {
        let mut command = tokio::process::Command::new(&self.command);
        command
            .args(&self.args)
            .envs(self.env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        if let Some(cwd) = &self.cwd {
            command.current_dir(cwd);
        }
        command
    }
}

impl std::fmt::Debug for StdioServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names: Vec<&str> = self.env.iter().map(|(n, _)| n.as_str()).collect();
        f.debug_struct("StdioServer")
            .field("command", &self.command)
            .field("args", &self.args)
            .field("env", &names)
            .finish()
    }
}

pub(super) fn attach(
    inner: &Inner,
    name: &str,
    server: StdioServer,
    req: Request<Incoming>,
) -> Response<Body> {
    let wants = req
        .headers()
        .get("upgrade")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.eq_ignore_ascii_case(UPGRADE));
    if !wants {
        return plain(
            StatusCode::UPGRADE_REQUIRED,
            "this connection is a stdio server: connect with Porthole's MCP bridge",
        );
    }
    let command = server.command();
    // No parent-death signal: it fires when the spawning *thread* ends, and this runs on any
    // worker of the gateway's runtime. A dropped group is killed whole (the gateway's end).
    let mut group = match porthole_process::spawn(command, None) {
        Ok(c) => c,
        Err(e) => {
            let reason = format!("cannot start `{}`: {e}", server.command);
            tracing::warn!(connection = name, %reason, "MCP stdio server");
            let _ = inner.events.send(GatewayEvent::StdioFailed {
                connection: name.to_string(),
                reason: reason.clone(),
            });
            return plain(StatusCode::BAD_GATEWAY, &reason);
        }
    };
    let child = group.child_mut();
    let (Some(mut stdin), Some(mut stdout)) = (child.stdin.take(), child.stdout.take()) else {
        return plain(StatusCode::BAD_GATEWAY, "the server's pipes are missing");
    };
    tokio::spawn(async move {
        let Ok(upgraded) = hyper::upgrade::on(req).await else {
            return;
        };
        let (mut from_bridge, mut to_bridge) = tokio::io::split(TokioIo::new(upgraded));
        // The bridge's EOF closes the server's stdin and lets it finish its output; the
        // server's EOF (or exit) ends the connection. Either way the server's group is then
        // killed.
        let up = async move {
            let _ = tokio::io::copy(&mut from_bridge, &mut stdin).await;
            drop(stdin);
            // A server that ignores its stdin's end gets a few seconds, not forever.
            tokio::time::sleep(std::time::Duration::from_secs(5)).await
        };
        let down = async {
            let _ = tokio::io::copy(&mut stdout, &mut to_bridge).await;
            let _ = tokio::io::AsyncWriteExt::shutdown(&mut to_bridge).await;
        };
        tokio::select! {
            _ = up => {}
            _ = down => {}
        }
        group.kill();
        let _ = group.wait().await;
    });
    hyper::Response::builder()
        .status(StatusCode::SWITCHING_PROTOCOLS)
        .header("Upgrade", UPGRADE)
        .header("Connection", "upgrade")
        .body(
            http_body_util::Empty::new()
                .map_err(|never: std::convert::Infallible| match never {})
                .boxed(),
        )
        .expect("an upgrade response builds")
}
