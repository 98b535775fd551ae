// The transcript's first-use costs, paid once right after the window's first paint instead of
// in the first frame of the first reply (issue 16). That frame cost 52-57 ms of the window's own
// code for 17 rows, where the next frame's 130 rows took 12 ms: the first layout of each text
// style (WebKitGTK finds and loads the font faces and sizes then), the first markdown render
// (marked and DOMPurify set up, their code compiled) and the first mount of each row component.
// The real components render a sample offscreen, are laid out, and are removed.
import { mount, unmount } from "svelte";
import AgentMessage from "./AgentMessage.svelte";
import ToolCard from "./ToolCard.svelte";
import { TextItem, type AppStore } from "../lib/store.svelte";

/** Every kind of text an agent reply usually holds: headings, emphasis, code, lists, a link. */
const SAMPLE_REPLY =
  "# Title\n\n## Part\n\n### Step\n\nSome *emphasis*, **weight**, `code` and a [link](https://example.invalid/).\n\n" +
  "- one\n- two\n\n1. first\n\n> quoted\n\n```\nlet code = 1;\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |\n";

export function warmUpTranscript(store: AppStore): void {
  const box = document.createElement("div");
  box.setAttribute("aria-hidden", "true");
  box.inert = true;
  // Laid out (fonts are loaded at layout), never seen and never painted.
  box.style.cssText = "position: absolute; left: -10000px; top: 0; width: 50rem; contain: layout paint;";
  document.body.appendChild(box);
  try {
    const components = [
      mount(AgentMessage, { target: box, props: { item: new TextItem("agent", null, SAMPLE_REPLY) } }),
      mount(ToolCard, {
        target: box,
        props: {
          fields: { title: "Read a file", kind: "read", status: "completed", content: [{ type: "content", content: { type: "text", text: "`output`" } }] },
          toolCallId: "warm-up",
          store,
        },
      }),
    ];
    void box.offsetHeight;
    for (const c of components) void unmount(c);
  } finally {
    box.remove();
  }
}
