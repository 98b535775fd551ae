//! `env_var` sign-in methods: the agent asks the user for values (API keys) that the client sets
//! in the agent's environment when it starts the agent. The SDK's typed `AuthMethod` reads an
//! unknown `type` as an agent method and drops `vars`, so these are read from the raw
//! `initialize` answer (`porthole_core::AgentClient::raw_auth_methods`). Both forms in use are
//! understood: `vars: [{name, label, secret, optional}]` and the older single `varName`.
//!
//! [`valid_name`] is the one rule for which variables Porthole sets in an agent's environment:
//! a method asking for another is left out here, [`crate::secrets`] refuses to store one, and
//! the registry installer refuses an agent whose package sets one.

use serde_json::Value;

/// One variable an `env_var` method asks for.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct EnvVarSpec {
    pub name: String,
    /// What the user is asked for ("OpenAI API key"); the name when the agent gave none.
    pub label: String,
    /// Secret values are typed into password fields and never shown (default: true).
    pub secret: bool,
    pub optional: bool,
}

/// An `env_var` sign-in method.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct EnvVarMethod {
    pub id: String,
    pub name: String,
    pub description: Option<String>,
    /// Where the user can get the value (shown as text, never opened by itself).
    pub link: Option<String>,
    pub vars: Vec<EnvVarSpec>,
}

/// Names an agent may not have set through sign-in: they change how the agent program itself is
/// found and loaded, which is not what a user typing an API key agrees to.
fn refused_name(name: &str) -> bool {
    matches!(name, "PATH" | "HOME" | "SHELL" | "NODE_OPTIONS" | "PYTHONPATH")
        || name.starts_with("LD_")
        || name.starts_with("DYLD_")
}

/// A name an agent may have set through sign-in (also checked by the registry installer).
pub fn valid_name(name: &str) -> bool {
    let mut chars = name.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
        && name.len() <= 128
        && !refused_name(name)
}

fn text(v: &Value, key: &str) -> Option<String> {
    v.get(key).and_then(Value::as_str).map(str::to_string)
}

/// The `env_var` methods among an `initialize` answer's raw `authMethods`. A method with a
/// variable name that is malformed or refused (see [`refused_name`]) is left out entirely.
pub fn env_var_methods(raw_auth_methods: &Value) -> Vec<EnvVarMethod> {
    let Some(methods) = raw_auth_methods.as_array() else {
        return Vec::new();
    };
    methods
        .iter()
        .filter(|m| m.get("type").and_then(Value::as_str) == Some("env_var"))
        .filter_map(|m| {
            let vars: Vec<EnvVarSpec> = match (m.get("vars"), m.get("varName")) {
                (Some(Value::Array(vars)), _) => vars
                    .iter()
                    .map(|v| {
                        let name = text(v, "name")?;
                        Some(EnvVarSpec {
                            label: text(v, "label").unwrap_or_else(|| name.clone()),
                            secret: v.get("secret").and_then(Value::as_bool).unwrap_or(true),
                            optional: v.get("optional").and_then(Value::as_bool).unwrap_or(false),
                            name,
                        })
                    })
                    .collect::<Option<_>>()?,
                (_, Some(Value::String(name))) => vec![EnvVarSpec {
                    name: name.clone(),
                    label: text(m, "name").unwrap_or_else(|| name.clone()),
                    secret: true,
                    optional: false,
                }],
                _ => return None,
            };
            if vars.is_empty() || !vars.iter().all(|v| valid_name(&v.name)) {
                return None;
            }
            Some(EnvVarMethod {
                id: text(m, "id")?,
                name: text(m, "name").unwrap_or_default(),
                description: text(m, "description"),
                link: text(m, "link"),
                vars,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reads_both_forms_and_keeps_only_env_var_methods() {
        let methods = env_var_methods(&json!([
            {"id": "agent", "name": "Agent login"},
            {"id": "openai", "name": "OpenAI", "type": "env_var", "link": "https://example.com/keys",
             "vars": [{"name": "OPENAI_API_KEY", "label": "OpenAI API key"},
                      {"name": "OPENAI_ORG", "secret": false, "optional": true}]},
            {"id": "legacy", "name": "Legacy key", "type": "env_var", "varName": "LEGACY_KEY"},
            {"id": "term", "name": "Terminal", "type": "terminal", "args": ["login"]}
        ]));
        assert_eq!(methods.len(), 2);
        assert_eq!(methods[0].id, "openai");
        assert_eq!(methods[0].link.as_deref(), Some("https://example.com/keys"));
        assert_eq!(
            methods[0].vars[0],
            EnvVarSpec {
                name: "OPENAI_API_KEY".into(),
                label: "OpenAI API key".into(),
                secret: true,
                optional: false
            }
        );
        assert!(!methods[0].vars[1].secret && methods[0].vars[1].optional);
        assert_eq!(methods[0].vars[1].label, "OPENAI_ORG");
        assert_eq!(methods[1].vars[0].name, "LEGACY_KEY");
        assert_eq!(methods[1].vars[0].label, "Legacy key");
    }

    #[test]
    fn refuses_names_that_change_how_the_agent_is_loaded_or_are_not_names() {
        for bad in [
            "PATH",
            "LD_PRELOAD",
            "DYLD_INSERT_LIBRARIES",
            "NODE_OPTIONS",
            "1KEY",
            "A-B",
            "",
            "KEY=1",
        ] {
            let m = env_var_methods(&json!([{"id": "x", "name": "X", "type": "env_var", "varName": bad}]));
            assert!(m.is_empty(), "{bad:?} was accepted");
        }
        assert!(env_var_methods(&json!({"not": "an array"})).is_empty());
        assert!(env_var_methods(&json!([{"id": "x", "type": "env_var", "vars": []}])).is_empty());
    }
}
