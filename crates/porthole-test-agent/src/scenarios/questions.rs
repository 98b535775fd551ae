//! Agents' own ways of asking questions, in their exact wire shapes (written out here, not
//! taken from Porthole's code, so a change on either side shows): Qwen Code's questions inside
//! a permission request, Gemini CLI's `gemini/requestUserInput`, and the markers Claude Code
//! and Codex put in standard `elicitation/create` forms.

use super::super::*;

/// `qwen-question`: Qwen Code's `ask_user_question` (its `permissionUtils.ts`: options Submit /
/// Cancel, the questions in `toolCall._meta.qwenQuestions`); the answers come back in the
/// response's top-level `answers`.
pub(crate) fn qwen_question(agent: &mut Agent, _arg: Option<u64>, results: &mut Vec<Value>) {
    let questions = json!([
        {"question":"Which color?","header":"Color","multiSelect":false,"options":[
            {"label":"Teal","description":"calm"},{"label":"Orange","description":"loud"}]},
        {"question":"Which extras?","header":"Extras","multiSelect":true,"options":[
            {"label":"Tests","description":"unit tests"},{"label":"Docs","description":"a README"}]}]);
    agent.update(
        json!({"sessionUpdate":"tool_call","toolCallId":"qwen-ask-1","title":"Ask user 2 questions",
        "kind":"think","status":"pending","rawInput":{"questions":questions}}),
    );
    let params = json!({"sessionId": agent.session,
        "options":[{"optionId":"proceed_once","name":"Submit","kind":"allow_once"},
                   {"optionId":"cancel","name":"Cancel","kind":"reject_once"}],
        "toolCall":{"toolCallId":"qwen-ask-1","status":"pending","title":"Ask user 2 questions","kind":"think",
            "content":[],"locations":[],"rawInput":{"questions":questions},
            "_meta":{"toolName":"ask_user_question","qwenInteractionKind":"user_question","qwenQuestions":questions}}});
    results.push(agent.call("session/request_permission", params));
}

/// `gemini-host-input`: Gemini CLI's `ask_user` and `exit_plan_mode` (`hostInput.ts`), sent as
/// its SDK's `extMethod` sends them (`_gemini/requestUserInput`), and only when the client
/// declared host input.
pub(crate) fn gemini_host_input(agent: &mut Agent, _arg: Option<u64>, results: &mut Vec<Value>) {
    if !agent.host_input {
        results.push(json!({"skipped":"the client did not declare geminiCli.hostInput"}));
        return;
    }
    let ask = json!({"sessionId": agent.session, "requestId":"host-input-1", "kind":"ask_user",
        "title":"Gemini has questions",
        "questions":[
            {"type":"choice","header":"Database","question":"Which database?","multiSelect":false,
             "options":[{"label":"Postgres","description":"relational"},{"label":"SQLite","description":"a file"}],
             "placeholder":"Another database"},
            {"type":"text","header":"Name","question":"What should the service be called?","placeholder":"e.g. billing"},
            {"type":"yesno","header":"Tests","question":"Write tests first?"}],
        "toolCall":{"toolCallId":"gemini-ask-1","title":"Ask User","kind":"other"}});
    results.push(agent.call("_gemini/requestUserInput", ask));
    let plan = json!({"sessionId": agent.session, "requestId":"host-input-2", "kind":"exit_plan_mode",
        "title":"Ready to start implementing?",
        "questions":[{"type":"choice","header":"Approval","question":"1. Add tests\n2. Fix the bug",
            "options":[
                {"label":"Yes, automatically accept edits","description":"Approves plan and allows tools to run automatically"},
                {"label":"Yes, manually accept edits","description":"Approves plan but requires confirmation for each tool"}],
            "placeholder":"Type your feedback...","multiSelect":false,"unconstrainedHeight":false}]});
    results.push(agent.call("_gemini/requestUserInput", plan));
}

/// `agent-forms`: standard form elicitations with the markers of Claude Code
/// (`question_N_custom`, option previews) and Codex (`_note` with `_meta.codex`, `isSecret`).
pub(crate) fn agent_forms(agent: &mut Agent, _arg: Option<u64>, results: &mut Vec<Value>) {
    let claude = json!({"sessionId": agent.session, "toolCallId":"claude-ask-1", "mode":"form",
        "message":"Which color?",
        "requestedSchema":{"type":"object","properties":{
            "question_0":{"type":"string","title":"Color","oneOf":[
                {"const":"Teal","title":"Teal","description":"calm",
                 "_meta":{"_claude/askUserQuestionOption":{"preview":"#008080"}}},
                {"const":"Orange","title":"Orange","description":"loud"}]},
            "question_0_custom":{"type":"string","title":"Other",
                "description":"Type your own answer, or add a note to the option you chose above (optional)."}}}});
    results.push(agent.call("elicitation/create", claude));
    let codex = json!({"sessionId": agent.session, "toolCallId":"codex-ask-1", "mode":"form",
        "message":"Codex needs your input to continue.",
        "requestedSchema":{"type":"object","properties":{
            "color":{"title":"Which color?","description":"Color","type":"string",
                "_meta":{"codex":{"isOther":true,"isSecret":false}},
                "oneOf":[{"const":"Teal","title":"Teal"},
                         {"const":"None of the above","title":"None of the above",
                          "description":"Provide a different answer in the note field."}]},
            "color_note":{"type":"string","title":"Additional answer or note",
                "_meta":{"codex":{"questionId":"color","role":"user_note","isSecret":false}}},
            "passphrase_hint":{"title":"Your answer","type":"string",
                "_meta":{"codex":{"isOther":false,"isSecret":true}}}},
            "required":["color","passphrase_hint"]},
        "_meta":{"codex":{"autoResolutionMs":null}}});
    results.push(agent.call("elicitation/create", codex));
}
