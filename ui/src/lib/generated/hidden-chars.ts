// Generated from porthole-elicitation's hidden_chars::HIDDEN_CHARS by
// `PORTHOLE_BLESS=1 cargo test -p porthole-elicitation --test ui_tables`. Do not edit.

/** Characters never shown as themselves: [first, last] code points and the warning they raise. */
export const HIDDEN_CHARS: readonly (readonly [number, number, "bidi-control" | "invisible-char"])[] = [
  [0x0000, 0x0008, "invisible-char"],
  [0x000B, 0x000C, "invisible-char"],
  [0x000E, 0x001F, "invisible-char"],
  [0x007F, 0x009F, "invisible-char"],
  [0x00AD, 0x00AD, "invisible-char"],
  [0x034F, 0x034F, "invisible-char"],
  [0x061C, 0x061C, "bidi-control"],
  [0x115F, 0x1160, "invisible-char"],
  [0x17B4, 0x17B5, "invisible-char"],
  [0x180B, 0x180F, "invisible-char"],
  [0x200B, 0x200D, "invisible-char"],
  [0x200E, 0x200F, "bidi-control"],
  [0x2028, 0x2029, "invisible-char"],
  [0x202A, 0x202E, "bidi-control"],
  [0x2060, 0x2064, "invisible-char"],
  [0x2066, 0x2069, "bidi-control"],
  [0x206A, 0x206F, "invisible-char"],
  [0x3164, 0x3164, "invisible-char"],
  [0xFE00, 0xFE0F, "invisible-char"],
  [0xFEFF, 0xFEFF, "invisible-char"],
  [0xFFA0, 0xFFA0, "invisible-char"],
  [0xE0000, 0xE007F, "invisible-char"],
  [0xE0100, 0xE01EF, "invisible-char"],
];
