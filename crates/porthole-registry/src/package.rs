//! Package names from the registry, checked before they become an `npx` or `uvx` command line.
//!
//! The registry is untrusted and both tools read options from any argument that starts with
//! `-`: `npx -y '--call=touch /tmp/x@1.0.0'` runs a shell command, `uvx --index-url=...` swaps
//! the package index, `uvx --with=...` adds packages. So a package must be a *name* by the
//! tool's own rules before it is used, and a command (`cmd`) must be a plain program name. An
//! entry that fails is a registry problem (listed, never installed). The arguments after the
//! package are the agent's and are passed as they are.
//!
//! Hand-written rather than a crate: only a small subset is accepted (no URLs, paths, git
//! sources, markers or extras' environment markers), so a full PEP 508 / npm-package-arg
//! parser would still need these checks on top of what it returns.

/// An npx package: `name`, `@scope/name`, each optionally followed by `@version` (a version,
/// range or dist-tag). The name follows npm's rules for new packages (validate-npm-package-name):
/// at most 214 characters with the scope, lower-case URL-safe characters `a-z 0-9 - . _ ~`,
/// not starting with `.` or `_`; here also not with `-` (it would read as an option).
pub fn check_npm(spec: &str) -> Result<(), String> {
    let fail = |why: &str| Err(format!("the npx package `{spec}` is not a package name: {why}"));
    let (name, version) = match spec.strip_prefix('@') {
        Some(rest) => match rest.split_once('@') {
            Some((scoped, version)) => (&spec[..scoped.len() + 1], Some(version)),
            None => (spec, None),
        },
        None => match spec.split_once('@') {
            Some((name, version)) => (name, Some(version)),
            None => (spec, None),
        },
    };
    if name.len() > 214 {
        return fail("longer than 214 characters");
    }
    let bare = match name.strip_prefix('@') {
        Some(scoped) => {
            let Some((scope, bare)) = scoped.split_once('/') else {
                return fail("a scope without `/name`");
            };
            if !npm_word(scope) {
                return fail("the scope has characters npm does not allow");
            }
            bare
        }
        None => name,
    };
    if !npm_word(bare) {
        return fail(
            "npm names are lower-case letters, digits, `-`, `.`, `_` and `~`, not starting with `-`, `.` or `_`",
        );
    }
    if matches!(bare, "node_modules" | "favicon.ico") {
        return fail("a name npm reserves");
    }
    if let Some(version) = version
        && !npm_version(version)
    {
        return fail("the part after `@` is not a version, range or tag");
    }
    Ok(())
}

fn npm_word(s: &str) -> bool {
    !s.is_empty()
        && !s.starts_with(['-', '.', '_'])
        && s.chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, '-' | '.' | '_' | '~'))
}

/// `1.2.3`, `^1.2`, `>=1.0.0 <2`, `latest`, `next-beta`: what `name@...` takes, one argument.
fn npm_version(s: &str) -> bool {
    !s.is_empty()
        && s.starts_with(|c: char| {
            c.is_ascii_alphanumeric() || matches!(c, '^' | '~' | '<' | '>' | '=' | '*')
        })
        && s.chars().all(|c| {
            c.is_ascii_alphanumeric()
                || matches!(
                    c,
                    '.' | '-' | '+' | '_' | '^' | '~' | '<' | '>' | '=' | '*' | ' ' | '|'
                )
        })
}

/// A uvx package: a PEP 508 name (`[A-Za-z0-9]`, then also `.`, `_`, `-`, ending in a letter or
/// digit), optional extras `[a,b]`, then either nothing, `@version` (uvx's shorthand) or PEP 440
/// version clauses (`==1.0`, `>=1,<2`, `~=1.4`, `!=1.3`, `===x`).
pub fn check_pep508(spec: &str) -> Result<(), String> {
    let fail = |why: &str| Err(format!("the uvx package `{spec}` is not a package name: {why}"));
    let name_end = spec
        .find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-')))
        .unwrap_or(spec.len());
    let (name, mut rest) = spec.split_at(name_end);
    if !pep508_name(name) {
        return fail(
            "PEP 508 names are letters, digits, `.`, `_` and `-`, starting and ending with a letter or digit",
        );
    }
    if let Some(extras) = rest.strip_prefix('[') {
        let Some((list, after)) = extras.split_once(']') else {
            return fail("extras without `]`");
        };
        if !list.split(',').all(|e| pep508_name(e.trim())) {
            return fail("an extra that is not a name");
        }
        rest = after;
    }
    if rest.is_empty() {
        return Ok(());
    }
    if let Some(version) = rest.strip_prefix('@') {
        return if pep440_version(version, false) {
            Ok(())
        } else {
            fail("the part after `@` is not a version")
        };
    }
    for clause in rest.split(',') {
        let clause = clause.trim();
        let Some(op) = ["===", "~=", "==", "!=", "<=", ">=", "<", ">"]
            .into_iter()
            .find(|op| clause.starts_with(op))
        else {
            return fail("after the name comes `@version` or version clauses like `==1.0`");
        };
        let version = clause[op.len()..].trim();
        if !pep440_version(version, matches!(op, "==" | "!=")) {
            return fail("a version clause without a version");
        }
    }
    Ok(())
}

fn pep508_name(s: &str) -> bool {
    s.starts_with(|c: char| c.is_ascii_alphanumeric())
        && s.ends_with(|c: char| c.is_ascii_alphanumeric())
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
}

/// A PEP 440 version as written in a clause (`1.0`, `1!2.0rc1.post2.dev3+local.1`); `==` and
/// `!=` also take a trailing `.*`.
fn pep440_version(s: &str, wildcard: bool) -> bool {
    let s = if wildcard {
        s.strip_suffix(".*").unwrap_or(s)
    } else {
        s
    };
    s.starts_with(|c: char| c.is_ascii_alphanumeric())
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-' | '+' | '!'))
}

/// A command of a package (`npx --package P CMD`, `uvx --from P CMD`): a program name, never
/// an option or a path.
pub fn check_command(cmd: &str) -> Result<(), String> {
    let ok = cmd.starts_with(|c: char| c.is_ascii_alphanumeric())
        && cmd
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'));
    if ok {
        Ok(())
    } else {
        Err(format!(
            "the command `{cmd}` is not a program name (letters, digits, `.`, `_`, `-`, starting with a letter or digit)"
        ))
    }
}

/// A variable a package distribution sets for its tool: not one that configures npx or uvx
/// themselves (that would swap the package source as `--index-url` does: `npm_config_registry`,
/// `UV_INDEX_URL`), nor one that changes how programs are found or loaded (`PATH`, `LD_PRELOAD`,
/// `NODE_OPTIONS`; the list sign-in values are held to, `porthole_profiles::sign_in`).
pub fn check_tool_env(tool: &str, name: &str) -> Result<(), String> {
    let upper = name.to_ascii_uppercase();
    let configures_tool = match tool {
        "npx" => upper.starts_with("NPM_CONFIG_") || matches!(upper.as_str(), "NODE_OPTIONS" | "NODE_PATH"),
        _ => {
            upper.starts_with("UV_")
                || upper.starts_with("PIP_")
                || matches!(upper.as_str(), "PYTHONPATH" | "PYTHONHOME" | "PYTHONSTARTUP")
        }
    };
    if configures_tool || !porthole_profiles::sign_in::valid_name(name) {
        return Err(format!(
            "the {tool} environment variable `{name}` would configure {tool} or how programs load"
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn npm_names() {
        for good in [
            "agent",
            "@scope/agent",
            "@scope/agent@1.2.0",
            "agent@1.0.0-beta.1",
            "agent@latest",
            "agent@^1.2",
            "@zed-industries/claude-code-acp@0.5.1",
            "left-pad",
            "a.b_c~d",
        ] {
            assert_eq!(check_npm(good), Ok(()), "{good}");
        }
        for bad in [
            "--call=touch /tmp/x",
            "--call=touch /tmp/x@1.0.0",
            "-y",
            "@scope",
            "@scope/",
            "@/agent",
            "@-x/agent",
            ".hidden",
            "_private",
            "Upper",
            "has space",
            "a/b",
            "agent@",
            "agent@-v",
            "agent@--call=x",
            "https://evil.example/pkg.tgz",
            "git+ssh://x",
            "file:../x",
            "node_modules",
            "",
        ] {
            assert!(check_npm(bad).is_err(), "{bad}");
        }
        assert!(check_npm(&"a".repeat(215)).is_err());
    }

    #[test]
    fn pep508_names_and_specifiers() {
        for good in [
            "fast-agent",
            "fast-agent-mcp==0.3.1",
            "fast_agent@0.3.1",
            "Agent.Name",
            "agent[acp]",
            "agent[acp, extra2]>=1.0,<2",
            "agent~=1.4",
            "agent==1.*",
            "agent!=1.3.0",
            "agent===weird",
            "a",
        ] {
            assert_eq!(check_pep508(good), Ok(()), "{good}");
        }
        for bad in [
            "--index-url=http://127.0.0.1/simple",
            "--with=evil",
            "-x",
            "agent-",
            ".agent",
            "agent @ https://evil.example/a.whl",
            "agent@https://evil.example/a.whl",
            "agent@ -v",
            "agent; sys_platform == 'linux'",
            "agent[",
            "agent[-x]",
            "agent==",
            "agent=1",
            "agent --with x",
            "",
        ] {
            assert!(check_pep508(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn tool_variables_are_not_the_tools_own() {
        assert_eq!(check_tool_env("npx", "ANTHROPIC_BASE_URL"), Ok(()));
        assert_eq!(check_tool_env("uvx", "FAST_AGENT_MODE"), Ok(()));
        for (tool, bad) in [
            ("npx", "npm_config_registry"),
            ("npx", "NPM_CONFIG_REGISTRY"),
            ("npx", "NODE_OPTIONS"),
            ("npx", "LD_PRELOAD"),
            ("npx", "PATH"),
            ("uvx", "UV_INDEX_URL"),
            ("uvx", "uv_extra_index_url"),
            ("uvx", "PIP_INDEX_URL"),
            ("uvx", "PYTHONPATH"),
            ("uvx", "DYLD_INSERT_LIBRARIES"),
            ("uvx", "BAD NAME"),
        ] {
            assert!(check_tool_env(tool, bad).is_err(), "{tool} {bad}");
        }
    }

    #[test]
    fn commands_are_program_names() {
        assert_eq!(check_command("agent-acp"), Ok(()));
        assert_eq!(check_command("fast_agent.acp"), Ok(()));
        for bad in ["--call=touch /tmp/x", "-c", "../bin/x", "/bin/sh", "a b", ""] {
            assert!(check_command(bad).is_err(), "{bad}");
        }
    }
}
