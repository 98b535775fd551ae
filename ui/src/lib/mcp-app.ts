// What the window decides about an MCP App's frame without the app model: its height within
// limits, how often it may change, the text of a message the app asks to add, and the words and
// `allow` attribute of the devices it was given.
import type { AppPermission } from "./protocol";

/** The frame's height before the app says its size, and its limits. */
export const APP_MIN_PX = 120;
export const APP_MAX_PX = 800;

export function clampAppHeight(h: number): number {
  if (!Number.isFinite(h)) return APP_MIN_PX;
  return Math.round(Math.min(APP_MAX_PX, Math.max(APP_MIN_PX, h)));
}

/** Size changes an app may make in a second; more are ignored (a flood must not keep the
 *  transcript laying itself out). */
export const SIZES_PER_SECOND = 10;

export class SizeThrottle {
  #times: number[] = [];
  constructor(private readonly now: () => number = () => performance.now()) {}
  allow(): boolean {
    const t = this.now();
    this.#times = this.#times.filter((x) => t - x < 1000);
    if (this.#times.length >= SIZES_PER_SECOND) return false;
    this.#times.push(t);
    return true;
  }
}

/** The text blocks of what an app sends (`ui/message`, model context), joined; other kinds of
 *  content are left out. Capped: it goes into the prompt box for the person to read. */
export const APP_TEXT_MAX = 16 * 1024;

export function appMessageText(content: unknown): string {
  if (!Array.isArray(content)) return "";
  const text = content
    .filter((b): b is { type: "text"; text: string } => typeof b === "object" && b !== null && b.type === "text" && typeof b.text === "string")
    .map((b) => b.text)
    .join("\n");
  return text.slice(0, APP_TEXT_MAX);
}

/** The devices an app's resource may ask for, as the person reads them and as its frame's
 *  `allow` attribute (Permissions Policy) names them. */
const PERMISSION_WORDS: Record<AppPermission, { label: string; policy: string }> = {
  camera: { label: "your camera", policy: "camera" },
  microphone: { label: "your microphone", policy: "microphone" },
  geolocation: { label: "your location", policy: "geolocation" },
  clipboardWrite: { label: "writing to your clipboard", policy: "clipboard-write" },
};

export function permissionLabels(kinds: AppPermission[]): string {
  return kinds.map((k) => PERMISSION_WORDS[k].label).join(", ");
}

/** The frame's `allow` attribute: only what the person gave the app (empty: nothing). */
export function allowAttribute(granted: AppPermission[]): string {
  return granted.map((k) => PERMISSION_WORDS[k].policy).join("; ");
}

/** The display modes an app is offered: `inline` in its card, and `fullscreen` as the card
 *  opened larger (what the person's "Larger" does). The app stays in its card, under Porthole's
 *  header: it never covers the window, so it cannot draw over the prompt box or Porthole's own
 *  dialogs. No picture-in-picture. */
export type AppDisplayMode = "inline" | "fullscreen";
export const APP_DISPLAY_MODES: AppDisplayMode[] = ["inline", "fullscreen"];

/** The mode an app's `ui/request-display-mode` gets: the one it asked for when offered, else
 *  the one it has (the extension's answer is "the mode actually set"). */
export function displayModeAnswer(requested: unknown, current: AppDisplayMode): AppDisplayMode {
  return APP_DISPLAY_MODES.find((m) => m === requested) ?? current;
}
