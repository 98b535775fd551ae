use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::AsyncWriteExt;

use super::routing::is_request_id;
use super::*;

/// Runs the proxy over in-memory pipes with `script` (sh) as the agent and no app to be
/// had; the editor writes `editor_lines`, then (`None`) leaves at once or (`Some(())`)
/// stays until the agent's output ended. Returns what the editor received and how long
/// the proxy ran.
async fn proxy_with(script: &str, editor_lines: &[&str], stay: Option<()>) -> (Vec<Value>, Duration) {
    let (lines, took) = proxy_raw(script, editor_lines, stay, None).await;
    let seen = lines.iter().map(|l| serde_json::from_str(l).unwrap()).collect();
    (seen, took)
}

/// [`proxy_with`], with the editor's lines as the bytes they came in, and the app's
/// settings file holding `settings` (none: no file).
async fn proxy_raw(
    script: &str,
    editor_lines: &[&str],
    stay: Option<()>,
    settings: Option<&str>,
) -> (Vec<String>, Duration) {
    let dir = tempfile::tempdir().unwrap();
    let mut opts = ProxyOptions::new(vec!["sh".into(), "-c".into(), script.into()]);
    opts.settings_file = Some(dir.path().join("settings.json"));
    if let Some(settings) = settings {
        std::fs::write(dir.path().join("settings.json"), settings).unwrap();
    }
    opts.socket = dir.path().join("no-app.sock");
    opts.launcher = None;
    opts.retry_every = Duration::from_millis(50);
    let (mut editor, proxy_in) = tokio::io::duplex(1 << 16);
    let (proxy_out, mut from_proxy) = tokio::io::duplex(1 << 16);
    for line in editor_lines {
        editor.write_all(line.as_bytes()).await.unwrap();
        editor.write_all(b"\n").await.unwrap();
    }
    let editor = stay.map(|()| editor);
    let t = std::time::Instant::now();
    let proxy = tokio::spawn(run_proxy(opts, proxy_in, proxy_out));
    let mut out = Vec::new();
    let read = async {
        use tokio::io::AsyncReadExt;
        from_proxy.read_to_end(&mut out).await.unwrap();
    };
    // The editor's input stays open until the agent's output ended (the editor then goes).
    tokio::time::timeout(Duration::from_secs(20), read)
        .await
        .expect("the proxy's output ended within 20 s");
    drop(editor);
    tokio::time::timeout(Duration::from_secs(20), proxy)
        .await
        .unwrap()
        .unwrap();
    let lines = String::from_utf8(out).unwrap();
    (lines.lines().map(str::to_string).collect(), t.elapsed())
}

const EDITOR_INIT: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}"#;

/// An agent that asks before it answers `initialize` and answers it only then (issue 32:
/// the question waited for the agent's `initialize` answer, which waited for the question).
/// With no app to be had it gets `cancel`; the editor gets its answer, and no question.
#[tokio::test]
async fn an_elicitation_during_initialize_is_answered_without_the_agents_init() {
    let script = r#"read -r init
printf '%s\n' '{"jsonrpc":"2.0","id":"q","method":"elicitation/create","params":{"mode":"form","message":"m","requestedSchema":{"type":"object","properties":{}}}}'
read -r answer
printf '{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1,"_meta":{"got":%s}}}\n' "$answer""#;
    let (seen, _) = proxy_with(script, &[EDITOR_INIT], Some(())).await;
    assert_eq!(seen.len(), 1, "{seen:?}");
    assert_eq!(seen[0]["id"], 0);
    assert_eq!(
        seen[0]["result"]["_meta"]["got"]["result"]["action"], "cancel",
        "{seen:?}"
    );
}

/// `elicitation/create` with `"id": null`, with no id or with an object id is not a request
/// anyone can answer: it never reaches the editor, which advertised no elicitation.
#[tokio::test]
async fn malformed_elicitation_requests_never_reach_the_editor() {
    let script = r#"read -r init
for id in '"id":null,' '' '"id":{"a":1},'; do
  printf '{"jsonrpc":"2.0",%s"method":"elicitation/create","params":{"mode":"form","message":"m","requestedSchema":{"type":"object"}}}\n' "$id"
done
printf '%s\n' '{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1}}'"#;
    let (seen, _) = proxy_with(script, &[EDITOR_INIT], Some(())).await;
    assert_eq!(
        seen,
        vec![json!({"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1}})]
    );
}

/// The editor leaves and the agent ignores both EOF and SIGTERM: it is killed 3 s after
/// the editor's input ended, as docs/companion.md says (issue 32: 3 s + 3 s).
#[tokio::test]
async fn an_agent_that_ignores_eof_and_sigterm_is_gone_in_3_s() {
    let script = "trap '' TERM; while :; do sleep 0.1; done";
    let (_, took) = proxy_with(script, &[], None).await;
    assert!(took >= Duration::from_millis(2900), "{took:?}");
    assert!(took < Duration::from_millis(4500), "{took:?}");
}

/// The agent's answer to `initialize` carries what it read (`_meta.got`): the editor's
/// line with Porthole's capabilities merged in, the editor's own fields kept.
const ECHO_INIT: &str = r#"read -r init
printf '{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1,"_meta":{"got":%s}}}\n' "$init""#;

#[tokio::test]
async fn the_agent_reads_the_editors_capabilities_with_portholes_merged_in() {
    let editor_init = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{"auth":{"terminal":true},"_meta":{"editor.thing":7},"nextVersionField":[1]}}}"#;
    let (seen, _) = proxy_with(ECHO_INIT, &[editor_init], Some(())).await;
    let caps = &seen[0]["result"]["_meta"]["got"]["params"]["clientCapabilities"];
    assert_eq!(caps["elicitation"], json!({"form": {}, "url": {}}), "{caps}");
    assert_eq!(caps["auth"], json!({"terminal": true}));
    assert_eq!(caps["nextVersionField"], json!([1]));
    assert_eq!(caps["_meta"]["editor.thing"], 7);
    assert_eq!(caps["_meta"]["geminiCli.hostInput"]["requestUserInput"], true);
    // An editor with elicitation of its own answers itself: its line reaches the agent as it was.
    let own = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"clientCapabilities":{"elicitation":{"form":{}}}}}"#;
    let (seen, _) = proxy_with(ECHO_INIT, &[own], Some(())).await;
    assert_eq!(
        seen[0]["result"]["_meta"]["got"],
        serde_json::from_str::<Value>(own).unwrap()
    );
}

/// Batch arrays (ACP v2's draft allows them on stdio) and envelopes of no known shape go
/// both ways byte for byte; the proxy does not look inside a batch.
#[tokio::test]
async fn batches_and_unknown_envelopes_pass_untouched_both_ways() {
    let editor_batch = r#"[{"jsonrpc":"2.0","id":5,"method":"session/prompt","params":{}} ,{"jsonrpc":"2.0","method":"x/y"}]"#;
    let editor_odd = r#"{"jsonrpc":"3.0","envelope":{"inner":true},"method":7}"#;
    let agent_batch = r#"[{"jsonrpc":"2.0","id":"q","method":"elicitation/create","params":{"mode":"form"}},{"jsonrpc":"2.0","method":"session/update","params":{}}]"#;
    let agent_odd = r#"{"jsonrpc":"2.0", "id":9, "weird":{"a":[1,2]}, "result":null}"#;
    let script = format!(
        r#"read -r init
read -r batch
read -r odd
printf '%s\n' '{{"jsonrpc":"2.0","id":0,"result":{{"protocolVersion":1}}}}'
printf '%s\n' "$batch" "$odd" '{agent_batch}' '{agent_odd}'"#
    );
    let (lines, _) = proxy_raw(&script, &[EDITOR_INIT, editor_batch, editor_odd], Some(()), None).await;
    assert_eq!(lines.len(), 5, "{lines:#?}");
    assert_eq!(lines[1], editor_batch);
    assert_eq!(lines[2], editor_odd);
    assert_eq!(lines[3], agent_batch);
    assert_eq!(lines[4], agent_odd);
}

/// With no app to be had, Gemini's host input and Qwen's questions are answered as each
/// reads "nobody answered", and never reach the editor; a plain permission request does.
#[tokio::test]
async fn gemini_and_qwen_questions_are_the_proxys_and_answered_in_their_own_shape() {
    let qwen = porthole_elicitation::form::qwen::example_request(
        "s",
        "c",
        json!([{"question": "Which?", "options": [{"label": "A"}]}]),
    );
    let qwen =
        json!({"jsonrpc": "2.0", "id": "qwen", "method": "session/request_permission", "params": qwen});
    let gemini = porthole_elicitation::form::gemini::example_ask_request("s");
    let gemini = json!({"jsonrpc": "2.0", "id": 7, "method": "_gemini/requestUserInput", "params": gemini});
    let permission = r#"{"jsonrpc":"2.0","id":8,"method":"session/request_permission","params":{"sessionId":"s","options":[],"toolCall":{"toolCallId":"t"}}}"#;
    let script = format!(
        r#"read -r init
printf '%s\n' '{qwen}' '{gemini}' '{permission}'
read -r a
read -r b
printf '{{"jsonrpc":"2.0","id":0,"result":{{"protocolVersion":1,"_meta":{{"got":[%s,%s]}}}}}}\n' "$a" "$b""#
    );
    let (seen, _) = proxy_with(&script, &[EDITOR_INIT], Some(())).await;
    assert_eq!(seen.len(), 2, "{seen:#?}");
    assert_eq!(seen[0]["id"], 8, "the plain permission reaches the editor");
    let got = seen[1]["result"]["_meta"]["got"].as_array().unwrap();
    let by_id = |id: Value| got.iter().find(|a| a["id"] == id).unwrap()["result"].clone();
    assert_eq!(by_id(json!("qwen")), json!({"outcome": {"outcome": "cancelled"}}));
    assert_eq!(by_id(json!(7)), json!({"outcome": "cancelled"}));
}

/// An editor that elicits answers the agent's questions itself, unless the person chose
/// Porthole in Settings: then the question goes to Porthole (here none runs: `cancel`) and
/// the agent learns of host input too.
#[tokio::test]
async fn the_person_chooses_who_answers_when_the_editor_can() {
    let eliciting = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"clientCapabilities":{"elicitation":{"form":{}}}}}"#;
    let script = r#"read -r init
printf '%s
' '{"jsonrpc":"2.0","id":"q","method":"elicitation/create","params":{"mode":"form","message":"m","requestedSchema":{"type":"object","properties":{}}}}'
read -r answer
printf '{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1,"_meta":{"init":%s,"got":%s}}}
' "$init" "$answer""#;
    let porthole = r#"{"editorQuestions": "porthole"}"#;
    let (lines, _) = proxy_raw(script, &[eliciting], Some(()), Some(porthole)).await;
    let seen: Vec<Value> = lines.iter().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(seen.len(), 1, "the editor gets no question: {seen:#?}");
    let meta = &seen[0]["result"]["_meta"];
    assert_eq!(meta["got"]["result"]["action"], "cancel");
    let caps = &meta["init"]["params"]["clientCapabilities"];
    assert_eq!(caps["elicitation"], json!({"form": {}, "url": {}}));
    assert_eq!(caps["_meta"]["geminiCli.hostInput"]["requestUserInput"], true);

    // The editor's choice (and the default, no file): the question is the editor's.
    for settings in [Some(r#"{"editorQuestions": "editor"}"#), None] {
        let editor_answers = r#"read -r init
printf '%s
' '{"jsonrpc":"2.0","id":"q","method":"elicitation/create","params":{}}'"#;
        let (lines, _) = proxy_raw(editor_answers, &[eliciting], Some(()), settings).await;
        assert_eq!(lines.len(), 1, "{settings:?}: {lines:?}");
        assert!(lines[0].contains("elicitation/create"), "{lines:?}");
    }
}

/// "Ask once per agent", not yet answered for this agent: the editor answers this session
/// (the question reaches it), and the proxy links to the app saying whom to ask about.
#[tokio::test]
async fn asking_once_per_agent_links_the_app_and_leaves_the_question_to_the_editor() {
    use tokio::io::{AsyncBufReadExt, BufReader};
    let dir = tempfile::tempdir().unwrap();
    let settings = dir.path().join("settings.json");
    std::fs::write(
        &settings,
        r#"{"editorQuestions": "ask", "editorQuestionsByAgent": {"other": "porthole"}}"#,
    )
    .unwrap();
    let run = dir.path().join("run");
    crate::socket::prepare_dir(&run).unwrap();
    let app = tokio::net::UnixListener::bind(run.join("app.sock")).unwrap();
    let script = r#"read -r init
printf '%s\n' '{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1}}'
printf '%s\n' '{"jsonrpc":"2.0","id":"q","method":"elicitation/create","params":{}}'
read -r done"#;
    let agent: Vec<String> = vec!["sh".into(), "-c".into(), script.into()];
    let mut opts = ProxyOptions::new(agent.clone());
    opts.socket = run.join("app.sock");
    opts.launcher = None;
    opts.retry_every = Duration::from_millis(50);
    opts.settings_file = Some(settings);
    let (mut editor, proxy_in) = tokio::io::duplex(1 << 16);
    let (proxy_out, from_proxy) = tokio::io::duplex(1 << 16);
    let proxy = tokio::spawn(run_proxy(opts, proxy_in, proxy_out));
    let eliciting = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"clientCapabilities":{"elicitation":{"form":{}}}}}"#;
    editor
        .write_all(format!("{eliciting}\n").as_bytes())
        .await
        .unwrap();
    let mut seen = BufReader::new(from_proxy).lines();
    assert!(seen.next_line().await.unwrap().unwrap().contains(r#""id":0"#));
    let question = seen.next_line().await.unwrap().unwrap();
    assert!(
        question.contains("elicitation/create"),
        "the editor answers: {question}"
    );

    let (stream, _) = tokio::time::timeout(Duration::from_secs(10), app.accept())
        .await
        .expect("the proxy links to the app to have the person asked")
        .unwrap();
    let (read, mut write) = stream.into_split();
    let mut lines = BufReader::new(read).lines();
    link::check_hello(lines.next_line().await.unwrap().unwrap().as_bytes()).unwrap();
    let mut welcome = serde_json::to_vec(&link::Welcome::ours()).unwrap();
    welcome.push(b'\n');
    write.write_all(&welcome).await.unwrap();
    let relay = lines.next_line().await.unwrap().unwrap();
    let Ok(Control::Relay { ask_who_answers, .. }) = serde_json::from_str(&relay[1..]) else {
        panic!("{relay}")
    };
    assert_eq!(ask_who_answers, Some(crate::preference::agent_key(&agent)));
    drop(editor);
    let _ = tokio::time::timeout(Duration::from_secs(20), proxy).await;
}

#[test]
fn request_ids_are_numbers_or_strings() {
    for id in ["0", "-3", "12.5", r#""abc""#] {
        assert!(is_request_id(id), "{id}");
    }
    for id in ["null", "{}", "[1]", "true"] {
        assert!(!is_request_id(id), "{id}");
    }
}
