//! The agent's questions the proxy takes to the app, whatever their wire shape: the standard
//! `elicitation/create`, Gemini CLI's host input (`gemini/requestUserInput`) and Qwen Code's
//! `ask_user_question` (a `session/request_permission` with `_meta.qwenQuestions`).
//!
//! The proxy only recognises them and hands their lines over unchanged: the app's core reads
//! each into the same form (porthole-elicitation's `form::gemini` and `form::qwen`, the one
//! place each extension is translated) and answers the agent in its own shape. What the proxy
//! must know itself is the answer when no app can be had, which it takes from those modules.

use porthole_elicitation::form::{gemini, qwen};
use serde_json::value::RawValue;
use serde_json::{Value, json};

/// A question an agent asks its client.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Elicitation,
    /// Gemini CLI's `gemini/requestUserInput` (as its SDK sends it, `_gemini/...`).
    HostInput,
    /// Qwen Code's questions, inside a permission request.
    QwenQuestions,
}

impl Kind {
    /// What kind of question an agent's request is (`None`: not a question).
    pub fn of(method: &str, params: Option<&RawValue>) -> Option<Kind> {
        match method {
            "elicitation/create" => Some(Kind::Elicitation),
            m if gemini::METHODS.contains(&m) => Some(Kind::HostInput),
            // Only permission requests are parsed, and only to find Qwen's marker.
            "session/request_permission" => params
                .and_then(|p| serde_json::from_str::<Value>(p.get()).ok())
                .filter(qwen::is_question)
                .map(|_| Kind::QwenQuestions),
            _ => None,
        }
    }

    /// The agent's answer when nobody could ask the user (no app, the app closed).
    pub fn undecided(self) -> Value {
        match self {
            Kind::Elicitation => json!({"action": "cancel"}),
            Kind::HostInput => gemini::undecided(),
            Kind::QwenQuestions => qwen::undecided(),
        }
    }

    /// The JSON-RPC line with that answer to request `id` (its JSON text).
    pub fn undecided_line(self, id: &str) -> Vec<u8> {
        let mut line = format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{}}}"#, self.undecided()).into_bytes();
        line.push(b'\n');
        line
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw(v: Value) -> Box<RawValue> {
        RawValue::from_string(v.to_string()).unwrap()
    }

    #[test]
    fn each_extension_is_recognised_by_its_own_marker() {
        assert_eq!(Kind::of("elicitation/create", None), Some(Kind::Elicitation));
        assert_eq!(Kind::of("_gemini/requestUserInput", None), Some(Kind::HostInput));
        assert_eq!(Kind::of("gemini/requestUserInput", None), Some(Kind::HostInput));
        let asking = qwen::example_request("s", "c", json!([{"question": "Which?", "options": []}]));
        assert_eq!(
            Kind::of("session/request_permission", Some(&raw(asking.clone()))),
            Some(Kind::QwenQuestions)
        );
        let mut tool = asking;
        tool["toolCall"]["_meta"]["qwenInteractionKind"] = json!("tool");
        assert_eq!(Kind::of("session/request_permission", Some(&raw(tool))), None);
        assert_eq!(Kind::of("session/request_permission", None), None);
        assert_eq!(Kind::of("fs/read_text_file", None), None);
    }

    #[test]
    fn with_no_app_each_agent_is_told_nobody_answered_in_its_own_shape() {
        let answer = |k: Kind| -> Value { serde_json::from_slice(&k.undecided_line(r#""q""#)).unwrap() };
        assert_eq!(answer(Kind::Elicitation)["result"], json!({"action": "cancel"}));
        assert_eq!(answer(Kind::HostInput)["result"], json!({"outcome": "cancelled"}));
        assert_eq!(
            answer(Kind::QwenQuestions)["result"],
            json!({"outcome": {"outcome": "cancelled"}})
        );
        assert_eq!(answer(Kind::QwenQuestions)["id"], "q");
    }
}
