// The mock backend's answer to `validate_form`. The mock has no validator of its own: core is
// the one source of truth, so porthole-app's `mock_dialogs.rs` writes core's verdict on each
// sample value of each field of the mock's forms (`mock-validation.json`), and the mock looks
// the user's values up there. A value that is not listed gets an error that says so.
import type { Field, FieldError, FormContent, FormValue, Validation } from "./protocol";
import cases from "./generated/mock-validation.json";

/** Core's verdict on one value of one field (`value` absent: the field was left out). */
interface Case {
  value?: FormValue;
  content?: FormValue;
  errors: FieldError[];
}

const CASES = cases as unknown as { unknownField: { code: string; message: string }; fields: Record<string, Case[]> };

const same = (a: FormValue | undefined, b: FormValue | undefined) => JSON.stringify(a) === JSON.stringify(b);

/** Validate `content` against a mock form's `fields` as core would (core's recorded verdicts). */
export function validateFromCases(fields: Field[], content: FormContent): Validation {
  const errors: FieldError[] = [];
  const out: FormContent = {};
  for (const f of fields) {
    const value = content[f.name];
    const verdict = CASES.fields[f.name]?.find((c) => same(c.value, value));
    if (!verdict) {
      errors.push({
        field: f.name,
        code: "mock-unlisted",
        message: `The mock backend knows core's verdict only on the sample values in porthole-app's mock_dialogs.rs; ${JSON.stringify(value)} is not one of them.`,
      });
      continue;
    }
    if (verdict.content !== undefined) out[f.name] = verdict.content;
    errors.push(...verdict.errors);
  }
  for (const key of Object.keys(content)) {
    if (!fields.some((f) => f.name === key)) errors.push({ field: key, ...CASES.unknownField });
  }
  return { content: out, errors };
}
