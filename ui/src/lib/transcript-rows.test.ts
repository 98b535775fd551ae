import { describe, expect, it } from "vitest";
import { TextItem, Transcript } from "./store.svelte";
import { TranscriptRows } from "./transcript-rows";
import { seededRandom } from "../test/random";
import type { TranscriptUpdate } from "./protocol";

const say = (messageId: string, text: string): TranscriptUpdate =>
  ({ kind: "message", role: "agent", messageId, op: "append", content: { type: "text", text } });
const tool = (toolCallId: string): TranscriptUpdate => ({ kind: "tool_call", toolCallId, opened: true, fields: { title: toolCallId, status: "pending" } });

/** Each item's rows are together, in transcript order, its segments 0..n-1; keys are unique. */
function expectRowsMatch(t: Transcript, rows: TranscriptRows) {
  const want = t.items.flatMap((item) =>
    Array.from({ length: item instanceof TextItem ? item.segmentCount : 1 }, (_, segment) => ({ item, segment })),
  );
  expect(rows.rows.map((r) => ({ item: r.item, segment: r.segment }))).toEqual(want);
  expect(rows.keys).toEqual(rows.rows.map((r) => r.key));
  expect(new Set(rows.keys).size).toBe(rows.keys.length);
}

describe("transcript rows", () => {
  it("follow messages that grow segments in any order, between tool calls", () => {
    const rand = seededRandom(5);
    const t = new Transcript("s");
    const rows = new TranscriptRows(t);
    const paragraph = (i: number) => `${i} ${"lorem ipsum ".repeat(20 + rand(40))}\n\n`;
    let toolCalls = 0;
    for (let step = 0; step < 300; step++) {
      const op = rand(6);
      if (op === 0) t.apply(tool(`t${toolCalls++}`));
      // Three messages grow by turns, so that earlier ones gain segments before later rows.
      else t.apply(say(`m${op % 3}`, paragraph(step)));
      if (step % 7 === 0) t.settle();
      if (rand(3) === 0) {
        rows.update();
        expectRowsMatch(t, rows);
      }
    }
    while (t.settle() > 0);
    rows.update();
    expectRowsMatch(t, rows);
    expect(rows.rows.length).toBeGreaterThan(t.items.length + 10);
  });
});
