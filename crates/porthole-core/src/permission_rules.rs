//! "Always allow" / "always reject" decisions, remembered per session and tool kind.
//!
//! A rule exists only because the user picked an `allow_always` or `reject_always` option.
//! Later requests in the same session for the same kind of tool are answered with the
//! matching option of *that* request (its own option ids), never with a guessed id; a request
//! that offers no option of the remembered kind is asked as usual. Rules are listed and
//! revocable, and die with the session.

use agent_client_protocol::v1::schema::{PermissionOption, PermissionOptionKind};
use serde::Serialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Decision {
    Allow,
    Reject,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PermissionRule {
    pub rule_id: u64,
    pub session_id: String,
    /// ACP tool kind (`edit`, `execute`, ...), `other` when the agent gave none.
    pub tool_kind: String,
    pub decision: Decision,
    /// The option the user chose, as the agent named it ("Always allow").
    pub option_name: String,
}

#[derive(Debug, Default)]
pub struct PermissionRules {
    rules: Vec<PermissionRule>,
}

/// Rule ids are unique in the process, so a window listing the rules of several agents can
/// revoke one by id alone.
fn next_rule_id() -> u64 {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
    NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

fn decision_of(kind: &PermissionOptionKind) -> Option<(Decision, bool)> {
    match kind {
        PermissionOptionKind::AllowOnce => Some((Decision::Allow, false)),
        PermissionOptionKind::AllowAlways => Some((Decision::Allow, true)),
        PermissionOptionKind::RejectOnce => Some((Decision::Reject, false)),
        PermissionOptionKind::RejectAlways => Some((Decision::Reject, true)),
        _ => None,
    }
}

impl PermissionRules {
    /// Remember the user's choice if it was an "always" option. Returns the new rule.
    pub fn remember(
        &mut self,
        session_id: &str,
        tool_kind: &str,
        chosen: &PermissionOption,
    ) -> Option<PermissionRule> {
        let (decision, always) = decision_of(&chosen.kind)?;
        if !always {
            return None;
        }
        // One rule per session and kind: the newest choice wins.
        self.rules
            .retain(|r| !(r.session_id == session_id && r.tool_kind == tool_kind));
        let rule = PermissionRule {
            rule_id: next_rule_id(),
            session_id: session_id.to_string(),
            tool_kind: tool_kind.to_string(),
            decision,
            option_name: chosen.name.clone(),
        };
        self.rules.push(rule.clone());
        Some(rule)
    }

    /// The rule that answers this request, and the option of the request to answer with:
    /// the request's "always" option of the same decision, else its "once" option.
    pub fn answer<'a>(
        &self,
        session_id: &str,
        tool_kind: &str,
        options: &'a [PermissionOption],
    ) -> Option<(&PermissionRule, &'a PermissionOption)> {
        let rule = self
            .rules
            .iter()
            .find(|r| r.session_id == session_id && r.tool_kind == tool_kind)?;
        let pick = |always: bool| {
            options
                .iter()
                .find(|o| decision_of(&o.kind) == Some((rule.decision, always)))
        };
        let option = pick(true).or_else(|| pick(false))?;
        Some((rule, option))
    }

    pub fn revoke(&mut self, rule_id: u64) -> bool {
        let before = self.rules.len();
        self.rules.retain(|r| r.rule_id != rule_id);
        self.rules.len() != before
    }

    pub fn forget_session(&mut self, session_id: &str) {
        self.rules.retain(|r| r.session_id != session_id);
    }

    pub fn list(&self) -> Vec<PermissionRule> {
        self.rules.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opt(id: &str, kind: PermissionOptionKind) -> PermissionOption {
        PermissionOption::new(id.to_string(), format!("name of {id}"), kind)
    }

    fn options() -> Vec<PermissionOption> {
        vec![
            opt("yes", PermissionOptionKind::AllowOnce),
            opt("yes-all", PermissionOptionKind::AllowAlways),
            opt("no", PermissionOptionKind::RejectOnce),
            opt("no-all", PermissionOptionKind::RejectAlways),
        ]
    }

    #[test]
    fn once_choices_are_not_remembered() {
        let mut rules = PermissionRules::default();
        assert!(rules.remember("s", "edit", &options()[0]).is_none());
        assert!(rules.remember("s", "edit", &options()[2]).is_none());
        assert!(rules.answer("s", "edit", &options()).is_none());
    }

    #[test]
    fn always_allow_answers_later_requests_of_the_same_session_and_kind_only() {
        let mut rules = PermissionRules::default();
        let rule = rules.remember("s", "edit", &options()[1]).unwrap();
        let offered = options();
        let (r, o) = rules.answer("s", "edit", &offered).unwrap();
        assert_eq!(r.rule_id, rule.rule_id);
        assert_eq!(o.option_id.0.as_ref(), "yes-all");
        assert!(rules.answer("s", "execute", &options()).is_none(), "other kind");
        assert!(
            rules.answer("other", "edit", &options()).is_none(),
            "other session"
        );
    }

    #[test]
    fn answers_with_the_requests_own_option_and_asks_when_none_fits() {
        let mut rules = PermissionRules::default();
        rules.remember("s", "execute", &options()[3]).unwrap();
        let only_once = vec![
            opt("ok", PermissionOptionKind::AllowOnce),
            opt("nope", PermissionOptionKind::RejectOnce),
        ];
        let (_, o) = rules.answer("s", "execute", &only_once).unwrap();
        assert_eq!(o.option_id.0.as_ref(), "nope");
        let allow_only = vec![opt("ok", PermissionOptionKind::AllowOnce)];
        assert!(rules.answer("s", "execute", &allow_only).is_none());
    }

    #[test]
    fn revoke_and_session_end_forget_rules() {
        let mut rules = PermissionRules::default();
        let a = rules.remember("s", "edit", &options()[1]).unwrap();
        rules.remember("s", "read", &options()[1]).unwrap();
        rules.remember("t", "edit", &options()[1]).unwrap();
        assert!(rules.revoke(a.rule_id));
        assert!(!rules.revoke(a.rule_id));
        assert!(rules.answer("s", "edit", &options()).is_none());
        rules.forget_session("s");
        assert_eq!(rules.list().len(), 1);
        assert_eq!(rules.list()[0].session_id, "t");
    }

    #[test]
    fn a_newer_choice_replaces_the_rule_for_that_kind() {
        let mut rules = PermissionRules::default();
        rules.remember("s", "edit", &options()[1]).unwrap();
        rules.remember("s", "edit", &options()[3]).unwrap();
        assert_eq!(rules.list().len(), 1);
        let offered = options();
        let (_, o) = rules.answer("s", "edit", &offered).unwrap();
        assert_eq!(o.option_id.0.as_ref(), "no-all");
    }
}
