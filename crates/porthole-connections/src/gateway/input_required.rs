//! A `tools/call` answered with an `input_required` result (MCP 2026-07-28, "multi round-trip
//! requests"): instead of asking with `elicitation/create` on a stream, the server returns its
//! questions in the result and expects the same call again with the answers. The shapes, from
//! the revision's MRTR page (modelcontextprotocol.io/specification/2026-07-28/basic/patterns/mrtr)
//! and the official TypeScript SDK that implements it (`@modelcontextprotocol/server` 2.4.0):
//!
//! ```text
//! result: {"resultType": "input_required",
//!          "inputRequests": {KEY: {"method": "elicitation/create", "params": {...}}, ...},
//!          "requestState": "opaque"}                       (requestState optional)
//! retry:  the same request, params + {"inputResponses": {KEY: ElicitResult, ...},
//!                                     "requestState": "opaque"}  (echoed when given)
//! ```
//!
//! Each `elicitation/create` goes through the same path as a server's streamed question
//! ([`Answering::answer`]: the owner's dialog, the caps, the rate), so a person sees one kind of
//! question whichever revision the server speaks. Anything else (`sampling/createMessage`,
//! `roots/list`, a malformed request) the gateway cannot answer: the result goes to the agent as
//! it came. At most [`ROUNDS`] rounds per call, then the last result goes to the agent.

use bytes::Bytes;
use serde_json::{Map, Value, json};

use super::questions::Answering;
use super::sse::INPUT_REQUIRED;

/// The most `input_required` rounds the gateway answers for one tool call (a server that keeps
/// asking cannot hold the call, or the person, forever).
pub(crate) const ROUNDS: u8 = 4;

/// The most questions one round may carry.
const REQUESTS_CAP: usize = 8;

/// Whether `message` is an `input_required` result to the request `id`.
pub(crate) fn is_input_required(message: &Value, id: &Value) -> bool {
    message.get("id") == Some(id) && message["result"]["resultType"] == INPUT_REQUIRED
}

/// Ask each of the result's `inputRequests` and build the retry of `original` (the agent's
/// request) with their answers; `None` when the gateway cannot answer every one of them.
pub(crate) async fn retry_body(answering: &Answering, original: &Bytes, message: &Value) -> Option<Bytes> {
    let result = &message["result"];
    let requests = result["inputRequests"].as_object()?;
    if requests.is_empty() || requests.len() > REQUESTS_CAP {
        tracing::warn!(
            connection = answering.connection,
            count = requests.len(),
            "an input_required result Porthole does not answer: passed on"
        );
        return None;
    }
    let mut responses = Map::new();
    for (key, request) in requests {
        if request["method"] != "elicitation/create" {
            tracing::warn!(
                connection = answering.connection,
                method = %request["method"],
                "an input request Porthole cannot answer: the result goes to the agent"
            );
            return None;
        }
        // A 2026-07-28 URL request has no `elicitationId` (the server correlates through
        // `requestState`); the one the gateway needs to track the question is its own.
        let mut params = request["params"].clone();
        if params["mode"] == "url"
            && let Some(p) = params.as_object_mut()
        {
            p.entry("elicitationId")
                .or_insert_with(|| json!(format!("porthole-input-{key}")));
        }
        let asked = json!({"jsonrpc": "2.0", "id": format!("porthole-input-{key}"),
            "method": "elicitation/create", "params": params});
        match answering.answer(&asked).await {
            Ok(answer) => {
                responses.insert(key.clone(), answer);
            }
            Err((_, reason)) => {
                tracing::warn!(connection = answering.connection, %reason, "an input request Porthole refuses");
                return None;
            }
        }
    }
    let mut retry: Value = serde_json::from_slice(original).ok()?;
    let params = retry.get_mut("params")?.as_object_mut()?;
    params.insert("inputResponses".into(), Value::Object(responses));
    match result.get("requestState") {
        Some(state) => params.insert("requestState".into(), state.clone()),
        None => params.remove("requestState"),
    };
    Some(Bytes::from(retry.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_an_input_required_result_to_the_request_counts() {
        let m = json!({"jsonrpc": "2.0", "id": 3, "result": {"resultType": "input_required", "inputRequests": {}}});
        assert!(is_input_required(&m, &json!(3)));
        assert!(!is_input_required(&m, &json!(4)));
        let done = json!({"jsonrpc": "2.0", "id": 3, "result": {"resultType": "complete", "content": []}});
        assert!(!is_input_required(&done, &json!(3)));
        assert!(!is_input_required(
            &json!({"jsonrpc": "2.0", "id": 3, "result": {"content": []}}),
            &json!(3)
        ));
    }
}
