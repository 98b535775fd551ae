//! Form-mode elicitation schemas: the restricted JSON Schema model, its
//! parser, the validator for submitted content, and secret detection.
//!
//! ```text
//! let schema = parse_form_schema(&params.requested_schema)?;   // SchemaError -> reject request
//! if is_secret_request(&params.message, &schema) { warn }      // spec: no secrets in form mode
//! ui.render(&schema, schema.initial_values(), schema.can_accept());
//! let v = schema.validate(&user_content);                       // single source of truth
//! if v.is_valid() { respond(accept, v.content) }
//! ```
//!
//! Agents' question extensions end in this same model, each read in one place:
//! `markers.rs` (an "Other" text box that belongs to its question, secret answers and option
//! previews in standard forms: Claude Code, Codex, JetBrains AIR), `qwen.rs` (Qwen Code's
//! questions inside `session/request_permission`) and `gemini.rs` (Gemini CLI's
//! `gemini/requestUserInput`); `questions.rs` writes the last two as a standard form and
//! reads the answers back in each agent's shape; `reply.rs` joins their replies into one type.

pub mod gemini;
mod markers;
mod model;
mod parse;
mod questions;
pub mod qwen;
mod reply;
mod secrets;
mod validate;

pub use model::{
    DEFAULT_PATTERN_WORK, EnumChoice, Field, FieldKind, FormSchema, MAX_OPTIONS, MAX_PATTERN_CHARS,
    MAX_PROPERTIES, MAX_TEXT_BYTES, MAX_TOTAL_PATTERN_SIZE, MAX_VALUE_CHARS, OtherAnswer, PATTERN_WORK_LIMIT,
    PropertyProblem, REGEX_SIZE_LIMIT, SchemaError, StringFormat,
};
pub use parse::{parse_form_schema, parse_own_form_schema};
pub use questions::{Asked, Decision, Question, QuestionKind};
pub use reply::{AgentReply, Translated};
pub use secrets::{is_secret_request, secret_fields, secret_indicators, secret_outside_fields};
pub use validate::{FieldError, Validation, codes};
