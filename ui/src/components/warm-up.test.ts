import { afterEach, describe, expect, it } from "vitest";
import { warmUpTranscript } from "./warm-up";
import { AppStore } from "../lib/store.svelte";

const offsetHeight = Object.getOwnPropertyDescriptor(HTMLElement.prototype, "offsetHeight")!;
afterEach(() => Object.defineProperty(HTMLElement.prototype, "offsetHeight", offsetHeight));

describe("transcript warm-up", () => {
  it("lays out a reply and a tool card, then leaves the document and the store as they were", () => {
    // What was laid out: the box's content when its height is read.
    let laidOut = "";
    Object.defineProperty(HTMLElement.prototype, "offsetHeight", {
      configurable: true,
      get(this: HTMLElement) {
        laidOut = this.innerHTML;
        return 0;
      },
    });
    const store = new AppStore();
    const before = document.body.innerHTML;
    warmUpTranscript(store);
    expect(laidOut).toContain("<h1>Title</h1>");
    expect(laidOut).toContain("<pre><code>let code = 1;");
    expect(laidOut).toContain("Read a file");
    expect(laidOut).not.toContain("<a ");
    expect(document.body.innerHTML).toBe(before);
    expect(store.items.length).toBe(0);
    expect(store.transcripts.size).toBe(0);
  });
});
