//! Which of a session's ACP tool calls made a call of an MCP App's tool: the one rule the CLI
//! (`porthole-cli --json`'s `mcp_app` line) and the window (the app shown under its tool call)
//! both use.
//!
//! The gateway knows the MCP call (connection, tool, arguments); the agent reports its own ACP
//! `tool_call` for it, named its own way: Claude Code `mcp__<server>__<tool>` (as `title` and
//! `name`, the input as `rawInput`), Factory Droid `<server>___<tool>`, OpenCode
//! `<server>_<tool>`, Gemini CLI and Qwen Code `<tool> (<server> MCP Server)`, Goose and
//! Porthole's demo agent `<server>: <tool>`, Codex `mcp.<server>.<tool>`, Mistral Vibe
//! `mcp_<server>.<tool>` (Codex and Vibe spell a `-` in the name as `_`); some wrap the input (`{"server", "tool", "arguments"}`). So a tool call
//! matches when its `name`, `title` or `_meta.claudeCode.toolName` names the tool (better: the
//! connection too), and its `rawInput` is the arguments (or holds them under `arguments`,
//! `args`, `input` or `params`), or it has no `rawInput` yet. A `rawInput` that is something
//! else rules it out. The best match wins; among equals, the latest; tool calls already matched
//! to an earlier app call are skipped.

use agent_client_protocol::v1::schema::{ToolCall, ToolCallId};
use serde_json::Value;

/// The id of the tool call in `tool_calls` (the session's, in the order the agent reported
/// them) that made the call of `tool` on `connection` with `arguments`; `None` when none
/// matches. `taken`: ids already matched to other app calls.
pub fn tool_call_for(
    connection: &str,
    tool: &str,
    arguments: &Value,
    tool_calls: &[ToolCall],
    taken: &[ToolCallId],
) -> Option<ToolCallId> {
    let mut best: Option<(u32, &ToolCall)> = None;
    for call in tool_calls {
        if taken.contains(&call.tool_call_id) {
            continue;
        }
        let Some(named) = naming(call, connection, tool) else {
            continue;
        };
        let Some(input) = input_matches(call.raw_input.as_ref(), arguments) else {
            continue;
        };
        let score = named + input;
        // `>=`: among equals, the latest.
        if best.is_none_or(|(b, _)| score >= b) {
            best = Some((score, call));
        }
    }
    best.map(|(_, call)| call.tool_call_id.clone())
}

/// How well the tool call's names name `tool` (and `connection`): `None` when they do not.
fn naming(call: &ToolCall, connection: &str, tool: &str) -> Option<u32> {
    let meta_name = call
        .meta
        .as_ref()
        .and_then(|m| m.get("claudeCode"))
        .and_then(|c| c.get("toolName"))
        .and_then(Value::as_str);
    [call.name.as_deref(), Some(call.title.as_str()), meta_name]
        .into_iter()
        .flatten()
        .filter_map(|name| naming_in(name, connection, tool))
        .max()
}

fn naming_in(name: &str, connection: &str, tool: &str) -> Option<u32> {
    let name = name.trim();
    let tools = [tool.to_string(), spelled(tool, false)];
    if tools.iter().any(|t| name == t) {
        return Some(3);
    }
    if !tools.iter().any(|t| has_word(name, t)) {
        return None;
    }
    let connections = [
        connection.to_string(),
        spelled(connection, true),
        spelled(connection, false),
    ];
    Some(match connections.iter().any(|c| has_word(name, c)) {
        true => 3,
        false => 1,
    })
}

/// A name as agents spell it in their tool names: anything but letters, digits, `_` (and `-`,
/// with `keep_dash`: Claude Code's server names) becomes `_` (Codex and Mistral Vibe spell
/// `get-time` as `get_time`).
fn spelled(name: &str, keep_dash: bool) -> String {
    name.chars()
        .map(
            |c| match c.is_ascii_alphanumeric() || c == '_' || (keep_dash && c == '-') {
                true => c,
                false => '_',
            },
        )
        .collect()
}

/// `word` occurs in `text` as a word: no letter, digit or `-` right before or after it, and
/// no `_` after it unless doubled (`apps__x`). A `_` before it counts as a separator
/// (`apps_x`, `mcp__apps__x`), so `chart` is a word of `show_chart`: the arguments then tell
/// such tools apart. `time` is not a word of `get-time`.
fn has_word(text: &str, word: &str) -> bool {
    if word.is_empty() {
        return false;
    }
    let identifier = |c: char| c.is_alphanumeric() || c == '-' || c == '_';
    let bytes = text.as_bytes();
    text.match_indices(word).any(|(at, _)| {
        let end = at + word.len();
        let before = text[..at].chars().next_back();
        let after = text[end..].chars().next();
        // A `_` before it: a prefix separator (`apps_x`, `mcp__apps__x`).
        let left = match before {
            None => true,
            Some('_') => true,
            Some(c) => !identifier(c),
        };
        // A `_` after it: a suffix separator only when doubled (`apps__x`).
        let right = match after {
            None => true,
            Some('_') => bytes.get(end + 1) == Some(&b'_'),
            Some(c) => !identifier(c),
        };
        left && right
    })
}

/// Whether the tool call's `rawInput` is the call's arguments: `Some(2)` it is (or holds them),
/// `Some(0)` it has none to compare, `None` it is something else.
fn input_matches(raw: Option<&Value>, arguments: &Value) -> Option<u32> {
    let arguments = match arguments {
        Value::Null => &Value::Object(Default::default()),
        a => a,
    };
    let Some(raw) = raw.filter(|r| !r.is_null()) else {
        return Some(0);
    };
    if raw == arguments {
        return Some(2);
    }
    let wrapped = ["arguments", "args", "input", "params"]
        .iter()
        .any(|k| raw.get(k) == Some(arguments));
    wrapped.then_some(2)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn call(v: Value) -> ToolCall {
        serde_json::from_value(v).unwrap()
    }

    #[test]
    fn each_agents_way_of_naming_an_mcp_tool_call_matches() {
        let args = json!({"data": [1, 2]});
        for (title, name, raw) in [
            // Claude Code: title and name `mcp__<server>__<tool>`.
            (
                "mcp__charts__show_chart",
                Some("mcp__charts__show_chart"),
                Some(args.clone()),
            ),
            // `<server>__<tool>`, Factory Droid, OpenCode.
            ("charts__show_chart", None, Some(args.clone())),
            ("charts___show_chart", None, Some(args.clone())),
            ("charts_show_chart", None, Some(args.clone())),
            // Gemini CLI, Qwen Code.
            ("show_chart (charts MCP Server)", None, Some(args.clone())),
            // The demo agent.
            ("charts: show_chart", None, Some(args.clone())),
            // Codex, Mistral Vibe (which spell a `-` as `_`: see the next test).
            ("mcp.charts.show_chart", None, Some(args.clone())),
            ("mcp_charts.show_chart", None, Some(args.clone())),
            // Wrapped input; no input yet.
            (
                "Tool: charts/show_chart",
                None,
                Some(json!({"server": "charts", "tool": "show_chart", "arguments": args})),
            ),
            ("show_chart", None, None),
        ] {
            let mut v = json!({"toolCallId": "t1", "title": title, "rawInput": raw});
            if let Some(n) = name {
                v["name"] = json!(n);
            }
            assert_eq!(
                tool_call_for("charts", "show_chart", &args, &[call(v)], &[]),
                Some(ToolCallId::new("t1")),
                "{title}"
            );
        }
    }

    #[test]
    fn other_tools_other_arguments_and_taken_calls_do_not_match() {
        let args = json!({"data": [1, 2]});
        let calls = [
            call(
                json!({"toolCallId": "read", "title": "Read file", "kind": "read", "rawInput": {"path": "/x"}}),
            ),
            call(json!({"toolCallId": "other", "title": "mcp__charts__show_chart_v2", "rawInput": args})),
            call(
                json!({"toolCallId": "wrong-args", "title": "mcp__charts__show_chart", "rawInput": {"data": [9]}}),
            ),
            call(json!({"toolCallId": "sub", "title": "mcp__charts__chart", "rawInput": args})),
        ];
        assert_eq!(tool_call_for("charts", "show_chart", &args, &calls, &[]), None);
        assert_eq!(
            tool_call_for("charts", "chart", &args, &calls, &[]),
            Some(ToolCallId::new("sub"))
        );
        let one = [call(
            json!({"toolCallId": "a", "title": "mcp__charts__show_chart", "rawInput": args}),
        )];
        assert_eq!(
            tool_call_for("charts", "show_chart", &args, &one, &[ToolCallId::new("a")]),
            None
        );
    }

    #[test]
    fn the_best_match_wins_then_the_latest() {
        let args = json!({});
        let calls = [
            call(json!({"toolCallId": "old", "title": "mcp__charts__get-time", "rawInput": {}})),
            call(json!({"toolCallId": "no-input", "title": "mcp__charts__get-time"})),
            call(json!({"toolCallId": "other-server", "title": "mcp__clock__get-time", "rawInput": {}})),
            call(json!({"toolCallId": "new", "title": "mcp__charts__get-time", "rawInput": {}})),
        ];
        assert_eq!(
            tool_call_for("charts", "get-time", &args, &calls, &[]),
            Some(ToolCallId::new("new"))
        );
        assert_eq!(
            tool_call_for(
                "charts",
                "get-time",
                &Value::Null,
                &calls,
                &[ToolCallId::new("new")]
            ),
            Some(ToolCallId::new("old"))
        );
        // `time` is not a word of `get-time`.
        assert_eq!(tool_call_for("charts", "time", &args, &calls, &[]), None);
        // Mistral Vibe's spelling of `get-time`.
        let vibe = [call(
            json!({"toolCallId": "v", "title": "mcp_charts.get_time", "rawInput": {}}),
        )];
        assert_eq!(
            tool_call_for("charts", "get-time", &args, &vibe, &[]),
            Some(ToolCallId::new("v"))
        );
    }
}
