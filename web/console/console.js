// The Pedelec console: Core's own page. It follows Core's feed
// (/console/api/feed: a snapshot, then deltas) and acts through the
// approvals API with this run's approver token. Everything shown comes
// from pages and agents, so it is written as text, never as HTML.

const FEED = "/console/api/feed";
const APPROVALS = "/console/api/"; // wire.ApprovalsPath
import { argsView } from "./args-view.js";
import { ARM_DELAY_MS, guard } from "./deliberate.js";

const TOKEN = document.querySelector('meta[name="pedelec-approver-token"]')?.content ?? "";

const state = {
  sessions: new Map(), // id → ConsoleSession, in the order Core lists them
  processes: [],
  approvals: null, // null: this Core has no approvals API
  selected: null,
  open: new Set(), // calls whose details are open
  version: 0,
};

const $ = (id) => document.getElementById(id);

/** el builds an element; children are nodes or text. */
function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "class") node.className = v;
    else if (k === "text") node.textContent = v;
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v === true ? "" : String(v));
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    node.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return node;
}

// A status reads as words ("waiting approval"); its class keeps the name.
const pill = (text, kind = text) => el("span", { class: `pill pill-${kind}`, text: text.replaceAll("_", " ") });

function time(ms) {
  if (!ms) return "";
  // One format everywhere (the approval window, the CLI): 24-hour HH:MM:SS.
  return new Date(ms).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", second: "2-digit", hourCycle: "h23" });
}

function duration(ms) {
  if (ms === undefined || ms === null) return "";
  return ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(ms < 10000 ? 2 : 1)} s`;
}

function pretty(raw) {
  try {
    return JSON.stringify(raw, null, 2);
  } catch {
    return String(raw);
  }
}

// ---- the feed ----

function connect() {
  const live = $("live");
  const es = new EventSource(FEED);
  es.addEventListener("snapshot", (e) => {
    const snap = JSON.parse(e.data);
    state.sessions = new Map(snap.sessions.map((s) => [s.id, s]));
    state.processes = snap.processes ?? [];
    state.approvals = snap.approvals;
    state.version = snap.version;
    $("core-url").textContent = snap.coreUrl ?? "";
    state.coreUrl = snap.coreUrl ?? "";
    live.textContent = "live";
    live.className = "pill pill-live";
    render();
  });
  es.addEventListener("delta", (e) => {
    const d = JSON.parse(e.data);
    for (const s of d.sessions ?? []) state.sessions.set(s.id, s);
    for (const id of d.removed ?? []) state.sessions.delete(id);
    if (d.processes) state.processes = d.processes;
    if (d.approvals) state.approvals = d.approvals;
    state.version = d.version;
    render();
  });
  es.onerror = () => {
    // EventSource reconnects by itself and gets a fresh snapshot.
    live.textContent = "reconnecting…";
    live.className = "pill pill-wait";
  };
}

// ---- rendering ----

function render() {
  renderApprovals();
  renderSessions();
  renderDetail();
  renderOrigins();
  renderProcesses();
  document.body.dataset.version = String(state.version);
}

// Whether ended sessions are listed: the user's choice, kept in this
// browser (as devtools keep "Preserve log").
const HIDE_ENDED_KEY = "pedelec.console.hideEnded";
state.hideEnded = localStorage.getItem(HIDE_ENDED_KEY) === "1";

// An ended session in which nothing happened (no call, no turn): a demo
// loaded and closed. Runs of them from one origin and provider show as one
// entry, so reloading a page does not bury the sessions that did work.
const isEmptyEnded = (s) => s.status === "ended" && s.calls.length === 0 && (s.turns ?? []).length === 0;

/** The list's entries, newest first: sessions, and groups of empty ended ones. */
function sessionEntries() {
  const all = [...state.sessions.values()].sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? 1 : -1));
  const entries = [];
  for (const s of all) {
    if (state.hideEnded && s.status === "ended" && s.id !== state.selected) continue;
    const last = entries.at(-1);
    if (isEmptyEnded(s) && s.id !== state.selected && last && last.group && last.origin === s.origin && last.provider === s.provider) {
      last.group.push(s);
      continue;
    }
    entries.push(isEmptyEnded(s) && s.id !== state.selected ? { group: [s], origin: s.origin, provider: s.provider } : { session: s });
  }
  return entries;
}

function select(id) {
  state.selected = id;
  render();
  if (matchMedia("(max-width: 760px)").matches) $("detail").scrollIntoView({ block: "start" });
}

function sessionButton(s, extra) {
  return el(
    "button",
    {
      class: "session",
      "data-session-id": s.id,
      "data-status": s.status,
      "aria-current": s.id === state.selected ? "true" : "false",
      onclick: () => select(s.id),
    },
    el("div", { class: "row" }, el("span", { class: "origin", text: s.origin || "(no origin)" }), pill(s.status)),
    el("div", { class: "sub", text: `${s.provider}${s.model ? " · " + s.model : ""} · ${s.calls.length} call${s.calls.length === 1 ? "" : "s"} · ${time(s.createdAt)}` }),
    extra ? el("div", { class: "sub", text: extra }) : el("div", { class: "sub mono", text: s.id }),
  );
}

function renderSessions() {
  const list = $("session-list");
  const all = [...state.sessions.values()];
  if (!state.selected || !state.sessions.has(state.selected)) {
    // The newest live session, else the newest.
    const byTime = all.slice().sort((a, b) => a.createdAt - b.createdAt);
    const live = byTime.filter((s) => s.status !== "ended");
    state.selected = (live.at(-1) ?? byTime.at(-1))?.id ?? null;
  }
  const entries = sessionEntries();
  const ended = all.filter((s) => s.status === "ended").length;
  $("no-sessions").hidden = all.length > 0;
  const toggle = $("hide-ended");
  toggle.checked = state.hideEnded;
  $("hide-ended-label").hidden = ended === 0;
  $("hide-ended-count").textContent = ended ? ` (${ended})` : "";
  list.replaceChildren(
    ...entries.map((e) => {
      if (e.session) return el("li", {}, sessionButton(e.session));
      const [newest, ...rest] = e.group;
      if (rest.length === 0) return el("li", {}, sessionButton(newest));
      // The newest of the run stands for it; the others are one line.
      return el("li", { "data-empty-group": e.group.length }, sessionButton(newest, `and ${rest.length} more ended session${rest.length === 1 ? "" : "s"} with no calls, the oldest at ${time(rest.at(-1).createdAt)}`));
    }),
  );
}

function mountSessionControls() {
  $("hide-ended").addEventListener("change", (e) => {
    state.hideEnded = e.target.checked;
    localStorage.setItem(HIDE_ENDED_KEY, state.hideEnded ? "1" : "0");
    renderSessions();
  });
}

function renderDetail() {
  const s = state.selected && state.sessions.get(state.selected);
  $("detail-empty").hidden = !!s;
  const body = $("detail-body");
  body.hidden = !s;
  if (!s) return;
  body.dataset.sessionId = s.id;
  const head = el(
    "div",
    { class: "detail-head" },
    el("h2", { text: s.origin || s.id }),
    pill(s.status),
    el(
      "div",
      { class: "head-actions" },
      el("a", { class: "button", href: `/console/api/sessions/${encodeURIComponent(s.id)}/record`, download: `pedelec-${s.id}.json`, "data-action": "download" }, "Download JSON"),
    ),
  );
  const facts = el(
    "div",
    { class: "facts" },
    fact("session", s.id),
    fact("provider", s.provider),
    s.model && fact("model", s.model),
    fact("created", time(s.createdAt)),
    fact("page", s.attached ? "connected" : "not connected"),
    s.endReason && fact("ended", s.endReason),
    fact("tools", s.tools.map((name) => (s.toolHints?.[name]?.length ? `${name} (${s.toolHints[name].join(", ")})` : name)).join(", ") || "none"),
  );
  const parts = [head, facts];
  // A call waiting for consent has not reached the page, so it has no
  // entry among the calls yet: say here what it waits for.
  for (const p of (state.approvals?.pending ?? []).filter((p) => p.kind === "call" && p.sessionId === s.id)) {
    parts.push(el("p", { class: "notice", "data-waiting-approval": p.id }, "The agent's call of ", el("b", { class: "mono", text: p.tool }), " waits for your approval (Pending approvals); the page has not run it."));
  }
  if (s.truncated) parts.push(el("p", { class: "notice", text: "Core's event log no longer holds this session's oldest events: earlier turns and calls are not shown." }));
  const callsByTurn = new Map();
  for (const c of s.calls) {
    const k = c.turnId ?? "";
    if (!callsByTurn.has(k)) callsByTurn.set(k, []);
    callsByTurn.get(k).push(c);
  }
  for (const t of s.turns) parts.push(renderTurn(s, t, callsByTurn.get(t.id) ?? []));
  const loose = callsByTurn.get("") ?? [];
  if (loose.length) {
    parts.push(el("div", { class: "turn" }, el("div", { class: "turn-head" }, "Calls from the MCP client"), ...loose.map((c) => renderCall(c))));
  }
  if (!s.turns.length && !loose.length) parts.push(el("p", { class: "muted", text: "No turns yet." }));
  body.replaceChildren(...parts);
}

const fact = (k, v) => el("span", {}, `${k} `, el("b", { text: v }));

function renderTurn(s, t, calls) {
  const badge = !t.done ? pill("running") : t.ok ? pill("done", "idle") : pill("failed");
  const parts = [el("div", { class: "turn-head" }, el("span", { text: t.warmup ? "warm-up" : "turn" }), el("span", { class: "mono", text: t.id }), el("span", { text: time(t.startedAt) }), badge)];
  if (t.text) parts.push(el("div", { class: "bubble bubble-user" }, el("span", { class: "who", text: "user" }), t.text));
  else if (!t.warmup) parts.push(el("div", { class: "bubble bubble-user muted" }, el("span", { class: "who", text: "user" }), "(Core no longer knows this message)"));
  for (const c of calls) parts.push(renderCall(c));
  // The agent's own tools (an ACP agent's shell, reads; what Pedelec's policy rejected).
  for (const a of t.activity ?? []) {
    parts.push(el("div", { class: "activity", "data-activity-id": a.toolCallId, "data-status": a.status },
      el("span", { class: "who", text: `agent's own tool${a.kind ? ` (${a.kind})` : ""}` }), el("span", { class: "mono", text: a.title || a.toolCallId }), " ", pill(a.status, a.status === "completed" || a.status === "allowed" ? "idle" : a.status === "rejected" || a.status === "failed" ? "failed" : "running"),
      a.reason ? el("div", { class: "muted", text: a.reason }) : ""));
  }
  if (t.agent) parts.push(el("div", { class: "bubble bubble-agent" }, el("span", { class: "who", text: `agent (${s.provider})` }), t.agent));
  if (t.error) parts.push(el("div", { class: "turn-error", text: `${t.error.code}: ${t.error.message}` }));
  return el("div", { class: "turn", "data-turn-id": t.id }, ...parts);
}

// progressText is a pending call's latest ctx.progress (issue 26): "3/10 (30%) uploading".
function progressText(p) {
  if (!p) return "";
  const of = p.total ? `${p.progress}/${p.total} (${Math.round((100 * p.progress) / p.total)}%)` : `${p.progress}`;
  return [of, p.message].filter(Boolean).join(" ");
}

function renderCall(c) {
  const details = el(
    "details",
    { class: "call", "data-call-id": c.id, "data-status": c.status, open: state.open.has(c.id) },
    el(
      "summary",
      {},
      el("span", { class: "tool", text: c.tool }),
      pill(c.status),
      el("span", { class: "meta", text: [time(c.startedAt), duration(c.durationMs), c.approvedBy ? `approved by ${c.approvedBy}` : "", c.status === "pending" ? progressText(c.progress) : ""].filter(Boolean).join(" · ") }),
    ),
  );
  details.addEventListener("toggle", () => (details.open ? state.open.add(c.id) : state.open.delete(c.id)));
  const body = el("div", { class: "call-body" }, el("h4", { text: "arguments" }), argsView(c.args).box);
  if (c.error) {
    body.append(el("h4", { text: "error" }), el("pre", { class: "error", text: `${c.error.code}: ${c.error.message}${c.error.details ? "\n" + pretty(c.error.details) : ""}` }));
  } else if (c.resultTruncated) {
    body.append(el("h4", { text: "result" }), el("p", { class: "muted", text: "The result was too long to keep here." }));
  } else if (c.result !== undefined) {
    // What the page's tool returned, in the same rendering as arguments:
    // marked apart from the agent's text, with nothing hidden or reordered.
    body.append(el("h4", { text: "result (from the page's tool)" }), el("div", { class: "result", "data-part": "result" }, argsView(c.result).box));
  } else if (c.status === "pending") {
    body.append(el("p", { class: "muted", text: "Waiting for the page's handler…" }));
  }
  if (c.approvedBy) body.append(el("p", { class: "hint", text: `Approved by ${c.approvedBy}.` }));
  const command = runnableCommand(c.command);
  const copy = el("button", { "data-action": "copy-command", title: command }, "Copy as command");
  copy.addEventListener("click", (e) => {
    e.preventDefault();
    copyText(command).then(
      () => (copy.textContent = "Copied"),
      () => (copy.textContent = "Copy failed: select the text below"),
    );
    setTimeout(() => (copy.textContent = "Copy as command"), 2000);
  });
  body.append(
    el("h4", { text: "repeat it" }),
    el("pre", { class: "command", text: command }),
    el("div", { class: "command-row" }, copy),
    el("p", {
      class: "hint",
      text: "Runs while the session runs a turn, in the agent's shell as it is. From another terminal, set PEDELEC_AGENT_SECRET first: it is the session's own secret, in the agent's environment only, and the console never shows it (without it the shell says so and runs nothing).",
    }),
  );
  details.append(body);
  return details;
}

// The call's command line with Core's address and the secret it needs
// named: ${VAR:?message} makes the shell stop with that message, instead of
// a bare NOT_IN_SESSION, where the secret is not set.
function runnableCommand(command) {
  const core = state.coreUrl || location.origin;
  return `PEDELEC_CORE_URL=${core} PEDELEC_AGENT_SECRET="\${PEDELEC_AGENT_SECRET:?set it to the session's secret from the agent's environment}" ${command}`;
}

async function copyText(text) {
  if (navigator.clipboard?.writeText) return navigator.clipboard.writeText(text);
  const area = el("textarea", {}, text);
  document.body.append(area);
  area.select();
  const ok = document.execCommand("copy");
  area.remove();
  if (!ok) throw new Error("copy refused");
}

function unavailable(where) {
  where.replaceChildren(el("p", { class: "notice", "data-approvals": "unavailable", text: "Approvals are not available in this Core: every origin it allows (its own and --allow-origin) is approved, and no call asks for consent." }));
}

// The pending list holds still under the user's pointer (and while one of
// its buttons has focus): an entry that ends stays in its place, marked and
// inert, and a new one joins at the end, so no change ever moves a button
// to where the user is about to click. Once the pointer leaves, the list
// catches up. Every entry's buttons take input only after the entry has
// sat unmoved in full view for a moment (deliberate.js).
const list = { nodes: new Map(), frozen: false, held: 0 };

function mountApprovals() {
  const box = $("approvals-body");
  const hold = (on) => {
    list.frozen = on;
    if (!on) renderApprovals();
  };
  box.addEventListener("pointerenter", () => hold(true));
  box.addEventListener("pointerleave", () => hold(box.contains(document.activeElement)));
  box.addEventListener("focusout", (e) => {
    if (!box.contains(e.relatedTarget) && !box.matches(":hover")) hold(false);
  });
}

function approvalEntry(p) {
  const what =
    p.kind === "origin"
      ? el("div", {}, el("b", { class: "bidi", text: p.origin }), " wants to start agent sessions.")
      : el("div", {}, el("b", { class: "mono bidi", text: p.tool }), " from ", el("span", { class: "bidi", text: p.origin }), " asks to run with:", argsView(p.args).box);
  const name = p.kind === "origin" ? p.origin : p.tool;
  const actions = el(
    "div",
    { class: "actions" },
    el("button", { class: "primary", "data-decision": "approve", onclick: () => decide(p.id, "approve") }, p.kind === "origin" ? `Allow ${name}` : `Approve ${name}`),
    el("button", { class: "danger", "data-decision": "deny", onclick: () => decide(p.id, "deny") }, `Deny ${name}`),
    p.kind === "call" && el("button", { "data-decision": "allow_session", onclick: () => decide(p.id, "allow_session") }, `Allow ${name} for this session`),
  );
  const node = el("div", { class: "approval", "data-approval-id": p.id, "data-kind": p.kind }, what,
    el("span", { class: "hint", text: `expires ${time(p.expiresAt && Date.parse(p.expiresAt))}` }), actions, el("p", { class: "wait hint", "aria-live": "polite" }));
  node.guard = guard(node, { onChange: (g) => (node.querySelector(".wait").textContent = g.armed || node.dataset.gone ? "" : waitText(g.why)) });
  return node;
}

function waitText(why) {
  if (why === "unfocused" || why === "hidden") return "Click into this window first: it decides only while it has focus.";
  if (why === "out-of-view") return "Scroll so this whole request is in view to decide it.";
  return `Its buttons take input ${ARM_DELAY_MS / 1000} s after it is shown, unmoved.`;
}

function renderApprovals() {
  const box = $("approvals-body");
  box.className = "";
  if (!state.approvals) {
    for (const n of list.nodes.values()) n.guard.dispose();
    list.nodes.clear();
    return unavailable(box);
  }
  const pending = state.approvals.pending ?? [];
  const ids = new Set(pending.map((p) => p.id));
  if (list.frozen) {
    // Hold every entry where it is; mark the ended ones; add new ones last.
    let held = 0;
    for (const [id, node] of list.nodes) {
      if (!ids.has(id) && !node.dataset.gone) {
        node.dataset.gone = "true";
        node.guard.dispose();
        for (const b of node.querySelectorAll("button")) b.disabled = true;
        node.querySelector(".wait").textContent = "No longer pending (decided, expired or withdrawn).";
      }
      if (node.dataset.gone) held++;
    }
    for (const p of pending) {
      if (list.nodes.has(p.id)) continue;
      const node = approvalEntry(p);
      list.nodes.set(p.id, node);
      box.append(node);
      held++;
    }
    list.held = held;
    $("approvals-held").hidden = held === 0;
    $("approvals-held").textContent = "The list holds still while your pointer is on it; it updates when the pointer leaves.";
    return;
  }
  for (const [id, node] of list.nodes) {
    if (!ids.has(id) || node.dataset.gone) {
      node.guard.dispose();
      list.nodes.delete(id);
    }
  }
  const nodes = pending.map((p) => {
    let node = list.nodes.get(p.id);
    if (!node) {
      node = approvalEntry(p);
      list.nodes.set(p.id, node);
    }
    return node;
  });
  $("approvals-held").hidden = true;
  if (!nodes.length) {
    box.replaceChildren(el("p", { class: "muted", text: "Nothing waits for you." }));
    return;
  }
  // Moving an entry that is already in place would restart its delay.
  if (nodes.length !== box.children.length || nodes.some((n, i) => box.children[i] !== n)) box.replaceChildren(...nodes);
}

function renderOrigins() {
  const box = $("origins-body");
  box.className = "";
  if (!state.approvals) return unavailable(box);
  const origins = state.approvals.origins ?? [];
  if (!origins.length) {
    box.replaceChildren(el("p", { class: "muted", text: "None yet." }));
    return;
  }
  box.replaceChildren(
    ...origins.map((o) =>
      el(
        "div",
        { class: "origin-row", "data-origin": o.origin },
        el("span", {}, el("b", { text: o.origin }), el("span", { class: "hint", text: ` by ${o.by}` })),
        o.by === "--allow-origin" ? el("span", { class: "hint", text: "from the command line" }) : el("button", { class: "danger", onclick: () => revoke(o.origin) }, "Revoke"),
      ),
    ),
  );
}

function renderProcesses() {
  $("no-processes").hidden = state.processes.length > 0;
  $("process-list").replaceChildren(
    ...state.processes.map((p) => el("li", { class: "process", "data-pid": p.pid }, el("b", { text: String(p.pid) }), " ", p.command, el("span", { class: "muted", text: ` (${p.sessionId})` }))),
  );
}

// ---- actions ----

async function post(path, body) {
  const res = await fetch(APPROVALS + path, {
    method: "POST",
    headers: { "Content-Type": "application/json", "X-Pedelec-Approver": TOKEN },
    body: JSON.stringify(body),
  });
  if (!res.ok) {
    let msg = `${res.status}`;
    try {
      const j = await res.json();
      msg = j.error ? `${j.error.code}: ${j.error.message}` : msg;
    } catch {}
    alert(`Core refused: ${msg}`);
  }
}

const decide = (id, decision) => post("decide", { id, decision });
const revoke = (origin) => {
  if (confirm(`Revoke ${origin}? Its live sessions end.`)) post("revoke", { origin });
};

mountApprovals();
mountSessionControls();
connect();
