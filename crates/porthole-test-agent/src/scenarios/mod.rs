//! The scripted scenarios, one small module per theme, found by name in [`SCENARIOS`].

mod consent;
mod elicitation;
mod faults;
pub(crate) mod floods;
mod questions;
mod tools;

use serde_json::Value;

use super::Agent;

/// A scenario: the agent, its numeric argument (`update-flood 1000`), and where to put what the
/// client answered.
pub(crate) type Scenario = fn(&mut Agent, Option<u64>, &mut Vec<Value>);

/// Every scenario, by the name a prompt uses.
pub(crate) const SCENARIOS: &[(&str, Scenario)] = &[
    ("form", elicitation::form),
    ("modes", elicitation::modes),
    ("hostile-requests", elicitation::hostile_requests),
    ("request-scope", elicitation::request_scope),
    ("agent-level-request", elicitation::agent_level_request),
    ("url-lifecycle", elicitation::url_lifecycle),
    ("secret", elicitation::secret),
    ("unsupported-required", elicitation::unsupported_required),
    ("concurrent", elicitation::concurrent),
    ("withdraw", elicitation::withdraw),
    ("huge", elicitation::huge),
    ("qwen-question", questions::qwen_question),
    ("gemini-host-input", questions::gemini_host_input),
    ("agent-forms", questions::agent_forms),
    ("fs", tools::fs),
    ("new-file", tools::new_file),
    ("roots", tools::roots),
    ("permission", tools::permission),
    ("permission-always", tools::permission_always),
    ("terminal", tools::terminal),
    ("updates", tools::updates),
    ("cancel-count", tools::cancel_count),
    ("current-model", tools::current_model),
    ("env", tools::env),
    ("noise", faults::noise),
    ("burst", faults::burst),
    ("hang", faults::hang),
    ("crash", faults::crash),
    ("crash-permission", faults::crash_permission),
    ("kill-turn", faults::kill_turn),
    ("endless-line", faults::endless_line),
    ("endless-exit", faults::endless_exit),
    ("xss", faults::xss),
    ("hostile-text", faults::hostile_text),
    ("stderr-flood", floods::stderr_flood),
    ("elicit-flood", floods::elicit_flood),
    ("permission-flood", floods::permission_flood),
    ("file-flood", floods::file_flood),
    ("update-flood", floods::update_flood),
    ("noise-flood", floods::noise_flood),
    ("stdin-flood", floods::stdin_flood),
    ("consent-loop", consent::consent_loop),
    ("timeout-form", consent::timeout_form),
];

pub(crate) fn find(name: &str) -> Option<Scenario> {
    SCENARIOS.iter().find(|(n, _)| *n == name).map(|(_, s)| *s)
}
