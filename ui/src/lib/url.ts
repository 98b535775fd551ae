// Display helpers for the URL consent dialog (analysis itself comes from the backend).
import type { UrlAnalysis, UrlWarningCode } from "./protocol";
import { HIDDEN_CHARS } from "./generated/hidden-chars";
import { WARNING_TEXT } from "./generated/warning-text";

/** The words for each warning code: core's, generated (never worded here). */
export const URL_WARNING_TEXT = WARNING_TEXT;

export function warningText(code: string): string {
  return (URL_WARNING_TEXT as Record<string, string>)[code] ?? `Warning: ${code}`;
}

export interface Segment { text: string; role: "plain" | "host" | "domain" }

/** A global regex matching the characters of `HIDDEN_CHARS` that raise `only` (or any warning). */
function hiddenCharClass(only?: "bidi-control" | "invisible-char"): RegExp {
  const hex = (n: number) => `\\u{${n.toString(16)}}`;
  const ranges = HIDDEN_CHARS.filter(([, , w]) => !only || w === only).map(([a, b]) => (a === b ? hex(a) : `${hex(a)}-${hex(b)}`));
  return new RegExp(`[${ranges.join("")}]`, "gu");
}

/** "⟨U+202E⟩": how a hidden character is shown (the same form as core's `neutralize`). */
function codePoint(c: string): string {
  return `⟨U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}⟩`;
}

/** Bidi controls and invisible characters (core's table) are shown as visible escapes, never applied. */
const HIDDEN = hiddenCharClass();
export function revealHidden(s: string): string {
  return s.replace(HIDDEN, codePoint);
}

/** Only text-direction controls: shown visibly in agent messages (emoji ZWJ sequences stay intact). */
const BIDI = hiddenCharClass("bidi-control");
export function revealBidi(s: string): string {
  return s.replace(BIDI, codePoint);
}

/** Split `host` into [prefix, registrable domain] (domain matched at the end). */
export function splitHost(host: string, domain: string | null): Segment[] {
  if (domain && host.toLowerCase().endsWith(domain.toLowerCase()) && domain.length > 0) {
    const cut = host.length - domain.length;
    const segs: Segment[] = [];
    if (cut > 0) segs.push({ text: host.slice(0, cut), role: "host" });
    segs.push({ text: host.slice(cut), role: "domain" });
    return segs;
  }
  return [{ text: host, role: "host" }];
}

/**
 * The full URL as segments with the host (and registrable domain inside it) marked.
 * Never truncates: the concatenation of the segments' text is exactly `url.full`.
 */
export function urlSegments(url: UrlAnalysis): Segment[] {
  const full = url.full;
  const schemeEnd = full.indexOf("://");
  const from = schemeEnd >= 0 ? schemeEnd + 3 : 0;
  const lower = full.toLowerCase();
  const candidates: [string, string | null][] = [
    [url.hostAscii, url.registrableDomainAscii],
    [url.hostUnicode, url.registrableDomain],
  ];
  for (const [host, dom] of candidates) {
    if (!host) continue;
    const at = lower.indexOf(host.toLowerCase(), from);
    if (at < 0) continue;
    const segs: Segment[] = [];
    if (at > 0) segs.push({ text: full.slice(0, at), role: "plain" });
    segs.push(...splitHost(full.slice(at, at + host.length), dom));
    if (at + host.length < full.length) segs.push({ text: full.slice(at + host.length), role: "plain" });
    return segs;
  }
  return [{ text: full, role: "plain" }];
}
