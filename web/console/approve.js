// The approval window (Core serves it at /console/approve/<id>): one
// pending request, decided with a deliberate act (deliberate.js). Opened
// by the page that asks, so nothing here trusts the URL it was opened
// with: its fragment is dropped and nothing takes focus by itself.
import { argsView } from "/console/args-view.js";
import { ARM_DELAY_MS, guard } from "/console/deliberate.js";

const token = document.querySelector('meta[name="pedelec-approver-token"]')?.content ?? "";
const id = document.body.dataset.requestId;
const root = document.querySelector("[data-decision-root]");
const result = document.getElementById("result");
const tooSmall = document.getElementById("too-small");
const wait = root.querySelector("[data-wait]");

// A fragment (#approve, a text fragment) must not scroll or focus
// anything: the page that opened the window chose it.
if (location.hash) history.replaceState(null, "", location.pathname + location.search);
if (document.activeElement instanceof HTMLElement && document.activeElement !== document.body) document.activeElement.blur();
scrollTo(0, 0);

// The arguments, as the handler will get them, from Core's copy.
let readToEnd = () => true;
const argsHost = document.getElementById("args");
if (argsHost) {
  const { box, pre } = argsView(argsHost.dataset.raw ?? "", { raw: true });
  argsHost.replaceChildren(box);
  // A long value must be read to its end before the call can be allowed.
  let seenEnd = false;
  const atEnd = () => pre.scrollHeight - pre.clientHeight - pre.scrollTop <= 2;
  pre.addEventListener("scroll", () => (seenEnd ||= atEnd()));
  readToEnd = () => (seenEnd ||= atEnd());
}

const WHY = {
  hidden: "This window is not visible.",
  unfocused: "Click into this window first: it takes a decision only while it has focus.",
  "out-of-view": "Scroll or enlarge the window so the whole request and its buttons are in view.",
  "not-ready": "Scroll the arguments to their end first: a call is allowed only once all of it was in view.",
  delay: `The buttons take input ${ARM_DELAY_MS / 1000} s after this window is shown and focused, so a click meant for something else cannot decide.`,
};

const g = guard(root, {
  mustSee: () => [...root.querySelectorAll("[data-must-see]")],
  ready: readToEnd,
  onChange: (g) => {
    document.body.dataset.armed = root.dataset.armed;
    if (g.armed) document.body.dataset.armedAfterMs = root.dataset.armedAfterMs;
    tooSmall.hidden = g.why !== "out-of-view" || fitsAtAll();
    wait.textContent = g.armed ? "" : WHY[g.why || "delay"];
  },
});
new MutationObserver(() => (document.body.dataset.ignored = root.dataset.ignored)).observe(root, { attributes: true, attributeFilter: ["data-ignored"] });

// fitsAtAll: the request would fit in full at the top of this window: it
// is only out of view because the user scrolled. A window too small for
// it says so over everything.
function fitsAtAll() {
  const top = root.getBoundingClientRect().top + scrollY;
  return root.scrollHeight + top <= innerHeight + 1 && root.scrollWidth <= innerWidth + 1;
}

async function decide(decision) {
  for (const b of root.querySelectorAll("[data-decision]")) b.disabled = true;
  const reason = root.querySelector('[data-field="reason"]').value;
  try {
    const resp = await fetch("/console/api/decide", {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-Pedelec-Approver": token },
      body: JSON.stringify({ id, decision, reason }),
    });
    const body = await resp.json();
    if (!resp.ok) throw new Error(body.error ? body.error.code + ": " + body.error.message : resp.statusText);
    decided(decision === "deny" ? "Denied." : "Approved.", decision);
    setTimeout(() => window.close(), 600);
  } catch (err) {
    result.textContent = String(err.message || err);
    document.body.dataset.decided = "error";
    for (const b of root.querySelectorAll("[data-decision]")) b.disabled = false;
  }
}
for (const b of root.querySelectorAll("[data-decision]")) b.addEventListener("click", () => decide(b.dataset.decision));

// decided shows how the request ended, where the buttons were (they go:
// nothing is left to decide), in view without scrolling.
function decided(text, decision) {
  if (document.body.dataset.decided && document.body.dataset.decided !== "error") return;
  result.textContent = text;
  document.body.dataset.decided = decision;
  g.dispose();
  feed?.close();
  result.scrollIntoView({ block: "nearest" });
}

// The decision may be made elsewhere (the console, `pedelec approve` in a
// terminal, the page giving up): the window follows Core's console feed
// and says how the request ended, instead of offering buttons that can
// only answer APPROVAL_NOT_FOUND.
const hhmmss = (t) => new Date(t).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", second: "2-digit", hourCycle: "h23" });
const WHO = { console: "in the console", cli: "from a terminal (pedelec)", allow_session: "for the rest of the session" };
function endedText(o) {
  const when = ` at ${hhmmss(o.at)}`;
  const who = o.by ? ` ${WHO[o.by] ?? "by " + o.by}` : "";
  if (o.decision === "deny") return `Denied${who}${when}.`;
  if (o.decision === "approve" || o.decision === "allow_session") return `Approved${who}${when}.`;
  if (o.timedOut) return `Expired${when}: nobody decided in time.`;
  return `No longer pending${when}: the page stopped waiting.`;
}
let feed = null;
if (id && token) {
  feed = new EventSource("/console/api/feed");
  const check = (approvals) => {
    if (!approvals || document.body.dataset.decided) return;
    if (approvals.pending.some((p) => p.id === id)) return;
    const o = (approvals.ended ?? []).findLast((e) => e.id === id);
    decided(o ? endedText(o) : "No longer pending: it was decided elsewhere or expired.", o?.decision || "gone");
  };
  feed.addEventListener("snapshot", (e) => check(JSON.parse(e.data).approvals));
  feed.addEventListener("delta", (e) => check(JSON.parse(e.data).approvals));
}
