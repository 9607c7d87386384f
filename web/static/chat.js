// The chat panel: one bubble per user message, one assistant bubble per
// turn that grows with every chat delta, and notes for tool activity and
// errors.

const $ = (id) => document.getElementById(id);

const bubbles = new Map(); // turnId -> element

function append(kind, text) {
  const el = document.createElement("div");
  el.className = `msg msg-${kind}`;
  el.textContent = text;
  const box = $("messages");
  box.append(el);
  box.scrollTop = box.scrollHeight;
  return el;
}

export function userMessage(text) {
  return append("user", text);
}

export function systemNote(text, kind = "note") {
  return append(kind, text);
}

/** Appends a delta to its turn's assistant bubble, creating it on the first one. */
export function assistantDelta(turnId, fullText) {
  let el = bubbles.get(turnId);
  if (!el) {
    el = append("assistant", "");
    el.dataset.turnId = turnId;
    bubbles.set(turnId, el);
  }
  el.textContent = fullText;
  const box = $("messages");
  box.scrollTop = box.scrollHeight;
}

let activityCount = 0;

/** Logs a tool call and returns a function that logs its result. */
export function toolActivity(tool, args) {
  activityCount++;
  $("activity-count").textContent = String(activityCount);
  const li = document.createElement("li");
  const head = document.createElement("div");
  head.className = "activity-call";
  head.textContent = `${tool} ${JSON.stringify(args)}`;
  const res = document.createElement("div");
  res.className = "activity-result pending";
  res.textContent = "running…";
  li.append(head, res);
  $("activity").prepend(li);
  return (result) => {
    res.classList.remove("pending");
    if (result && typeof result === "object" && "error" in result) res.classList.add("error");
    try {
      res.textContent = `→ ${JSON.stringify(result)}`;
    } catch {
      res.textContent = "→ (a value that is not JSON)";
    }
  };
}

let toastTimer;
export function toast(text) {
  const el = $("toast");
  el.textContent = text;
  el.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => (el.hidden = true), 6000);
}
