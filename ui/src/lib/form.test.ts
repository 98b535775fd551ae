import { describe, expect, it } from "vitest";
import { buildContent, initialRaw, localInputToRfc3339, rfc3339ToLocalInput } from "./form";
import { configureForm } from "./mock";

describe("form value conversion", () => {
  it("datetime-local round-trips through RFC 3339 with the local offset", () => {
    const local = "2026-12-03T09:30";
    const rfc = localInputToRfc3339(local);
    expect(rfc).toMatch(/^2026-12-03T09:30:00[+-]\d{2}:\d{2}$/);
    expect(new Date(rfc).getTime()).toBe(new Date(2026, 11, 3, 9, 30).getTime());
    expect(rfc3339ToLocalInput(rfc)).toBe(local);
  });

  it("numbers are sent as numbers, empty as absent, booleans always", () => {
    const d = configureForm(1);
    const raw = initialRaw(d.schema.fields, d.initialValues);
    raw.budget = "";
    raw.workers = "8";
    const c = buildContent(d.schema.fields, raw);
    expect(c.workers).toBe(8);
    expect("budget" in c).toBe(false);
    expect(c.telemetry).toBe(false);
    expect("strategy" in c).toBe(false);
    expect(c.targets).toEqual(["linux"]);
  });
});
