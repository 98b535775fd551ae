// Form helpers: convert between what the inputs hold and the content sent to the backend.
// NOTE: no validation here. The backend (`validate_form`) is the only source of truth;
// the UI never evaluates agent-supplied patterns or rules.
import type { Field, FormContent, FormValue } from "./protocol";

/** Raw UI state per field. Numbers are kept as the input's string; empty means "absent". */
export type RawValue = string | boolean | string[] | null;
export type RawValues = Record<string, RawValue>;

export function inputTypeFor(format: string | null): string {
  switch (format) {
    case "email": return "email";
    case "uri": return "url";
    case "date": return "date";
    case "date-time": return "datetime-local";
    default: return "text";
  }
}

const pad = (n: number, w = 2) => String(Math.abs(n)).padStart(w, "0");

/** RFC 3339 -> value for <input type=datetime-local> in local time ("YYYY-MM-DDTHH:mm[:ss]"). */
export function rfc3339ToLocalInput(v: string): string {
  const d = new Date(v);
  if (Number.isNaN(d.getTime())) return "";
  const base = `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
  return d.getSeconds() ? `${base}:${pad(d.getSeconds())}` : base;
}

/** datetime-local value -> RFC 3339 with the local UTC offset (e.g. 2026-12-02T18:30:00+01:00). */
export function localInputToRfc3339(v: string): string {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2}))?/.exec(v);
  if (!m) return v;
  const d = new Date(+m[1], +m[2] - 1, +m[3], +m[4], +m[5], m[6] ? +m[6] : 0);
  const off = -d.getTimezoneOffset();
  const sign = off >= 0 ? "+" : "-";
  const oh = pad(Math.trunc(Math.abs(off) / 60));
  const om = pad(Math.abs(off) % 60);
  return `${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6] ?? "00"}${sign}${oh}:${om}`;
}

/** Initial raw values from the backend's `initialValues` (no guessing for missing ones). */
export function initialRaw(fields: Field[], initial: FormContent): RawValues {
  const out: RawValues = {};
  for (const f of fields) {
    const v: FormValue | undefined = initial[f.name];
    switch (f.kind.type) {
      case "text":
        out[f.name] = typeof v === "string" ? (f.kind.format === "date-time" ? rfc3339ToLocalInput(v) : v) : "";
        break;
      case "number":
      case "integer":
        out[f.name] = typeof v === "number" ? String(v) : "";
        break;
      case "boolean":
        out[f.name] = typeof v === "boolean" ? v : false;
        break;
      case "singleSelect":
        out[f.name] = typeof v === "string" ? v : null;
        break;
      case "multiSelect":
        out[f.name] = Array.isArray(v) ? [...v] : [];
        break;
      case "list":
        // One row to type in even with no default: a list starts with a value to give.
        out[f.name] = Array.isArray(v) && v.length > 0 ? [...v] : [""];
        break;
      case "unsupported":
        out[f.name] = null;
        break;
      default:
        // A field kind added in Rust (generated/elicitation.ts) must be handled here.
        f.kind satisfies never;
    }
  }
  return out;
}

/** Content to hand to `validate_form`: typed values, absent when empty. */
export function buildContent(fields: Field[], raw: RawValues): FormContent {
  const out: FormContent = {};
  for (const f of fields) {
    const v = raw[f.name];
    switch (f.kind.type) {
      case "text":
        if (typeof v === "string" && v !== "") out[f.name] = f.kind.format === "date-time" ? localInputToRfc3339(v) : v;
        break;
      case "number":
      case "integer":
        if (typeof v === "string" && v.trim() !== "") {
          const n = Number(v);
          if (Number.isFinite(n)) out[f.name] = n;
        }
        break;
      case "boolean":
        out[f.name] = v === true;
        break;
      case "singleSelect":
        if (typeof v === "string") out[f.name] = v;
        break;
      case "multiSelect":
        if (Array.isArray(v) && v.length > 0) out[f.name] = [...v];
        break;
      case "list":
        // Every row as typed (the backend drops empty ones and checks each value).
        if (Array.isArray(v) && v.some((x) => x !== "")) out[f.name] = [...v];
        break;
      case "unsupported":
        break;
      default:
        f.kind satisfies never;
    }
  }
  return out;
}

export function fieldLabel(f: Field): string {
  return f.title?.trim() || f.name;
}
