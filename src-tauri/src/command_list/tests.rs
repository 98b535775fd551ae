//! Writes the window's `Commands` interface (`ui/src/lib/generated/commands.ts`) from the one
//! list: each command's arguments under the names Tauri takes them by (camelCase), their types
//! and the result's from the Rust types (ts-rs, the derives porthole-app's `ts` feature turns on).

use std::collections::BTreeMap as Map;

use ts_rs::{Config, TS};

use crate::wire::*;

const BLESS: &str = "PORTHOLE_BLESS=1 cargo test -p porthole command_list";

/// Where the generated file finds the names its signatures use: the first file exporting a name
/// wins. `Channel` is Tauri's own.
const SOURCES: &[&str] = &["./app", "./core", "./history", "./elicitation", "../protocol"];
const EXTERNAL: &[(&str, &str)] = &[("Channel", "@tauri-apps/api/core")];

struct Arg {
    name: &'static str,
    optional: bool,
    ts: String,
}

struct Command {
    docs: Vec<&'static str>,
    name: &'static str,
    args: Vec<Arg>,
    result: String,
}

fn config() -> Config {
    Config::new().with_large_int("number")
}

fn ts_name<T: TS + ?Sized>() -> String {
    T::name(&config())
}

/// An argument's TypeScript: its `as "..."` override, else its Rust type's.
macro_rules! ts_of {
    ($ty:ty, $ts:literal) => {
        String::from($ts)
    };
    ($ty:ty) => {
        ts_name::<$ty>()
    };
}

macro_rules! describe {
    ($( $(#[doc = $doc:literal])* $name:ident ( $($arg:ident : $ty:ty $(as $ts:literal)?),* ) -> $ret:ty
        $(= |$b:ident| $body:expr)? ; )*) => {
        vec![$(Command {
            docs: vec![$($doc),*],
            name: stringify!($name),
            args: vec![$(Arg {
                name: stringify!($arg),
                // Tauri takes a missing key as `None`.
                optional: stringify!($ty).starts_with("Option"),
                ts: ts_of!($ty $(, $ts)?),
            }),*],
            result: if stringify!($ret) == "()" { "void".to_string() } else { ts_name::<$ret>() },
        }),*]
    };
}

/// `additional_directories` -> `additionalDirectories`, as Tauri names a command's arguments.
fn camel_case(snake: &str) -> String {
    let mut out = String::new();
    let mut upper = false;
    for c in snake.chars() {
        if c == '_' {
            upper = true;
        } else if upper {
            out.extend(c.to_uppercase());
            upper = false;
        } else {
            out.push(c);
        }
    }
    out
}

fn signature(command: &Command) -> String {
    let args = if command.args.is_empty() {
        String::new()
    } else {
        let fields: Vec<String> = command
            .args
            .iter()
            .map(|a| {
                format!(
                    "{}{}: {}",
                    camel_case(a.name),
                    if a.optional { "?" } else { "" },
                    a.ts
                )
            })
            .collect();
        format!("args: {{ {} }}", fields.join("; "))
    };
    format!("{}({args}): {};", command.name, command.result)
}

/// The names a TypeScript file declares at its top level (`export type X`, `export interface X`).
fn exported(ts: &str) -> Vec<String> {
    ts.lines()
        .filter_map(|l| {
            l.strip_prefix("export type ")
                .or_else(|| l.strip_prefix("export interface "))
        })
        .map(|rest| {
            rest.chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect::<String>()
        })
        .filter(|name| !name.is_empty())
        .collect()
}

/// One `import type` line per source, for the names the signatures use.
fn imports(commands: &[Command]) -> String {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../ui/src/lib/generated/");
    let mut from: Map<String, &str> = EXTERNAL.iter().map(|(n, s)| (n.to_string(), *s)).collect();
    for source in SOURCES {
        let text = std::fs::read_to_string(format!("{dir}{source}.ts")).unwrap();
        for name in exported(&text) {
            from.entry(name).or_insert(source);
        }
    }
    let mut wanted: Map<&str, Vec<String>> = Map::new();
    let types = commands
        .iter()
        .flat_map(|c| c.args.iter().map(|a| a.ts.as_str()).chain([c.result.as_str()]));
    for ts in types {
        for word in ts.split(|c: char| !(c.is_alphanumeric() || c == '_')) {
            if let Some(source) = from.get(word) {
                let names = wanted.entry(source).or_default();
                if !names.iter().any(|n| n == word) {
                    names.push(word.to_string());
                }
            }
        }
    }
    wanted
        .into_iter()
        .map(|(source, mut names)| {
            names.sort();
            format!("import type {{ {} }} from \"{source}\";\n", names.join(", "))
        })
        .collect()
}

fn commands_ts() -> String {
    let commands: Vec<Command> = with_app_commands!(describe);
    let mut ts = format!(
        "// Generated from src-tauri/src/command_list.rs by\n// `{BLESS}`. Do not edit.\n{}\n\
         /** Every command the backend registers (and the main window may call): its arguments as Tauri\n \
         *  takes them (camelCase keys; an optional one may be left out) and its result. */\n\
         export interface Commands {{\n",
        imports(&commands)
    );
    for command in &commands {
        match command.docs.as_slice() {
            [] => {}
            [line] => ts.push_str(&format!("  /** {} */\n", line.trim())),
            lines => {
                ts.push_str("  /**\n");
                for line in lines {
                    ts.push_str(&format!("   * {}\n", line.trim()));
                }
                ts.push_str("   */\n");
            }
        }
        ts.push_str(&format!("  {}\n", signature(command)));
    }
    ts.push_str("}\n\n");
    // The names again as a value, for what must cover every command at run time (the mock's test).
    let names: Vec<String> = commands.iter().map(|c| format!("  \"{}\",\n", c.name)).collect();
    ts.push_str(&format!(
        "/** Every command's name, in the list's order. */\n\
         export const COMMAND_NAMES = [\n{}] as const satisfies readonly (keyof Commands)[];\n",
        names.concat()
    ));
    ts
}

/// The window's `Commands` interface is this list (protocol.ts re-exports it).
#[test]
fn the_windows_commands_are_this_list() {
    let ts = commands_ts();
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../ui/src/lib/generated/commands.ts");
    if std::env::var_os("PORTHOLE_BLESS").is_some() {
        std::fs::write(path, &ts).unwrap();
        return;
    }
    let current = std::fs::read_to_string(path).unwrap_or_default();
    assert!(
        current == ts,
        "ui/src/lib/generated/commands.ts is out of date; run `{BLESS}`"
    );
}

#[test]
fn arguments_are_named_as_tauri_takes_them() {
    assert_eq!(camel_case("additional_directories"), "additionalDirectories");
    assert_eq!(camel_case("agent_id"), "agentId");
    assert_eq!(camel_case("cwd"), "cwd");
}
