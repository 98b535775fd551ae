//! `porthole-demo-agent`: serves ACP v1 over stdio. Logs go to stderr only.

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    porthole_demo_agent::run_stdio().await
}
