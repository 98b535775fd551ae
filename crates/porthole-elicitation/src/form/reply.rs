//! How the agent that asked a question is answered, whichever agent it was: the one type core
//! keeps with a question's dialog. Each agent's module reads its request into
//! [`Asked`]`<its reply>`; this module joins them (so `questions.rs`, which they build on,
//! knows none of them).

use serde_json::Value;

use super::gemini::GeminiReply;
use super::questions::{Asked, Decision};
use super::qwen::QwenReply;

/// An agent's question request as a form elicitation, answered in that agent's shape.
pub type Translated = Asked<AgentReply>;

/// How the agent that asked is answered: each agent's own response shape.
#[derive(Debug, Clone, PartialEq)]
pub enum AgentReply {
    Qwen(QwenReply),
    Gemini(GeminiReply),
}

impl AgentReply {
    /// The JSON-RPC result for the agent's request.
    pub fn response(&self, decision: Decision<'_>) -> Value {
        match self {
            AgentReply::Qwen(r) => r.response(decision),
            AgentReply::Gemini(r) => r.response(decision),
        }
    }

    /// For logs and the inspector: which extension this is.
    pub fn agent(&self) -> &'static str {
        match self {
            AgentReply::Qwen(_) => "Qwen Code ask_user_question",
            AgentReply::Gemini(_) => "Gemini CLI gemini/requestUserInput",
        }
    }
}

impl From<Asked<GeminiReply>> for Translated {
    fn from(asked: Asked<GeminiReply>) -> Self {
        asked.map_reply(AgentReply::Gemini)
    }
}

impl From<Asked<QwenReply>> for Translated {
    fn from(asked: Asked<QwenReply>) -> Self {
        asked.map_reply(AgentReply::Qwen)
    }
}
