import { describe, expect, it } from "vitest";
import { fireEvent, render, screen, within } from "@testing-library/svelte";
import DialogHost from "./DialogHost.svelte";
import { FakeBackend, feed, flush, storeWith } from "../test/fake";
import { configureForm, questionForm, secretForm } from "../lib/mock";
import { validateFromCases } from "../lib/mock-validation";
import type { FormElicitation, Validation } from "../lib/protocol";

function setup(d: FormElicitation, impl: ConstructorParameters<typeof FakeBackend>[0] = {}) {
  const backend = new FakeBackend({
    // The fake answers with core's recorded verdicts (mock-validation.json), as the mock does.
    validate_form: ({ content }) => validateFromCases(d.schema.fields, content),
    ...impl,
  });
  const store = storeWith([d]);
  const r = render(DialogHost, { props: { backend, store } });
  return { backend, store, ...r };
}

const input = (label: RegExp | string) => screen.getByLabelText(label) as HTMLInputElement;

describe("form dialog", () => {
  it("names the agent, shows the message as text and the scope", () => {
    const d = configureForm(1);
    d.message = "<b>not bold</b>";
    setup(d);
    const dlg = screen.getByRole("dialog");
    expect(dlg.getAttribute("aria-modal")).toBe("true");
    expect(dlg.getAttribute("aria-labelledby")).toBeTruthy();
    expect(dlg.textContent).toContain("Demo Agent");
    expect(dlg.textContent).toContain("asks");
    expect(dlg.querySelector(".dlg-message")!.textContent).toBe("<b>not bold</b>");
    expect(dlg.querySelector("b")).toBeNull();
    // The ids are behind "Details", closed: a person reads the question, not its ids.
    const details = dlg.querySelector("details.dlg-details") as HTMLDetailsElement;
    expect(details.open).toBe(false);
    expect(details.querySelector("summary")!.textContent).toBe("Details");
    expect(details.querySelector(".dlg-ids")!.textContent).toBe("Session demo-1 · Tool call tc-3");
    expect(dlg.querySelector(".dlg-head")!.textContent!.replace(details.textContent!, "")).not.toContain("demo-1");
  });

  it("renders the right control for every field type", () => {
    setup(configureForm(1));
    expect(input(/Project name/).type).toBe("text");
    expect(input(/Contact email/).type).toBe("email");
    expect(input(/Homepage/).type).toBe("url");
    expect(input(/Release date/).type).toBe("date");
    expect(input(/Next stand-up/).type).toBe("datetime-local");
    const budget = input(/Token budget/);
    expect(budget.type).toBe("number");
    expect(budget.min).toBe("0.5");
    expect(budget.max).toBe("100");
    const workers = input(/Parallel workers/);
    expect(workers.type).toBe("number");
    expect(workers.step).toBe("1");
    expect(input(/Send anonymous telemetry/).type).toBe("checkbox");
    const radios = screen.getByRole("radiogroup");
    expect(within(radios).getAllByRole("radio").length).toBe(3);
    expect(radios.textContent).toContain("Small, safe steps");
    expect(screen.getByLabelText(/License/).tagName).toBe("SELECT");
    expect(screen.getByText("Build targets").closest("fieldset")!.querySelectorAll("input[type=checkbox]").length).toBe(3);
    expect(screen.getByText("Choose 1 to 2.")).toBeTruthy();
    expect(screen.getByText(/This field type \(object\) is not supported by Porthole: properties of type `object` are not supported/)).toBeTruthy();
  });

  it("says what each field accepts before the user types, as core words it", () => {
    setup(configureForm(1));
    const p = input(/Project name/);
    const hint = screen.getByText("3 to 32 characters; must match the pattern ^[a-z0-9-]+$.");
    expect(p.getAttribute("aria-describedby")).toContain(hint.id);
    expect(screen.getByText("A whole number, 1 to 16.")).toBeTruthy();
    expect(input(/Release date/).hasAttribute("data-empty")).toBe(false);
  });

  it("marks an empty date input so it does not look filled in", () => {
    const d = configureForm(1);
    delete d.initialValues.release;
    setup(d);
    expect(input(/Release date/).hasAttribute("data-empty")).toBe(true);
  });

  it("uses minlength/maxlength attributes as hints only", () => {
    setup(configureForm(1));
    const p = input(/Project name/);
    expect(p.getAttribute("minlength")).toBe("3");
    expect(p.getAttribute("maxlength")).toBe("32");
    expect(p.getAttribute("pattern")).toBeNull();
  });

  it("pre-fills defaults from initialValues (date-time converted to local)", () => {
    setup(configureForm(1));
    expect(input(/Project name/).value).toBe("porthole");
    expect(input(/Release date/).value).toBe("2027-01-15");
    const local = input(/Next stand-up/).value;
    expect(new Date(local).getTime()).toBe(new Date("2026-12-03T09:30:00Z").getTime());
    expect(input(/Token budget/).value).toBe("12.5");
    expect(input(/Parallel workers/).value).toBe("4");
    expect(input(/Send anonymous telemetry/).checked).toBe(false);
    expect((screen.getByLabelText(/Linux/) as HTMLInputElement).checked).toBe(true);
  });

  it("marks required fields visibly and with aria-required", () => {
    setup(configureForm(1));
    const p = input(/Project name/);
    expect(p.getAttribute("aria-required")).toBe("true");
    expect(document.querySelector(`label[for="${p.id}"] .req`)?.textContent).toContain("*");
    expect(input(/Homepage/).getAttribute("aria-required")).toBe("false");
    expect(screen.getByRole("radiogroup").getAttribute("aria-required")).toBe("true");
  });

  it("a required single-select without default starts with nothing selected", () => {
    setup(configureForm(1));
    const radios = within(screen.getByRole("radiogroup")).getAllByRole("radio") as HTMLInputElement[];
    expect(radios.some((r) => r.checked)).toBe(false);
    expect((screen.getByLabelText(/License/) as HTMLSelectElement).value).toBe("");
  });

  it("disables Submit and shows the blocking reason when canAccept is false", () => {
    const d = configureForm(1);
    d.schema.fields.find((f) => f.name === "layout")!.required = true;
    d.canAccept = false;
    d.blockingReason = "A required field uses a type Porthole cannot show.";
    setup(d);
    expect((screen.getByRole("button", { name: /Submit/ }) as HTMLButtonElement).disabled).toBe(true);
    expect(screen.getByText(/A required field uses a type Porthole cannot show/)).toBeTruthy();
  });

  it("shows backend errors under each field on Submit", async () => {
    const { backend } = setup(configureForm(1));
    await fireEvent.input(input(/Contact email/), { target: { value: "nope" } });
    await fireEvent.click(screen.getByRole("button", { name: /Submit/ }));
    await flush();
    expect(backend.callsOf("validate_form").length).toBeGreaterThan(0);
    const email = input(/Contact email/);
    expect(email.getAttribute("aria-invalid")).toBe("true");
    const errId = email.getAttribute("aria-describedby")!.split(" ").pop()!; // after the hint
    // Core's words (the mock answers with core's recorded verdicts).
    expect(document.getElementById(errId)!.textContent).toContain("Must be a valid email address.");
    expect(screen.getByRole("radiogroup").closest(".field")!.textContent).toContain("This field is required.");
    expect(screen.queryByText("Review before sending")).toBeNull();
  });

  it("validates on blur and shows only that field's error", async () => {
    setup(configureForm(1));
    await fireEvent.input(input(/Project name/), { target: { value: "X!" } });
    await fireEvent.blur(input(/Project name/));
    await flush();
    expect(input(/Project name/).closest(".field")!.textContent).toMatch(/at least 3|required format/);
    expect(screen.getByRole("radiogroup").closest(".field")!.textContent).not.toContain("This field is required.");
  });

  it("shows only errors from the backend (never validates itself)", async () => {
    const d = configureForm(1);
    const { backend } = setup(d, { validate_form: () => ({ content: {}, errors: [{ field: "homepage", code: "x", message: "Backend says no." }] }) });
    await fireEvent.input(input(/Project name/), { target: { value: "INVALID per pattern!!" } });
    await fireEvent.click(screen.getByRole("button", { name: /Submit/ }));
    await flush();
    expect(backend.callsOf("validate_form").length).toBeGreaterThanOrEqual(1);
    expect(input(/Homepage/).closest(".field")!.textContent).toContain("Backend says no.");
    expect(input(/Project name/).getAttribute("aria-invalid")).toBeNull();
  });

  async function fillValid() {
    await fireEvent.input(input(/Contact email/), { target: { value: "me@example.org" } });
    await fireEvent.click(screen.getByLabelText(/Balanced/));
    await fireEvent.change(screen.getByLabelText(/License/), { target: { value: "MIT" } });
  }

  it("review step lists exactly the validated content; Back keeps values", async () => {
    const validated: Validation = { content: { project: "porthole", email: "me@example.org", telemetry: true, targets: ["linux", "macos"], workers: 4, strategy: "balanced", license: "MIT" }, errors: [] };
    setup(configureForm(1), { validate_form: () => validated });
    await fillValid();
    await fireEvent.click(screen.getByRole("button", { name: /Submit/ }));
    await flush();
    expect(screen.getByText("Review before sending")).toBeTruthy();
    const review = document.querySelector("dl.review")!;
    const row = (label: string) => Array.from(review.querySelectorAll(".review-row")).find((r) => r.querySelector("dt")!.textContent === label)!;
    expect(row("Send anonymous telemetry").querySelector("dd")!.textContent).toBe("Yes");
    expect(row("Contact email").querySelector("dd")!.textContent).toBe("me@example.org");
    expect(Array.from(row("Build targets").querySelectorAll("li")).map((l) => l.textContent)).toEqual(["Linux (linux)", "macOS (macos)"]);
    expect(row("Homepage").textContent).toContain("not sent");
    expect(row("Token budget").textContent).toContain("not sent");
    await fireEvent.click(screen.getByRole("button", { name: "Back to edit" }));
    expect(input(/Contact email/).value).toBe("me@example.org");
    expect((screen.getByLabelText(/Balanced/) as HTMLInputElement).checked).toBe(true);
  });

  it("Send calls answer_dialog accept with the validated content", async () => {
    const d = configureForm(1);
    const { backend, store } = setup(d);
    await fillValid();
    await fireEvent.click(screen.getByRole("button", { name: /Submit/ }));
    await flush();
    const expected = validateFromCases(d.schema.fields, backend.callsOf("validate_form").at(-1).content).content;
    await fireEvent.click(screen.getByRole("button", { name: "Send" }));
    await flush();
    const ans = backend.callsOf("answer_dialog");
    expect(ans).toEqual([{ dialogId: 1, answer: { type: "elicitation", action: "accept", content: expected } }]);
    expect(typeof ans[0].answer.content.workers).toBe("number");
    expect(store.dialogs.length).toBe(0);
  });

  it("returns to the form with errors when answer_dialog says invalid", async () => {
    const d = configureForm(1);
    setup(d, {
      answer_dialog: () => {
        throw { kind: "invalid", validation: { content: {}, errors: [{ field: "email", code: "taken", message: "Already registered." }] } };
      },
    });
    await fillValid();
    await fireEvent.click(screen.getByRole("button", { name: /Submit/ }));
    await flush();
    await fireEvent.click(screen.getByRole("button", { name: "Send" }));
    await flush();
    expect(screen.queryByText("Review before sending")).toBeNull();
    expect(input(/Contact email/).closest(".field")!.textContent).toContain("Already registered.");
  });

  it("Esc cancels", async () => {
    const { backend, store } = setup(configureForm(1));
    await fireEvent.keyDown(screen.getByRole("dialog"), { key: "Escape" });
    await flush();
    expect(backend.callsOf("answer_dialog")).toEqual([{ dialogId: 1, answer: { type: "elicitation", action: "cancel" } }]);
    expect(store.dialogs.length).toBe(0);
  });

  it("Decline declines and Cancel cancels", async () => {
    const { backend } = setup(configureForm(1));
    await fireEvent.click(screen.getByRole("button", { name: "Decline" }));
    await flush();
    expect(backend.callsOf("answer_dialog")).toEqual([{ dialogId: 1, answer: { type: "elicitation", action: "decline" } }]);
  });

  it("Cancel button sends cancel", async () => {
    const { backend } = setup(configureForm(1));
    await fireEvent.click(screen.getByRole("button", { name: "Cancel" }));
    await flush();
    expect(backend.callsOf("answer_dialog")).toEqual([{ dialogId: 1, answer: { type: "elicitation", action: "cancel" } }]);
  });

  it("secret request: red warning, indicators, Decline focused, Submit needs confirmation", async () => {
    setup(secretForm(2));
    const alert = document.querySelector(".secret-warning")!;
    expect(alert.textContent).toContain("Demo Agent is asking for a secret (password, token or key) in a form.");
    expect(alert.textContent).toContain("The protocol forbids this");
    expect(alert.textContent).toContain("api_token");
    expect(document.activeElement).toBe(screen.getByRole("button", { name: "Decline" }));
    const submit = screen.getByRole("button", { name: /Submit/ }) as HTMLButtonElement;
    expect(submit.disabled).toBe(true);
    await fireEvent.click(screen.getByLabelText(/I understand the risk/));
    expect(submit.disabled).toBe(false);
  });

  it("a withdrawn question closes its dialog, with a short note in its session and nothing to press", async () => {
    const { backend, store } = setup(configureForm(1));
    feed(store, [{ type: "dialog_dismissed", dialogId: 1, reason: "agent_exited" }]);
    await flush();
    expect(screen.queryByRole("dialog")).toBeNull();
    expect(store.dialogs.length).toBe(0);
    const notes = store.transcripts.get("demo-1")!.items.filter((i) => i.kind === "notice");
    expect(notes.map((n) => (n as { text: string }).text)).toEqual([
      `Withdrawn before you answered: “${configureForm(1).message}” — The agent stopped running.`,
    ]);
    expect(backend.callsOf("answer_dialog")).toEqual([]);
  });

  it("shows '1 of N' when several dialogs are queued and acks dialog_shown", async () => {
    const { backend, store } = setup(configureForm(1));
    feed(store, [secretForm(2)]);
    await flush();
    expect(screen.getByText("1 of 2")).toBeTruthy();
    await new Promise((r) => requestAnimationFrame(() => r(null)));
    await flush();
    expect(backend.callsOf("dialog_shown")).toEqual([{ dialogId: 1 }]);
  });

  it("shows a request scope as agent level, with what Porthole was doing", () => {
    const d = configureForm(1);
    d.scope = { kind: "request", requestId: 7, during: "session/new" };
    setup(d);
    expect(screen.getByText("Agent level · while opening a session")).toBeTruthy();
  });

  it("shows a request scope that names no request of ours as outside any session", () => {
    const d = configureForm(1);
    d.scope = { kind: "request", requestId: "setup-1", during: null };
    setup(d);
    expect(screen.getByText("Agent level · outside any session")).toBeTruthy();
  });

  it("Esc works even when focus is outside the dialog", async () => {
    const { backend } = setup(configureForm(1));
    (document.activeElement as HTMLElement | null)?.blur();
    await fireEvent.keyDown(window, { key: "Escape" });
    await flush();
    expect(backend.callsOf("answer_dialog")).toEqual([{ dialogId: 1, answer: { type: "elicitation", action: "cancel" } }]);
  });

  it("the next waiting question takes the place of a withdrawn one", async () => {
    const { store } = setup(configureForm(1));
    feed(store, [secretForm(2), { type: "dialog_dismissed", dialogId: 1, reason: "session_ended" }]);
    await flush();
    expect(store.active?.dialogId).toBe(2);
    expect(screen.getAllByRole("dialog").length).toBe(1);
  });

  it("field descriptions and option titles render as text, never HTML", () => {
    const d = configureForm(1);
    d.schema.fields[0].description = "<img src=x onerror=alert(1)>";
    d.schema.fields[0].title = "<i>Name</i>";
    setup(d);
    expect(document.querySelector(".dialog img")).toBeNull();
    expect(document.querySelector(".dialog i")).toBeNull();
    expect(screen.getByText("<img src=x onerror=alert(1)>")).toBeTruthy();
  });
});

describe("agents' question forms (core's markers: an Other box inside its question, masked answers)", () => {
  const sendAll = async () => {
    await fireEvent.click(screen.getByLabelText(/I understand the risk/));
    await fireEvent.click(screen.getByRole("button", { name: /Submit/ }));
    await flush();
  };

  it("shows the Other box only inside its question, behind Other…, and sends it under its own name", async () => {
    const d = questionForm(1);
    const { backend } = setup(d);
    // Claude's `question_0_custom` is not a field of its own on the form.
    expect(screen.queryByLabelText("Other")).toBeNull();
    const color = screen.getByText("Color").closest("fieldset")!;
    await fireEvent.click(within(color).getByLabelText("Other…"));
    const box = within(color).getByLabelText("Other") as HTMLInputElement;
    await fireEvent.input(box, { target: { value: "Magenta" } });
    expect(within(color).getByText(/add a note to the option you chose above/)).toBeTruthy();
    // Codex's "None of the above" is its question's Other: choosing it reveals the note.
    const accent = screen.getByText("Which accent?").closest("fieldset")!;
    expect(within(accent).queryByLabelText("Other…")).toBeNull();
    expect(within(accent).queryByLabelText("Additional answer or note")).toBeNull();
    await fireEvent.click(within(accent).getByLabelText(/None of the above/));
    await fireEvent.input(within(accent).getByLabelText("Additional answer or note"), { target: { value: "Silver" } });
    await fireEvent.input(input(/Unlock phrase/), { target: { value: "open sesame" } });
    await sendAll();
    expect(backend.callsOf("validate_form").at(-1).content).toEqual({
      question_0_custom: "Magenta",
      accent: "None of the above",
      accent_note: "Silver",
      unlock_phrase: "open sesame",
    });
    const review = document.querySelector("dl.review")!;
    expect(review.textContent).toContain("Color: Other");
    expect(review.textContent).toContain("Magenta");
    expect(review.textContent).not.toContain("open sesame");
    await fireEvent.click(screen.getByRole("button", { name: "Send" }));
    await flush();
    expect(backend.callsOf("answer_dialog")[0].answer.content.question_0_custom).toBe("Magenta");
  });

  it("a multi-select's Other… is one more pick whose text joins the picks", async () => {
    const { backend } = setup(questionForm(1));
    const extras = screen.getByText("Extras").closest("fieldset")!;
    expect(within(extras).queryByLabelText("Other")).toBeNull();
    await fireEvent.click(within(extras).getByLabelText(/Docs/));
    await fireEvent.click(within(extras).getByLabelText("Other…"));
    await fireEvent.input(within(extras).getByLabelText("Other"), { target: { value: "a CHANGELOG" } });
    await fireEvent.click(screen.getByLabelText(/Gold/));
    await sendAll();
    expect(backend.callsOf("validate_form").at(-1).content).toEqual({
      question_1: ["Docs"],
      question_1_custom: "a CHANGELOG",
      accent: "Gold",
    });
    // Unticking Other… hides the box and drops the text.
    await fireEvent.click(screen.getByRole("button", { name: "Back to edit" }));
    const again = screen.getByText("Extras").closest("fieldset")!;
    await fireEvent.click(within(again).getByLabelText("Other…"));
    expect(within(again).queryByLabelText("Other")).toBeNull();
  });

  it("choosing an option after Other… hides the box and drops what was typed", async () => {
    const { backend } = setup(questionForm(1));
    const color = screen.getByText("Color").closest("fieldset")!;
    await fireEvent.click(within(color).getByLabelText("Other…"));
    await fireEvent.input(within(color).getByLabelText("Other"), { target: { value: "Magenta" } });
    await fireEvent.click(within(color).getByLabelText(/Teal/));
    expect(within(color).queryByLabelText("Other")).toBeNull();
    await fireEvent.click(screen.getByLabelText(/Gold/));
    await sendAll();
    expect(backend.callsOf("validate_form").at(-1).content).toEqual({ question_0: "Teal", accent: "Gold" });
  });

  it("masks a field the agent marks secret, flags the form, and shows option descriptions and previews", () => {
    setup(questionForm(1));
    const phrase = input(/Unlock phrase/);
    expect(phrase.type).toBe("password");
    expect(document.querySelector(".secret-warning")!.textContent).toContain("marked secret by the agent");
    expect(screen.getByText("Calm, good contrast")).toBeTruthy();
    expect(screen.getByText("#008080 on #ffffff").tagName).toBe("PRE");
  });
});
