//! Which of an agent's ACP tool calls made a given MCP tool call through the gateway: how an
//! MCP App finds the tool call it is shown under (the window, and `porthole-cli`'s `mcp_app`
//! line). Agents describe an MCP tool call in their own words, seen with the suite's real agents
//! (docs/interop.md, "MCP Apps with real agents"): Claude Code `mcp__NAME__TOOL`, Factory Droid
//! `NAME___TOOL`, OpenCode `NAME_TOOL`, Gemini CLI and Qwen Code `TOOL (NAME MCP Server)`, Goose
//! `NAME: TOOL`, Codex `mcp.NAME.TOOL`, Mistral Vibe `mcp_NAME.TOOL` with a `-` of the tool's
//! name spelled `_`; most send the arguments as `rawInput`, Codex wrapped
//! (`{"server", "tool", "arguments"}`). So a call matches when its title names the tool and its
//! input, when it has one, is the arguments (or holds them under `arguments`, `args`, `input` or
//! `params`). The most recent such call wins; one another app already took does not.

use serde_json::Value;

/// An ACP tool call as the agent described it.
#[derive(Debug, Clone, Copy)]
pub struct AgentToolCall<'a> {
    pub id: &'a str,
    pub title: Option<&'a str>,
    pub raw_input: Option<&'a Value>,
}

/// The id of the agent's tool call, among `recent` (oldest first), that called `tool` with
/// `arguments`; `taken` are ids already matched to another app.
pub fn matching<'a>(
    recent: impl DoubleEndedIterator<Item = AgentToolCall<'a>>,
    tool: &str,
    arguments: &Value,
    taken: &dyn Fn(&str) -> bool,
) -> Option<String> {
    let mut named_without_input = None;
    for call in recent.rev() {
        if taken(call.id) || !call.title.is_some_and(|t| names_tool(t, tool)) {
            continue;
        }
        match call.raw_input {
            Some(input) if same_arguments(input, arguments) => return Some(call.id.to_string()),
            Some(_) => {}
            None => {
                named_without_input.get_or_insert_with(|| call.id.to_string());
            }
        }
    }
    named_without_input
}

/// The title names the tool as a word of its own (`get-time` in `mcp__basic__get-time`,
/// `mcp.basic.get-time` or `Run get-time`, not in `get-timezone`), as it is spelled or with
/// anything but letters, digits and `_` spelled `_` (`mcp_basic.get_time`).
fn names_tool(title: &str, tool: &str) -> bool {
    let title = title.to_lowercase();
    let tool = tool.to_lowercase();
    let underscored: String = tool
        .chars()
        .map(|c| match c.is_alphanumeric() || c == '_' {
            true => c,
            false => '_',
        })
        .collect();
    // `_` is no part of a word here: `mcp__server__tool` separates with it; nor is a `.` before
    // the name (`mcp.server.tool`), while one after it (`tool.v2`) makes another name.
    let part_before = |c: char| c.is_alphanumeric() || c == '-';
    let part_after = |c: char| c.is_alphanumeric() || c == '-' || c == '.';
    [tool, underscored].iter().any(|tool| {
        !tool.is_empty()
            && title.match_indices(tool.as_str()).any(|(at, _)| {
                let before = title[..at].chars().next_back();
                let after = title[at + tool.len()..].chars().next();
                !before.is_some_and(part_before) && !after.is_some_and(part_after)
            })
    })
}

/// The agent's input is the arguments, or holds them under `arguments`, `args`, `input` or
/// `params` (Codex: `{"server", "tool", "arguments"}`); `{}` and none are the same.
fn same_arguments(input: &Value, arguments: &Value) -> bool {
    let empty = |v: &Value| v.is_null() || v.as_object().is_some_and(|o| o.is_empty());
    let same = |v: &Value| v == arguments || (empty(v) && empty(arguments));
    same(input)
        || ["arguments", "args", "input", "params"]
            .iter()
            .any(|k| input.get(k).is_some_and(same))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn call<'a>(id: &'a str, title: &'a str, input: Option<&'a Value>) -> AgentToolCall<'a> {
        AgentToolCall {
            id,
            title: Some(title),
            raw_input: input,
        }
    }

    #[test]
    fn the_latest_call_naming_the_tool_with_the_same_input_matches() {
        let a = json!({"city": "Oslo"});
        let b = json!({"city": "Bergen"});
        let calls = [
            call("1", "mcp__weather__forecast", Some(&a)),
            call("2", "mcp__weather__forecast", Some(&b)),
            call("3", "Read file", Some(&a)),
        ];
        let none = |_: &str| false;
        assert_eq!(
            matching(calls.iter().copied(), "forecast", &a, &none).as_deref(),
            Some("1")
        );
        assert_eq!(
            matching(calls.iter().copied(), "forecast", &b, &none).as_deref(),
            Some("2")
        );
        assert_eq!(
            matching(calls.iter().copied(), "forecast", &json!({"city": "Rome"}), &none),
            None
        );
        // Taken by another app: the next one.
        let twice = [call("1", "forecast", Some(&a)), call("2", "forecast", Some(&a))];
        assert_eq!(
            matching(twice.iter().copied(), "forecast", &a, &|id| id == "2").as_deref(),
            Some("1")
        );
    }

    #[test]
    fn titles_name_the_tool_as_a_word() {
        for title in [
            "get-time",
            "mcp__basic__get-time",
            "basic: get-time",
            "Calling get-time (MCP)",
            "GET-TIME",
        ] {
            assert!(names_tool(title, "get-time"), "{title}");
        }
        // The suite's real agents (docs/interop.md).
        for title in [
            "mcp.basic.get-time",
            "mcp_basic.get_time",
            "basic___get-time",
            "basic_get-time",
            "get-time (basic MCP Server): {}",
        ] {
            assert!(names_tool(title, "get-time"), "{title}");
        }
        for title in [
            "get-timezone",
            "forget-time",
            "mcp__basic__get-times",
            "get-time.v2",
            "mcp.basic.time",
            "",
        ] {
            assert!(!names_tool(title, "get-time"), "{title}");
        }
    }

    #[test]
    fn codexs_wrapped_input_holds_the_arguments() {
        let a = json!({"city": "Oslo"});
        let wrapped = json!({"server": "weather", "tool": "forecast", "arguments": {"city": "Oslo"}});
        let other = json!({"server": "weather", "tool": "forecast", "arguments": {"city": "Rome"}});
        let calls = [
            call("1", "mcp.weather.forecast", Some(&wrapped)),
            call("2", "mcp.weather.forecast", Some(&other)),
        ];
        assert_eq!(
            matching(calls.iter().copied(), "forecast", &a, &|_| false).as_deref(),
            Some("1")
        );
        let empty = json!({"server": "basic", "tool": "get-time", "arguments": {}});
        let calls = [call("1", "mcp.basic.get-time", Some(&empty))];
        assert_eq!(
            matching(calls.iter().copied(), "get-time", &json!({}), &|_| false).as_deref(),
            Some("1")
        );
    }

    #[test]
    fn a_call_without_input_matches_by_its_title_alone_and_empty_arguments_are_none() {
        let calls = [call("1", "get-time", None)];
        assert_eq!(
            matching(calls.iter().copied(), "get-time", &json!({"x": 1}), &|_| false).as_deref(),
            Some("1")
        );
        let empty = json!({});
        let calls = [call("1", "get-time", Some(&empty))];
        assert_eq!(
            matching(calls.iter().copied(), "get-time", &Value::Null, &|_| false).as_deref(),
            Some("1")
        );
    }
}
