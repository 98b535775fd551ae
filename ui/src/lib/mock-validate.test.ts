// The mock backend's validator (test scaffolding for the browser tests; the window itself asks
// core) must agree with core on core's own golden cases (written by
// crates/porthole-elicitation/tests/ui_tables.rs): same errors (field and code, in order) and
// the same normalized content.
import { describe, expect, it } from "vitest";
import golden from "../test/fixtures/validation-golden.json";
import { mockValidate } from "./mock";
import type { FormContent, FormSchema, Validation } from "./protocol";

const schema = golden.schema as unknown as FormSchema;

describe("the mock validator agrees with core", () => {
  for (const [i, c] of golden.cases.entries()) {
    it(`case ${i}: ${JSON.stringify(c.content)}`, () => {
      const core = c.validation as unknown as Validation;
      const mock = mockValidate(schema.fields, c.content as FormContent);
      expect(mock.errors.map((e) => [e.field, e.code])).toEqual(core.errors.map((e) => [e.field, e.code]));
      expect(mock.content).toEqual(core.content);
    });
  }
});
