// The mock answers `validate_form` with core's recorded verdicts (mock-validation.json, written
// by porthole-app's mock_dialogs.rs), never with rules of its own.
import { describe, expect, it } from "vitest";
import { configureForm } from "./mock";
import { validateFromCases } from "./mock-validation";

const fields = configureForm(1).schema.fields;

describe("the mock's validation", () => {
  it("is core's verdict on the listed values: errors in field order, the content as core normalizes it", () => {
    const v = validateFromCases(fields, { project: "X!", email: "me@example.org", workers: 17, targets: ["linux"] });
    expect(v.errors.map((e) => [e.field, e.code])).toEqual([
      ["project", "minLength"],
      ["project", "pattern"],
      ["workers", "maximum"],
      ["strategy", "required"],
      ["license", "required"],
    ]);
    expect(v.content).toEqual({ email: "me@example.org", targets: ["linux"] });
  });

  it("says so when a value is not among the recorded ones, and refuses keys that are not fields", () => {
    const v = validateFromCases(fields, { project: "something-else", extra: 1 });
    expect(v.errors.find((e) => e.field === "project")?.code).toBe("mock-unlisted");
    expect(v.errors.find((e) => e.field === "extra")?.code).toBe("unknownField");
  });
});
