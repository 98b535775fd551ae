import { describe, expect, it } from "vitest";
import { render } from "@testing-library/svelte";
import ToolCard from "./ToolCard.svelte";
import { AppStore } from "../lib/store.svelte";

const text = (t: string) => ({ type: "content" as const, content: { type: "text" as const, text: t } });

describe("tool card content", () => {
  it("renders an agent's markdown output (a fenced command output) safely, with no links", () => {
    const fields = {
      title: "echo hi",
      kind: "execute" as const,
      status: "completed" as const,
      content: [text("```console\nhi\n```\n[docs](https://evil.example/x) <img src=x onerror=alert(1)>")],
    };
    const { container } = render(ToolCard, { props: { fields, toolCallId: "t1", store: new AppStore() } });
    expect(container.querySelector(".tool-text pre code")?.textContent).toBe("hi\n");
    expect(container.textContent).not.toContain("```");
    expect(container.querySelectorAll("a, img, [onerror]").length).toBe(0);
    expect(container.querySelector(".link-text")?.textContent).toContain("(https://evil.example/x)");
  });

  it("keeps a very large output as plain text", () => {
    const big = `# not a heading\n${"x".repeat(70 * 1024)}`;
    const fields = { title: "cat big", kind: "read" as const, status: "completed" as const, content: [text(big)] };
    const { container } = render(ToolCard, { props: { fields, toolCallId: "t2", store: new AppStore() } });
    expect(container.querySelector("pre.tool-text")?.textContent?.startsWith("# not a heading")).toBe(true);
    expect(container.querySelector("h1")).toBeNull();
  });
});
