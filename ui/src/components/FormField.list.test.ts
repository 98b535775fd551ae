// A list field (Porthole's own forms only: a registry entry's repeated argument, an MCP bundle's
// several folders): a row per value, added and removed; the content sent holds every row as
// typed (the backend drops empty ones and checks each value).
import { describe, expect, it } from "vitest";
import { fireEvent, render, screen } from "@testing-library/svelte";
import FormField from "./FormField.svelte";
import { buildContent, initialRaw, type RawValue } from "../lib/form";
import type { Field } from "../lib/protocol";

const field: Field = {
  name: "target_dir",
  title: "Folders",
  description: null,
  required: true,
  kind: {
    type: "list",
    item: { type: "text", minLength: null, maxLength: null, pattern: null, format: null, default: null },
    minItems: null,
    maxItems: null,
    default: [],
  },
  masked: false,
  other: null,
  otherOf: null,
};

describe("a list field", () => {
  it("starts with one row, adds and removes rows, and sends every value", async () => {
    const raw = initialRaw([field], {});
    expect(raw.target_dir).toEqual([""]);
    expect(buildContent([field], raw)).toEqual({});
    expect(initialRaw([field], { target_dir: ["/a"] }).target_dir).toEqual(["/a"]);

    const value: RawValue = raw.target_dir;
    render(FormField, {
      props: { field, id: "f", value, errors: [], onblur: () => {}, hint: "Any number of values, one a row." },
    });
    const seen = () => screen.getAllByRole("textbox") as HTMLInputElement[];
    expect(seen()).toHaveLength(1);
    await fireEvent.input(seen()[0], { target: { value: "/srv/a" } });
    await fireEvent.click(screen.getByRole("button", { name: "Add a value" }));
    expect(seen()).toHaveLength(2);
    await fireEvent.input(seen()[1], { target: { value: "/srv/b" } });
    expect(seen().map((i) => i.value)).toEqual(["/srv/a", "/srv/b"]);
    expect(screen.getByLabelText("Folders, value 2")).toBe(seen()[1]);
    await fireEvent.click(screen.getByRole("button", { name: "Remove value 1" }));
    expect(seen().map((i) => i.value)).toEqual(["/srv/b"]);
    // The last row removed: one empty row is left to type in.
    await fireEvent.click(screen.getByRole("button", { name: "Remove value 1" }));
    expect(seen().map((i) => i.value)).toEqual([""]);
    expect(buildContent([field], { target_dir: ["/srv/a", "", "/srv/b"] })).toEqual({ target_dir: ["/srv/a", "", "/srv/b"] });
  });
});
