//! Running the SDK's connection, v1 or v2, over the agent's lines (`pipes`), and what ends it.
//! Both versions route to the same handlers (`handlers::handle_request` and friends); a v2
//! connection's requests and notifications go through `handlers::v2` first, which converts
//! their shapes at the edge.

use std::sync::Arc;

use agent_client_protocol::{Agent, Client, ConnectionTo, Lines, UntypedMessage, V1};
use futures::Stream;
use serde_json::Value;
use tokio::sync::{oneshot, watch};

use super::state::{Shared, Wire};
use super::{AgentClient, ClientError, handlers, on_agent_exit, rpc_error_with};
use crate::events::ExitInfo;
use crate::outgoing::{BoundedLines, Fault};
use crate::process::StderrTail;

/// An SDK connection running on its own task.
pub(super) struct Run {
    /// Version-neutral: the session methods send v1's or v2's types through it.
    pub(super) cx: ConnectionTo<Agent>,
    /// The v2 connection (for its `send_initialize`), when it is one.
    pub(super) v2: Option<agent_client_protocol::v2::ConnectionTo<Agent>>,
    /// Dropping it ends the connection.
    hold: oneshot::Sender<()>,
}

/// What a connection of one agent shares across the SDK connections run for it.
pub(super) struct Ends {
    pub(super) shared: Arc<Shared>,
    pub(super) exit_rx: watch::Receiver<Option<ExitInfo>>,
    pub(super) stderr: StderrTail,
    /// Asks the process watcher to stop the agent; `None` for stream connections.
    pub(super) stop: Option<oneshot::Sender<()>>,
    pub(super) fault: Arc<Fault>,
    /// A stream connection: the agent has exited when its output ends.
    pub(super) exit_on_close: bool,
}

impl Ends {
    /// Start an SDK connection of `wire`'s version over `lines`. `retired`: set before the
    /// connection is ended on purpose (a v2 attempt the agent answered with v1), whose end is
    /// then not the agent's.
    pub(super) async fn run<S>(
        &self,
        wire: Wire,
        lines: Lines<BoundedLines, S>,
        retired: Option<watch::Receiver<bool>>,
    ) -> Result<Run, ClientError>
    where
        S: Stream<Item = std::io::Result<String>> + Send + 'static,
    {
        let (cx_tx, cx_rx) = oneshot::channel::<Run>();
        let (hold_tx, hold_rx) = oneshot::channel::<()>();
        let hold = Hold {
            rx: hold_rx,
            shared: self.shared.clone(),
            exit_on_close: self.exit_on_close,
        };
        let shared = self.shared.clone();
        let fault = self.fault.clone();
        let exit_on_close = self.exit_on_close;
        tokio::spawn(async move {
            let result = match wire {
                Wire::V1 => run_v1(&shared, lines, hold, hold_tx, cx_tx).await,
                Wire::V2 => run_v2(&shared, lines, hold, hold_tx, cx_tx).await,
            };
            if let Err(e) = &result {
                tracing::info!("ACP connection ended: {}", e.message);
            }
            let retired = retired.is_some_and(|r| *r.borrow());
            if exit_on_close && !retired {
                let status = match (fault.reason(), result) {
                    (Some(reason), _) => reason.to_string(),
                    (None, Ok(())) => "the connection closed".to_string(),
                    (None, Err(e)) => format!("the connection closed: {}", e.message),
                };
                let info = ExitInfo {
                    code: None,
                    signal: None,
                    status,
                    stderr_tail: String::new(),
                    requested: false,
                };
                on_agent_exit(&shared, info).await;
            }
        });
        cx_rx
            .await
            .map_err(|_| ClientError::Start("the ACP connection failed to start".into()))
    }

    /// The client over `run`, the connection that stays. A process connection stays open until
    /// the process watcher reports the exit; a stream connection is stopped by ending the
    /// connection's main future (the hold), which reports the close.
    pub(super) fn keep(&mut self, run: Run) -> AgentClient {
        let stop = match self.stop.take() {
            Some(stop) => {
                let mut exit = self.exit_rx.clone();
                let hold = run.hold;
                tokio::spawn(async move {
                    let _ = exit.wait_for(|e| e.is_some()).await;
                    drop(hold);
                });
                stop
            }
            None => run.hold,
        };
        AgentClient {
            shared: self.shared.clone(),
            cx: run.cx,
            init: Arc::new(agent_client_protocol::v1::schema::InitializeResponse::new(
                agent_client_protocol::schema::ProtocolVersion::V1,
            )),
            raw_auth_methods: Arc::new(Value::Null),
            mcp: super::McpTransports::default(),
            stderr: self.stderr.clone(),
            stop: Arc::new(std::sync::Mutex::new(Some(stop))),
            exit_rx: self.exit_rx.clone(),
        }
    }

    /// Stop the agent after a failed `initialize` and return `error`.
    pub(super) async fn fail(&mut self, run: Run, error: ClientError) -> ClientError {
        self.keep(run).shutdown().await;
        error
    }
}

/// The connection's main future: open until the client is dropped or shut down (or, for a
/// stream connection, the agent's output ends).
struct Hold {
    rx: oneshot::Receiver<()>,
    shared: Arc<Shared>,
    exit_on_close: bool,
}

impl Hold {
    async fn wait(self) {
        if self.exit_on_close {
            let mut ended = self.shared.output_ended.subscribe();
            tokio::select! {
                _ = self.rx => {}
                _ = ended.wait_for(|e| *e) => {}
            }
        } else {
            let _ = self.rx.await;
        }
    }
}

async fn run_v1<S>(
    shared: &Arc<Shared>,
    lines: Lines<BoundedLines, S>,
    hold: Hold,
    hold_tx: oneshot::Sender<()>,
    cx_tx: oneshot::Sender<Run>,
) -> agent_client_protocol::Result<()>
where
    S: Stream<Item = std::io::Result<String>> + Send + 'static,
{
    use agent_client_protocol::v1::{ConnectionTo, Responder};
    let s_req = shared.clone();
    let s_note = shared.clone();
    Client
        .v1()
        .name("porthole")
        .on_receive_request(
            async move |req: UntypedMessage, responder: Responder<Value>, _cx: ConnectionTo<Agent>| {
                handlers::handle_request(&s_req, req, responder).await;
                Ok(())
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_notification(
            async move |note: UntypedMessage, _cx: ConnectionTo<Agent>| {
                handlers::handle_notification(&s_note, note).await;
                Ok(())
            },
            agent_client_protocol::on_receive_notification!(),
        )
        .connect_with(lines, async move |cx: ConnectionTo<Agent>| {
            let _ = cx_tx.send(Run {
                cx: cx.into_raw(),
                v2: None,
                hold: hold_tx,
            });
            hold.wait().await;
            Ok(())
        })
        .await
}

async fn run_v2<S>(
    shared: &Arc<Shared>,
    lines: Lines<BoundedLines, S>,
    hold: Hold,
    hold_tx: oneshot::Sender<()>,
    cx_tx: oneshot::Sender<Run>,
) -> agent_client_protocol::Result<()>
where
    S: Stream<Item = std::io::Result<String>> + Send + 'static,
{
    use agent_client_protocol::v2::{ConnectionTo, Responder};
    let s_req = shared.clone();
    let s_note = shared.clone();
    Client
        .v2()
        .name("porthole")
        .on_receive_request(
            async move |req: UntypedMessage, responder: Responder<Value>, _cx: ConnectionTo<Agent>| {
                // The handlers answer through v1's responder type: only the id's type differs,
                // and an id a v2 connection accepted is one v1 accepts.
                match responder.into_raw().into_protocol::<V1>() {
                    Ok(responder) => handlers::v2::handle_request(&s_req, req, responder).await,
                    Err(e) => tracing::warn!("a v2 request id v1 cannot hold: {}", e.message),
                }
                Ok(())
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_notification(
            async move |note: UntypedMessage, _cx: ConnectionTo<Agent>| {
                handlers::v2::handle_notification(&s_note, note).await;
                Ok(())
            },
            agent_client_protocol::on_receive_notification!(),
        )
        .connect_with(lines, async move |cx: ConnectionTo<Agent>| {
            let _ = cx_tx.send(Run {
                cx: cx.clone().into_raw(),
                v2: Some(cx),
                hold: hold_tx,
            });
            hold.wait().await;
            Ok(())
        })
        .await
}

/// An `initialize`'s answer (v1's, or v2's outcome) within the timeout, or why the agent gave
/// none.
pub(super) async fn settle_init<T>(
    shared: &Shared,
    exit_rx: &watch::Receiver<Option<ExitInfo>>,
    sent: impl std::future::Future<Output = agent_client_protocol::Result<T>>,
) -> Result<T, ClientError> {
    let timeout = shared.opts.init_timeout;
    let mut exit = exit_rx.clone();
    let response = tokio::select! {
        r = tokio::time::timeout(timeout, sent) => match r {
            Err(_) => return Err(ClientError::InitTimeout(timeout)),
            Ok(r) => r,
        },
        e = exit.wait_for(|e| e.is_some()) => {
            let info = e.ok().and_then(|e| e.clone());
            return Err(info.map(ClientError::Exited).unwrap_or_else(|| ClientError::Start("agent exited".into())));
        }
    };
    match response {
        Ok(outcome) => Ok(outcome),
        Err(e) => {
            // As v1's: the exit usually follows the closed pipe at once; name it. An answer that
            // is not v2's (Droid and Goose answer 2 in v1's shape) comes from a running agent:
            // no exit to wait for, and auto asks it in v1 at once.
            if agent_client_protocol::is_incoming_transport_closed(&e)
                || agent_client_protocol::is_connection_terminated(&e)
            {
                let mut exit = exit_rx.clone();
                let _ =
                    tokio::time::timeout(std::time::Duration::from_secs(2), exit.wait_for(|e| e.is_some()))
                        .await;
            }
            Err(rpc_error_with(exit_rx, "initialize", &e))
        }
    }
}
