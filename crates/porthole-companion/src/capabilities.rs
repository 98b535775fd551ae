//! The editor's `initialize`: what it can answer itself, and the capabilities the proxy adds
//! when Porthole answers the agent's questions.
//!
//! The capabilities are merged into the editor's `clientCapabilities`, never replaced: its
//! `auth`, `fs`, `terminal`, `_meta` and any field this build does not know stay as they came.
//! Porthole adds `elicitation` (`form` and `url`, beside whatever else the editor's own object
//! holds) and Gemini CLI's host input, `_meta["geminiCli.hostInput"]` (porthole-elicitation's
//! `form::gemini::capability`, one key with a dot, as Gemini reads it).
//!
//! An ACP v2 editor's `initialize` (`protocolVersion` 2) carries `capabilities` instead: the
//! same `elicitation` object goes there (v2's shape is v1's). Host input is Gemini CLI's, a v1
//! agent, which an editor that falls back to v1 offers in its second, v1-shaped `initialize`.

use porthole_elicitation::form::gemini;
use serde_json::{Map, Value, json};

/// Whether the editor's `initialize` params advertise elicitation of its own.
pub fn editor_elicits(params: &Value) -> bool {
    params
        .get(capabilities_key(params))
        .and_then(|caps| caps.get("elicitation"))
        .is_some_and(Value::is_object)
}

/// Where an `initialize`'s capabilities are: `capabilities` in ACP v2, `clientCapabilities` in v1.
fn capabilities_key(params: &Value) -> &'static str {
    let v2 = params
        .get("protocolVersion")
        .and_then(Value::as_u64)
        .is_some_and(|v| v >= 2);
    if v2 { "capabilities" } else { "clientCapabilities" }
}

/// The editor's `initialize` line with Porthole's capabilities merged in; `None` when it is
/// not an object with object params and capabilities (it then goes on as it came), or when it
/// already says all of it.
pub fn merge_into_initialize(line: &[u8]) -> Option<Vec<u8>> {
    let mut message: Value = serde_json::from_slice(line).ok()?;
    let params = message.get_mut("params")?.as_object_mut()?;
    let key = capabilities_key(&Value::Object(params.clone()));
    let v2 = key == "capabilities";
    let caps = params.entry(key).or_insert_with(|| json!({})).as_object_mut()?;
    let before = caps.clone();
    // Porthole answers: an `elicitation` that is not an object (not the schema's) becomes ours.
    let elicitation = caps.entry("elicitation").or_insert_with(|| json!({}));
    if !elicitation.is_object() {
        *elicitation = json!({});
    }
    let elicitation = elicitation.as_object_mut()?;
    for mode in ["form", "url"] {
        elicitation.entry(mode).or_insert_with(|| json!({}));
    }
    // A `_meta` that is not an object is the editor's business: host input is then not offered.
    if !v2 && let Some(meta) = object_entry(caps, "_meta") {
        meta.insert(gemini::CAPABILITY_KEY.into(), gemini::capability());
    }
    if *caps == before {
        return None;
    }
    serde_json::to_vec(&message).ok()
}

/// `map[key]` as an object, made when absent; `None` when it holds something else.
fn object_entry<'a>(map: &'a mut Map<String, Value>, key: &str) -> Option<&'a mut Map<String, Value>> {
    map.entry(key).or_insert_with(|| json!({})).as_object_mut()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn merged(line: &str) -> Value {
        serde_json::from_slice(&merge_into_initialize(line.as_bytes()).unwrap()).unwrap()
    }

    #[test]
    fn the_capabilities_join_the_editors_and_keep_the_rest() {
        let out = merged(
            r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,
            "clientCapabilities":{"fs":{"readTextFile":true},"auth":{"terminal":true},
              "_meta":{"zed":{"x":1}},"futureThing":{"y":[1,2]}},
            "clientInfo":{"name":"acpx"},"_meta":{"x":1}}}"#,
        );
        let caps = &out["params"]["clientCapabilities"];
        assert_eq!(caps["elicitation"], json!({"form": {}, "url": {}}));
        assert_eq!(caps["fs"], json!({"readTextFile": true}));
        assert_eq!(caps["auth"], json!({"terminal": true}));
        assert_eq!(caps["futureThing"], json!({"y": [1, 2]}));
        assert_eq!(caps["_meta"]["zed"], json!({"x": 1}));
        assert_eq!(caps["_meta"]["geminiCli.hostInput"], gemini::capability());
        assert_eq!(out["params"]["clientInfo"], json!({"name": "acpx"}));
        assert_eq!(out["params"]["_meta"], json!({"x": 1}));
        assert_eq!(out["id"], json!(0));
    }

    #[test]
    fn a_v2_initialize_gets_elicitation_in_its_capabilities() {
        let out = merged(
            r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":2,
            "info":{"name":"zed","version":"1"},"capabilities":{"auth":{"terminal":{}}}}}"#,
        );
        let params = &out["params"];
        assert_eq!(
            params["capabilities"],
            json!({"auth": {"terminal": {}}, "elicitation": {"form": {}, "url": {}}})
        );
        assert!(params.get("clientCapabilities").is_none(), "{params}");
        assert!(!editor_elicits(
            &json!({"protocolVersion": 2, "capabilities": {}})
        ));
        assert!(editor_elicits(
            &json!({"protocolVersion": 2, "capabilities": {"elicitation": {"form": {}}}})
        ));
        // A v1 editor's capabilities are where v1 has them, whatever else it sends.
        assert!(!editor_elicits(
            &json!({"protocolVersion": 1, "capabilities": {"elicitation": {}}})
        ));
    }

    #[test]
    fn an_editors_own_elicitation_object_keeps_its_fields() {
        let out = merged(
            r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"clientCapabilities":{"elicitation":{"form":{"x":true},"_meta":{"k":1}}}}}"#,
        );
        assert_eq!(
            out["params"]["clientCapabilities"]["elicitation"],
            json!({"form": {"x": true}, "_meta": {"k": 1}, "url": {}})
        );
    }

    #[test]
    fn missing_capabilities_are_made_and_odd_shapes_are_left_alone() {
        let out =
            merged(r#"{"jsonrpc":"2.0","id":"i","method":"initialize","params":{"protocolVersion":1}}"#);
        assert_eq!(
            out["params"]["clientCapabilities"]["elicitation"]["url"],
            json!({})
        );
        // `_meta` that is not an object: elicitation is added, host input is not.
        let out = merged(
            r#"{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"clientCapabilities":{"_meta":"opaque"}}}"#,
        );
        assert_eq!(out["params"]["clientCapabilities"]["_meta"], "opaque");
        assert!(out["params"]["clientCapabilities"]["elicitation"].is_object());
        for odd in [
            r#"{"jsonrpc":"2.0","id":3,"method":"initialize","params":{"clientCapabilities":null}}"#,
            r#"{"jsonrpc":"2.0","id":3,"method":"initialize","params":[1]}"#,
        ] {
            assert_eq!(merge_into_initialize(odd.as_bytes()), None, "{odd}");
        }
        let out = merged(
            r#"{"jsonrpc":"2.0","id":3,"method":"initialize","params":{"clientCapabilities":{"elicitation":true}}}"#,
        );
        assert_eq!(
            out["params"]["clientCapabilities"]["elicitation"],
            json!({"form": {}, "url": {}})
        );
        // Already all there: the line keeps its bytes.
        let full = format!(
            r#"{{"jsonrpc":"2.0","id":4,"method":"initialize","params":{{"clientCapabilities":{{"elicitation":{{"form":{{}},"url":{{}}}},"_meta":{{"geminiCli.hostInput":{}}}}}}}}}"#,
            gemini::capability()
        );
        assert_eq!(merge_into_initialize(full.as_bytes()), None);
    }

    #[test]
    fn whether_the_editor_elicits() {
        assert!(editor_elicits(
            &json!({"clientCapabilities": {"elicitation": {}}})
        ));
        assert!(!editor_elicits(
            &json!({"clientCapabilities": {"elicitation": true}})
        ));
        assert!(!editor_elicits(&json!({"clientCapabilities": {}})));
        assert!(!editor_elicits(&Value::Null));
    }
}
