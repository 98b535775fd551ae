// Who may give an MCP App the keyboard. An app's frame has an opaque origin, but once the person
// has clicked in it, WebKit lets it call focus() whenever it likes: it could take the keyboard
// while the person types in the prompt box and read what they type (measured: an app that
// refocused its own input every 50 ms got every key typed in the prompt box after the person had
// used it once). So the window gives the keyboard back unless the person handed it over: a click
// in the app, or Tab from the app's own card.
//
// The window cannot see a click inside a frame, only its traces: the pointer is over that frame
// (the window saw it enter), the click's user activation reached the window too
// (`navigator.userActivation.isActive`), and nothing was pressed in the window itself just before.
// An app that reaches for the keyboard while the person is busy in the window, or again and
// again, is stopped by its card (APP_GRABBED_KEYBOARD): given back only, it takes the focus again
// at once, and the keys the person types land on whichever side holds it at that moment
// (measured: `inert` on its frame does not stop the frame's own focus() in WebKitGTK).

/** After a key or a click in the window, this long no app may take the keyboard by itself. */
export const WINDOW_INPUT_QUIET_MS = 1000;
/** Refused grabs of one frame within a second that stop it (one is what any programmatic focus
 *  of the frame looks like, a test driver's switch into it among them; a loop is hundreds). */
export const GRABS_THAT_STOP = 3;

/** The class of every MCP App frame (McpAppSandbox.svelte). */
export const APP_FRAME_CLASS = "app-frame";

export interface FocusFacts {
  /** The pointer is over the frame that took the focus. */
  pointerOverFrame: boolean;
  /** The page has transient user activation (a person just clicked or pressed a key, in the window or a frame). */
  personJustActed: boolean;
  /** Milliseconds since the last key or pointer press in the window (outside every frame). */
  msSinceWindowInput: number;
  /** The last press in the window was Tab, and focus was in the same app's card before. */
  tabbedFromItsCard: boolean;
  /** This frame's refused grabs in the last second, this one not counted. */
  recentGrabs: number;
}

export type FocusVerdict = "allow" | "give-back" | "stop";

/** What the window does when an app's frame just got the focus. */
export function focusVerdict(f: FocusFacts): FocusVerdict {
  const busyInWindow = f.msSinceWindowInput < WINDOW_INPUT_QUIET_MS;
  if (f.tabbedFromItsCard && busyInWindow) return "allow";
  if (f.pointerOverFrame && f.personJustActed && !busyInWindow) return "allow";
  return busyInWindow || f.recentGrabs + 1 >= GRABS_THAT_STOP ? "stop" : "give-back";
}

function isAppFrame(el: Element | null): el is HTMLIFrameElement {
  return el instanceof HTMLIFrameElement && el.classList.contains(APP_FRAME_CLASS);
}

/** Sent to a frame that grabbed the keyboard: its card stops the app. */
export const APP_GRABBED_KEYBOARD = "porthole-app-grabbed-keyboard";

let installed = 0;
let uninstall: (() => void) | null = null;

/** Watches the window's focus while any app frame is shown; returns the matching release. */
export function guardAppFocus(doc: Document = document): () => void {
  installed += 1;
  if (installed === 1) uninstall = install(doc);
  let released = false;
  return () => {
    if (released) return;
    released = true;
    installed -= 1;
    if (installed === 0) {
      uninstall?.();
      uninstall = null;
    }
  };
}

function install(doc: Document): () => void {
  const win = doc.defaultView ?? window;
  let lastInput = Number.NEGATIVE_INFINITY;
  let lastWasTab = false;
  let lastFocused: HTMLElement | null = null;
  let hovered: Element | null = null;
  const grabs = new WeakMap<HTMLIFrameElement, number[]>();

  const onPress = (e: Event) => {
    lastInput = performance.now();
    lastWasTab = e instanceof KeyboardEvent && e.key === "Tab";
  };
  const onFocusIn = (e: FocusEvent) => {
    const target = e.target;
    if (target instanceof HTMLElement && !isAppFrame(target)) lastFocused = target;
    check();
  };
  // The window sees the pointer enter a frame, and enter something else when it leaves it.
  const onOver = (e: MouseEvent) => {
    hovered = e.target instanceof Element ? e.target : null;
  };
  // Focus moving into a frame blurs the window's document; run after the move is done.
  const onBlur = () => setTimeout(check, 0);

  function check() {
    const active = doc.activeElement;
    if (!isAppFrame(active) || !doc.hasFocus()) return;
    const now = performance.now();
    const recent = (grabs.get(active) ?? []).filter((t) => now - t < 1000);
    const card = active.closest("section.mcp-app");
    const verdict = focusVerdict({
      pointerOverFrame: hovered === active,
      personJustActed: (navigator as Navigator & { userActivation?: { isActive: boolean } }).userActivation?.isActive ?? false,
      msSinceWindowInput: now - lastInput,
      tabbedFromItsCard: lastWasTab && card !== null && lastFocused !== null && card.contains(lastFocused),
      recentGrabs: recent.length,
    });
    if (verdict === "allow") return;
    grabs.set(active, [...recent, now]);
    const back = lastFocused && lastFocused.isConnected ? lastFocused : doc.body;
    back.focus({ preventScroll: true });
    if (doc.activeElement === active) active.blur();
    if (verdict === "stop") {
      active.dispatchEvent(new CustomEvent(APP_GRABBED_KEYBOARD));
      // The card removes the frame; a removed frame that held the focus leaves it on the body.
      setTimeout(() => {
        if (back.isConnected && (doc.activeElement === doc.body || isAppFrame(doc.activeElement))) back.focus({ preventScroll: true });
      }, 0);
    }
  }

  doc.addEventListener("pointerdown", onPress, true);
  doc.addEventListener("keydown", onPress, true);
  doc.addEventListener("focusin", onFocusIn, true);
  doc.addEventListener("mouseover", onOver, true);
  win.addEventListener("blur", onBlur);
  return () => {
    doc.removeEventListener("pointerdown", onPress, true);
    doc.removeEventListener("keydown", onPress, true);
    doc.removeEventListener("focusin", onFocusIn, true);
    doc.removeEventListener("mouseover", onOver, true);
    win.removeEventListener("blur", onBlur);
  };
}
