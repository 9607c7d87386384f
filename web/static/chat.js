// The chat panel: one bubble per user message, one assistant bubble per
// turn that grows with every chat delta (rendered as Markdown), notes for
// errors, and the tool-activity log.

import { renderMarkdown } from "./markdown.js";

const $ = (id) => document.getElementById(id);

const turns = new Map(); // turnId -> {el, text}

// The newest message stays in view: whenever the list's size or content
// changes (a new bubble, the activity panel opening, the window
// resizing), it scrolls to the bottom unless the reader scrolled up.
let stuck = true;
function follow() {
  const box = $("messages");
  if (stuck) box.scrollTop = box.scrollHeight;
}
export function mountChatScroll() {
  const box = $("messages");
  box.addEventListener("scroll", () => {
    stuck = box.scrollHeight - box.scrollTop - box.clientHeight < 24;
  });
  new ResizeObserver(follow).observe(box);
  new MutationObserver(follow).observe(box, { childList: true, subtree: true, characterData: true });
}

function append(kind, text) {
  const el = document.createElement("div");
  el.className = `msg msg-${kind}`;
  el.textContent = text;
  $("messages").append(el);
  stuck = true;
  follow();
  return el;
}

/** A line across the chat where one session ended and the next began. */
export function sessionDivider(text) {
  const el = append("divider", text);
  el.setAttribute("role", "separator");
  return el;
}

export function userMessage(text) {
  return append("user", text);
}

export function systemNote(text, kind = "note") {
  return append(kind, text);
}

// A turn's bubble holds the agent's text (Markdown, isolated for bidi) and,
// between its parts, what the page's own tools returned, marked by the
// page: the agent cannot write a line that passes for one.
function turnBubble(turnId) {
  let turn = turns.get(turnId);
  if (!turn) {
    const el = append("assistant", "");
    el.dataset.turnId = turnId;
    turn = { el, text: "", part: null };
    turns.set(turnId, turn);
  }
  return turn;
}

/** Appends a chat delta to its turn's assistant bubble, creating it on the first one. */
export function assistantDelta(turnId, delta) {
  const turn = turnBubble(turnId);
  if (!turn.part) {
    const el = document.createElement("div");
    el.className = "agent-text";
    el.dir = "auto";
    turn.el.append(el);
    turn.part = { el, text: "" };
  }
  turn.text += delta;
  turn.part.text += delta;
  renderMarkdown(turn.part.el, turn.part.text);
  follow();
}

/** Shows, in the turn's bubble, what one of the page's tools returned. */
export function toolResult(turnId, tool, result) {
  if (!turnId) return;
  const turn = turnBubble(turnId);
  const el = document.createElement("div");
  const failed = result && typeof result === "object" && "error" in result;
  el.className = `tool-result ${failed ? "tool-failed" : "tool-ok"}`;
  el.dataset.toolResult = tool;
  const who = document.createElement("span");
  who.className = "who";
  who.textContent = failed ? `✗ this page's ${tool} failed` : `✓ this page's ${tool} returned`;
  const body = document.createElement("code");
  try {
    body.textContent = JSON.stringify(result);
  } catch {
    body.textContent = "(a value that is not JSON)";
  }
  el.append(who, " ", body);
  turn.el.append(el);
  turn.part = null; // the agent's next words go below it
  follow();
}

/** Whether the turn produced any text. */
export function turnHasText(turnId) {
  return Boolean(turnId && turns.get(turnId)?.text);
}

/** Marks a turn's bubble as failed, so a failure never looks like an answer. */
export function turnFailed(turnId) {
  turns.get(turnId)?.el.classList.add("msg-failed");
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
