// Decisions that take a deliberate act (the approval window and the
// console's pending list share this).
//
// A button that decides (approve, deny, allow for this session) ignores
// every input until its window has been visible and focused, and the
// decision's whole text (what is asked, by whom, and the buttons) has been
// in full view without moving, for ARM_DELAY_MS. Browsers guard their own
// permission prompts the same way (Chromium ignores clicks on a fresh
// prompt for a moment, Firefox's dialogs wait a second after they get
// focus): a page that opens or moves a prompt under the pointer must not
// be able to spend a click or a key press the user meant for something
// else (the second click of a double-click, an Enter). One second is
// longer than a double-click (about 500 ms at most) and than the gap
// between two key presses, and short enough that a user who reads the
// request never waits for it. Synthetic events (el.click() from script)
// never decide.

export const ARM_DELAY_MS = 1000;

const guards = new Set();
let timer = 0;

/** Whether el's box lies entirely inside the viewport. */
export function inView(el) {
  if (!el || !el.isConnected) return false;
  const r = el.getBoundingClientRect();
  if (r.width === 0 && r.height === 0) return false;
  return r.top >= -0.5 && r.left >= -0.5 && r.bottom <= innerHeight + 0.5 && r.right <= innerWidth + 0.5;
}

/**
 * guard arms the decision buttons inside root. mustSee lists what has to
 * be in full view (root itself when omitted); ready, when given, is one
 * more condition (the approval window: its arguments read to the end).
 * The returned guard's state shows as root.dataset.armed ("true"/"false")
 * and root.dataset.ignored (inputs ignored so far); onChange hears it.
 */
export function guard(root, { mustSee = () => [root], ready = () => true, onChange = () => {} } = {}) {
  const g = { root, mustSee, ready, onChange, since: null, place: "", armed: false, ignored: 0, shownAt: performance.now(), why: "" };
  root.dataset.armed = "false";
  root.dataset.ignored = "0";
  // Capture phase: the buttons' own listeners never see an input that
  // does not count.
  const stop = (e) => {
    const target = e.target instanceof Element ? e.target.closest("[data-decision]") : null;
    if (!target || !root.contains(target)) return;
    check(g);
    if (g.armed && e.isTrusted) return;
    e.preventDefault();
    e.stopImmediatePropagation();
    g.ignored++;
    root.dataset.ignored = String(g.ignored);
  };
  root.addEventListener("click", stop, true);
  g.dispose = () => {
    root.removeEventListener("click", stop, true);
    guards.delete(g);
  };
  guards.add(g);
  check(g);
  if (!timer) timer = setInterval(() => guards.forEach(check), 100);
  return g;
}

// Events that can change what the user sees re-check at once; the
// interval catches the rest (a layout change, a delay running out).
for (const ev of ["focus", "blur", "resize", "scroll", "visibilitychange"]) {
  (ev === "visibilitychange" ? document : window).addEventListener(ev, () => guards.forEach(check), true);
}

function check(g) {
  const now = performance.now();
  const seen = g.mustSee().filter(Boolean);
  // Where the buttons sit: if one moves, the user may be about to click
  // something that was elsewhere a moment ago, so the delay starts again.
  const place = [...g.root.querySelectorAll("[data-decision]")].map((el) => {
    const r = el.getBoundingClientRect();
    return `${Math.round(r.left)},${Math.round(r.top)},${Math.round(r.width)},${Math.round(r.height)}`;
  }).join(" ");
  let why = "";
  if (document.visibilityState !== "visible") why = "hidden";
  else if (!document.hasFocus()) why = "unfocused";
  else if (!seen.length || !seen.every(inView)) why = "out-of-view";
  else if (!g.ready()) why = "not-ready";
  if (why || place !== g.place) g.since = null;
  g.place = place;
  if (!why && g.since === null) g.since = now;
  const armed = !why && g.since !== null && now - g.since >= ARM_DELAY_MS;
  if (armed !== g.armed || why !== g.why) {
    g.armed = armed;
    g.why = why;
    g.root.dataset.armed = String(armed);
    g.root.dataset.waiting = why || (armed ? "" : "delay");
    if (armed) g.root.dataset.armedAfterMs = String(Math.round(now - g.shownAt));
    for (const b of g.root.querySelectorAll("[data-decision]")) b.setAttribute("aria-disabled", String(!armed));
    g.onChange(g);
  }
}
