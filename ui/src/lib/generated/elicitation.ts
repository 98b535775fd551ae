// Generated from porthole-elicitation's types (ts-rs) by
// `PORTHOLE_BLESS=1 cargo test -p porthole-elicitation ui_contract`. Do not edit.

export type EnumChoice = { 
/**
 * The value sent in `content`.
 */
value: string, 
/**
 * Human-readable label (titled selects only). When `None` the UI shows
 * the value.
 */
title: string | null, description: string | null, 
/**
 * A preview shown beside the option (Claude's `_meta["_claude/askUserQuestionOption"]
 * .preview`: a mockup, a code snippet), plain text.
 */
preview: string | null, };

export type FieldKind = { "type": "text", minLength: number | null, maxLength: number | null, pattern: string | null, 
/**
 * Serialized as its keyword (`email`, `uri`, ...), unknown formats kept as they are.
 */
format: string | null, default: string | null, } | { "type": "number", minimum: number | null, maximum: number | null, default: number | null, } | { "type": "integer", minimum: number | null, maximum: number | null, default: number | null, } | { "type": "boolean", default: boolean | null, } | { "type": "singleSelect", options: Array<EnumChoice>, titled: boolean, default: string | null, } | { "type": "multiSelect", options: Array<EnumChoice>, titled: boolean, minItems: number | null, maxItems: number | null, default: Array<string>, } | { "type": "list", 
/**
 * The constraints of each value: a [`FieldKind::Text`] (no `pattern`).
 */
item: FieldKind, minItems: number | null, maxItems: number | null, default: Array<string>, } | { "type": "unsupported", 
/**
 * The property's `type` as written (`""` when it was missing; the
 * compact JSON when it was not a string).
 */
typeName: string, 
/**
 * Why it is unsupported, for a human.
 */
reason: string, 
/**
 * The raw property schema, verbatim.
 */
raw: unknown, };

export type OtherAnswer = { 
/**
 * The text field that holds the typed answer.
 */
field: string, 
/**
 * The option of the select that stands for "Other" (Codex's "None of the above"): chosen
 * with it. `None`: choosing "Other…" leaves a single select empty (its answer is the text).
 */
choice: string | null, };

export type Field = { 
/**
 * The property name: the key used in the response `content`.
 */
name: string, title: string | null, description: string | null, 
/**
 * Listed in the schema's `required` array.
 */
required: boolean, kind: FieldKind, 
/**
 * The agent marked the value as secret (Codex's `_meta.codex.isSecret`): a UI masks it
 * like a password, and the form is flagged as asking for a secret (`markers.rs`).
 */
masked: boolean, 
/**
 * For a single- or multi-select: the free-text "Other" answer that belongs to it, a
 * field of its own that a UI shows inside this one, behind an "Other…" choice
 * (`markers.rs` knows the agents' ways of saying so).
 */
other: OtherAnswer | null, 
/**
 * This text field is the "Other" answer of the select named here, and is shown inside
 * it rather than on its own.
 */
otherOf: string | null, };

export type FormSchema = { title: string | null, description: string | null, 
/**
 * The fields, in the agent's property order.
 */
fields: Array<Field>, };

export type FieldError = { 
/**
 * The property name (the `content` key).
 */
field: string, 
/**
 * Machine-readable code, one of [`codes`].
 */
code: string, 
/**
 * A sentence for the user.
 */
message: string, };

export type Validation = { 
/**
 * Normalized content: only valid values of known, supported fields;
 * integers as JSON integers; empty/absent optional fields omitted.
 */
content: Record<string, string | number | boolean | Array<string>>, 
/**
 * Every problem found, in field order, then unknown keys.
 */
errors: Array<FieldError>, };

export type UrlWarning = "punycode" | "mixed-script" | "confusable" | "bidi-control" | "invisible-char" | "ip-host" | "non-https" | "unusual-port";

export type UrlAnalysis = { 
/**
 * The URL exactly as the agent sent it (never truncated).
 */
full: string, 
/**
 * `url::Url` serialization (ASCII/punycode host).
 */
normalized: string, 
/**
 * `"https"` or `"http"`.
 */
scheme: string, 
/**
 * Host as sent on the wire, e.g. `xn--pple-43d.com`; IPv6 in brackets.
 */
hostAscii: string, 
/**
 * Host for display, e.g. `аpple.com`; equals `host_ascii` when not IDN.
 */
hostUnicode: string, 
/**
 * eTLD+1 in Unicode form, e.g. `example.co.uk`. `None` for IP hosts,
 * loopback names and single-label hosts.
 */
registrableDomain: string | null, registrableDomainAscii: string | null, 
/**
 * Explicit non-default port (the parser drops default ports).
 */
port: number | null, isLoopback: boolean, 
/**
 * Sorted, deduplicated.
 */
warnings: Array<UrlWarning>, };
