use std::collections::BTreeSet;
use std::path::PathBuf;

use serde_json::{Map, json};

use super::*;

/// Kinds of the SDK (schema 1.17, stable) that the specification snapshot in
/// `shared/acp-spec/v1/schema.json` predates (its README says so), each as an agent sends it.
/// When the snapshot gains one, the test below fails until it leaves this list; a kind the SDK
/// gains beyond the snapshot needs its sample here.
fn beyond_the_schema() -> Vec<Value> {
    vec![
        json!({"sessionUpdate": "notice", "severity": "warning", "title": "Quota", "description": "80% used"}),
        json!({"sessionUpdate": "compaction_update", "compactionId": "c1", "status": "completed"}),
        json!({"sessionUpdate": "compaction_summary_chunk", "compactionId": "c1", "content": {"type": "text", "text": "so far"}}),
    ]
}

fn schema() -> Value {
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    for dir in manifest.ancestors() {
        for candidate in [
            dir.join("shared/acp-spec/v1/schema.json"),
            dir.join("../shared/acp-spec/v1/schema.json"),
        ] {
            if let Ok(text) = std::fs::read_to_string(&candidate) {
                return serde_json::from_str(&text).expect("the ACP schema is JSON");
            }
        }
    }
    panic!("ACP schema not found: expected shared/acp-spec/v1/schema.json beside the repository");
}

/// The `sessionUpdate` values the schema's `SessionUpdate` lists, and each one's variant.
fn schema_kinds(schema: &Value) -> Vec<(String, Value)> {
    schema["$defs"]["SessionUpdate"]["oneOf"]
        .as_array()
        .expect("SessionUpdate is a oneOf")
        .iter()
        .map(|v| {
            let kind = v["properties"]["sessionUpdate"]["const"]
                .as_str()
                .expect("each variant names its sessionUpdate")
                .to_string();
            (kind, v.clone())
        })
        .collect()
}

/// The kinds the SDK's `SessionUpdate` reads, as its parse of an unknown kind lists them
/// ("unknown variant `x`, expected one of `a`, `b`, ..."): the SDK's own list, whatever its
/// version and features.
fn sdk_kinds() -> BTreeSet<String> {
    let err = serde_json::from_value::<SessionUpdate>(json!({"sessionUpdate": "__porthole_probe__"}))
        .expect_err("no such kind")
        .to_string();
    let listed = err
        .split_once("expected one of")
        .expect("serde lists the kinds")
        .1;
    listed.split('`').skip(1).step_by(2).map(str::to_string).collect()
}

/// A smallest instance of a schema: required properties only, the first of each choice.
fn instance(schema: &Value, defs: &Value) -> Value {
    if let Some(r) = schema["$ref"].as_str() {
        let name = r.strip_prefix("#/$defs/").expect("local refs");
        return instance(&defs[name], defs);
    }
    if let Some(c) = schema.get("const") {
        return c.clone();
    }
    if let Some(e) = schema["enum"].as_array() {
        return e[0].clone();
    }
    for choice in ["oneOf", "anyOf"] {
        if let Some(options) = schema[choice].as_array() {
            let option = options
                .iter()
                .find(|o| o["type"] != "null")
                .expect("a non-null choice");
            let mut merged = schema.clone();
            merged.as_object_mut().unwrap().remove(choice);
            let base = instance(&merged, defs);
            let chosen = instance(option, defs);
            return merge(base, chosen);
        }
    }
    let mut value = match &schema["type"] {
        Value::String(t) => scalar(t),
        Value::Array(types) => scalar(
            types
                .iter()
                .filter_map(Value::as_str)
                .find(|t| *t != "null")
                .unwrap_or("null"),
        ),
        _ => Value::Null,
    };
    if let Some(all) = schema["allOf"].as_array() {
        for part in all {
            value = merge(value, instance(part, defs));
        }
    }
    if let (Some(props), Some(required)) = (schema["properties"].as_object(), schema["required"].as_array()) {
        let mut object = value.as_object().cloned().unwrap_or_default();
        for name in required.iter().filter_map(Value::as_str) {
            object.insert(name.to_string(), instance(&props[name], defs));
        }
        value = Value::Object(object);
    }
    value
}

fn scalar(t: &str) -> Value {
    match t {
        "object" => Value::Object(Map::new()),
        "array" => json!([]),
        "string" => json!("x"),
        "integer" | "number" => json!(1),
        "boolean" => json!(false),
        _ => Value::Null,
    }
}

fn merge(a: Value, b: Value) -> Value {
    match (a, b) {
        (Value::Object(mut a), Value::Object(b)) => {
            a.extend(b);
            Value::Object(a)
        }
        (Value::Null, b) => b,
        (a, Value::Null) => a,
        (_, b) => b,
    }
}

/// The SDK's update from its JSON, Porthole's from the SDK's, and the check that Porthole's
/// models it and writes it back as the SDK does.
fn modeled(raw: &Value) -> TranscriptUpdate {
    let sdk: SessionUpdate =
        serde_json::from_value(raw.clone()).unwrap_or_else(|e| panic!("the SDK reads {raw}: {e}"));
    let sdk_json = serde_json::to_string(&sdk).unwrap();
    let update = TranscriptUpdate::from(sdk);
    assert!(
        !matches!(update, TranscriptUpdate::Item(ItemUpdate::Unknown(_))),
        "Porthole models {raw}"
    );
    assert_eq!(
        serde_json::to_string(&update.wire()).unwrap(),
        sdk_json,
        "written back as the SDK writes {raw}"
    );
    update
}

/// The ACP schema's `SessionUpdate` kinds, the SDK's and Porthole's are one list (the kinds the
/// SDK has beyond the schema snapshot named above): each is read into a kind of Porthole's,
/// none falls to `Unknown`, and each is written back for `--json` as the SDK writes it.
#[test]
fn the_schema_and_the_model_name_the_same_kinds() {
    let schema = schema();
    let variants = schema_kinds(&schema);
    let in_schema: BTreeSet<String> = variants.iter().map(|(k, _)| k.clone()).collect();
    let samples = beyond_the_schema();
    let beyond: BTreeSet<String> = samples
        .iter()
        .map(|raw| raw["sessionUpdate"].as_str().unwrap().to_string())
        .collect();
    let porthole: BTreeSet<String> = V1_KINDS.iter().map(|k| k.to_string()).collect();
    assert_eq!(porthole.len(), V1_KINDS.len(), "V1_KINDS has no duplicate");
    assert!(
        in_schema.is_disjoint(&beyond),
        "the schema now has {:?}: take them off beyond_the_schema()",
        in_schema.intersection(&beyond).collect::<Vec<_>>()
    );
    let expected: BTreeSet<String> = in_schema.union(&beyond).cloned().collect();
    assert_eq!(
        porthole, expected,
        "V1_KINDS follows the schema's SessionUpdate (and the kinds of beyond_the_schema())"
    );
    assert_eq!(
        sdk_kinds(),
        porthole,
        "the SDK's SessionUpdate has other kinds than Porthole models: add them to V1_KINDS and \
         to the conversion (a kind the SDK gained lands in its `newer` arm as Unknown)"
    );

    // Every kind of the schema, as its smallest valid instance.
    let defs = &schema["$defs"];
    for (kind, variant) in &variants {
        let raw = instance(variant, defs);
        assert_eq!(raw["sessionUpdate"], json!(kind));
        modeled(&raw);
    }
    // The SDK's kinds the schema snapshot does not have.
    for raw in &samples {
        modeled(raw);
    }
}

/// Updates as agents send them (hidden characters, annotations, `_meta`, every optional field):
/// `--json` writes each one back byte for byte as the SDK does.
#[test]
fn the_wire_form_is_the_sdks() {
    for raw in [
        r#"{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"00000001 chunk"}}"#,
        r#"{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"a\u009b2J\u202e\u2028é 例","annotations":{"priority":0.5,"audience":["user"]}},"messageId":"m1","_meta":{"z":1,"a":[true,null,1.5e300]}}"#,
        r#"{"sessionUpdate":"agent_thought_chunk","content":{"type":"text","text":"thinking"}}"#,
        r#"{"sessionUpdate":"user_message_chunk","content":{"type":"image","data":"AAAA","mimeType":"image/png"}}"#,
        r#"{"sessionUpdate":"tool_call","toolCallId":"t1","title":"Edit\u200bfile","kind":"edit","status":"pending","content":[{"type":"diff","path":"/a/b","oldText":"x","newText":"y"},{"type":"content","content":{"type":"text","text":"out"}}],"locations":[{"path":"/a/b","line":3}],"rawInput":{"b":2,"a":1}}"#,
        r#"{"sessionUpdate":"tool_call","toolCallId":"t2","title":"Read"}"#,
        r#"{"sessionUpdate":"tool_call","toolCallId":"t3","title":"Think","kind":"think","status":"in_progress","_meta":{"x":1}}"#,
        r#"{"sessionUpdate":"tool_call_update","toolCallId":"t1","status":"completed","rawOutput":{"ok":true}}"#,
        r#"{"sessionUpdate":"tool_call_update","toolCallId":"t1","title":"Edit b","kind":"edit","content":[],"_meta":{"y":2}}"#,
        r#"{"sessionUpdate":"plan","entries":[{"content":"step","priority":"high","status":"in_progress"}]}"#,
        r#"{"sessionUpdate":"available_commands_update","availableCommands":[{"name":"web","description":"search","input":{"hint":"query"}}]}"#,
        r#"{"sessionUpdate":"current_mode_update","currentModeId":"code"}"#,
        r#"{"sessionUpdate":"usage_update","used":12,"size":100,"cost":{"amount":0.1,"currency":"USD"}}"#,
        r#"{"sessionUpdate":"session_info_update","title":"T","updatedAt":"2026-01-01T00:00:00Z"}"#,
        r#"{"sessionUpdate":"session_info_update","title":null}"#,
    ] {
        modeled(&serde_json::from_str(raw).unwrap());
    }
}

/// What the window receives: one `kind` tag per update; messages with their role, `op` and
/// content; a v1 `tool_call` as the fields its JSON had (no default filled in).
#[test]
fn the_window_gets_kind_tagged_updates() {
    let window = |raw: Value| serde_json::to_value(modeled(&raw)).unwrap();
    assert_eq!(
        window(
            json!({"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "hi"}, "messageId": "m1"})
        ),
        json!({"kind": "message", "role": "agent", "messageId": "m1", "op": "append", "content": {"type": "text", "text": "hi"}})
    );
    assert_eq!(
        window(json!({"sessionUpdate": "user_message_chunk", "content": {"type": "text", "text": "q"}})),
        json!({"kind": "message", "role": "user", "messageId": null, "op": "append", "content": {"type": "text", "text": "q"}})
    );
    assert_eq!(
        window(json!({"sessionUpdate": "tool_call", "toolCallId": "t1", "title": "Read"})),
        json!({"kind": "tool_call", "toolCallId": "t1", "opened": true, "fields": {"title": "Read"}})
    );
    assert_eq!(
        window(json!({"sessionUpdate": "tool_call_update", "toolCallId": "t1", "status": "completed"})),
        json!({"kind": "tool_call", "toolCallId": "t1", "opened": false, "fields": {"status": "completed"}})
    );
    assert_eq!(
        window(json!({"sessionUpdate": "current_mode_update", "currentModeId": "code"})),
        json!({"kind": "current_mode", "currentModeId": "code"})
    );
    assert_eq!(
        window(json!({"sessionUpdate": "usage_update", "used": 1, "size": 2})),
        json!({"kind": "usage", "used": 1, "size": 2})
    );
}

/// A kind the SDK does not know is kept whole under its name; the CLI says so in words, and
/// writes it back for `--json` exactly as it came.
#[test]
fn an_unknown_kind_is_kept_and_named() {
    let raw = json!({"sessionUpdate": "_vendor_progress", "percent": 40, "nested": {"a": [1, 2]}});
    let update = TranscriptUpdate::unknown("_vendor_progress".into(), raw.clone());
    assert_eq!(update.kind(), "unknown");
    assert_eq!(
        serde_json::to_value(&update).unwrap(),
        json!({"kind": "unknown", "sessionUpdate": "_vendor_progress", "update": raw})
    );
    assert_eq!(serde_json::to_value(update.wire()).unwrap(), raw);
    assert_eq!(
        update.text_lines(),
        vec![TextLine::Line(
            "[update] an update Porthole does not know: _vendor_progress".into()
        )]
    );
    assert!(!update.is_agent_output());
}

/// Messages a v2 agent upserts take the same model: a replacement, a cleared content (`null`),
/// and an upsert that leaves the content out, each written back under v2's names.
#[test]
fn upserts_fit_the_same_message_model() {
    let message = |edit| {
        TranscriptUpdate::Item(ItemUpdate::Message(MessageChange {
            role: MessageRole::Agent,
            message_id: Some(MessageId::new("m1")),
            edit,
            meta: None,
        }))
    };
    let text = |t: &str| ContentBlock::Text(agent_client_protocol::v1::schema::TextContent::new(t));
    let replaced = message(MessageEdit::Replace {
        content: vec![text("new")],
    });
    assert_eq!(
        serde_json::to_value(&replaced).unwrap(),
        json!({"kind": "message", "role": "agent", "messageId": "m1", "op": "replace", "content": [{"type": "text", "text": "new"}]})
    );
    assert_eq!(
        serde_json::to_value(replaced.wire()).unwrap(),
        json!({"sessionUpdate": "agent_message", "messageId": "m1", "content": [{"type": "text", "text": "new"}]})
    );
    let cleared = message(MessageEdit::Replace { content: vec![] });
    assert_eq!(
        serde_json::to_value(cleared.wire()).unwrap(),
        json!({"sessionUpdate": "agent_message", "messageId": "m1", "content": null})
    );
    let kept = message(MessageEdit::Keep);
    assert_eq!(
        serde_json::to_value(&kept).unwrap(),
        json!({"kind": "message", "role": "agent", "messageId": "m1", "op": "keep"})
    );
    assert_eq!(
        serde_json::to_value(kept.wire()).unwrap(),
        json!({"sessionUpdate": "agent_message", "messageId": "m1"})
    );
}

/// The CLI's words for each kind it shows.
#[test]
fn text_lines_of_the_kinds() {
    let lines = |raw: Value| {
        modeled(&raw)
            .text_lines()
            .into_iter()
            .map(|l| match l {
                TextLine::Reply(t) => format!("reply:{t}"),
                TextLine::Line(t) => format!("line:{t}"),
                TextLine::Note(t) => format!("note:{t}"),
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(
        lines(json!({"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "a\nb"}})),
        ["reply:a\nb"]
    );
    assert_eq!(
        lines(
            json!({"sessionUpdate": "agent_thought_chunk", "content": {"type": "image", "data": "", "mimeType": "image/png"}})
        ),
        ["note:[thought] [image]"]
    );
    assert!(
        lines(json!({"sessionUpdate": "user_message_chunk", "content": {"type": "text", "text": "q"}}))
            .is_empty()
    );
    assert_eq!(
        lines(
            json!({"sessionUpdate": "tool_call", "toolCallId": "t1", "title": "Edit", "content": [
            {"type": "diff", "path": "/a", "newText": "y"},
            {"type": "content", "content": {"type": "text", "text": "out"}}]})
        ),
        [
            "line:[tool] Edit (pending)",
            "line:[tool diff] /a",
            "note:[tool output] out"
        ]
    );
    assert_eq!(
        lines(
            json!({"sessionUpdate": "tool_call_update", "toolCallId": "t1", "status": "completed", "title": "Done"})
        ),
        ["line:[tool update] t1 completed Done"]
    );
    assert_eq!(
        lines(
            json!({"sessionUpdate": "plan", "entries": [{"content": "step", "priority": "high", "status": "in_progress"}]})
        ),
        ["line:[plan] in_progress step"]
    );
    assert_eq!(
        lines(
            json!({"sessionUpdate": "usage_update", "used": 12, "size": 100, "cost": {"amount": 0.1, "currency": "USD"}})
        ),
        ["line:[usage] 12 of 100 tokens of context (12%) · 0.10 USD"]
    );
    assert_eq!(
        lines(
            json!({"sessionUpdate": "available_commands_update", "availableCommands": [{"name": "web", "description": "search"}]})
        ),
        ["line:[command] /web search"]
    );
    assert_eq!(
        lines(
            json!({"sessionUpdate": "notice", "severity": "warning", "title": "Quota", "description": "80% used"})
        ),
        ["line:[notice: warning] Quota: 80% used"]
    );
    assert!(lines(json!({"sessionUpdate": "current_mode_update", "currentModeId": "code"})).is_empty());
}
