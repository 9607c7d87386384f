// The demo page: connects to the Core that served it, fills the provider
// picker, creates a session with the demo's tools, and wires the chat. It
// uses the SDK exactly as the original Pedelec SDK documents it (listeners
// get (value, ctx), listProviders() gives {name, code, available, error}).
import { Pedelec } from "/sdk/pedelec.js";
import { mountAssets, refreshAssets } from "./assets.js";
import { assistantDelta, mountChatScroll, sessionDivider, systemNote, toast, toolActivity, toolResult, turnFailed, turnHasText, userMessage } from "./chat.js";
import { renderMarkdown } from "./markdown.js";
import { agentExamples, agentIntro, mcpIntro, scriptCommands, scriptExamples, scriptHint, scriptIntro } from "./examples.js";
import { mountApp } from "./state.js";
import { guidance, tools } from "./tools.js";

const $ = (id) => document.getElementById(id);
const pedelec = new Pedelec();
let session = null;
let busy = false;
let starting = false; // a session is being created: New session waits for it
let defaultModels = {}; // Core's default model per provider (getSettings)
let mcpCommand = "pedelec mcp"; // what reaches this Core from an MCP client (Core says: loadConnect)

// Core tells its own pages the `pedelec mcp` line that finds it (with
// --state-dir when its state directory is not the default).
async function loadConnect() {
  try {
    const r = await fetch("/console/api/connect");
    if (r.ok) mcpCommand = (await r.json()).mcpCommand || mcpCommand;
  } catch {
    // an older Core: the default command
  }
}

// Every tool is logged in the activity panel; the handler itself is the
// definition's own, so what runs is exactly what tools.js declares.
const loggedTools = tools.map((tool) => ({
  ...tool,
  handler: async (args, ctx) => {
    const done = toolActivity(tool.name, args);
    // Overlapping calls change who the agent waits on without a status
    // change, so refresh the status line around each handler too.
    refreshStatus();
    try {
      const result = await tool.handler(args, ctx);
      done(result);
      toolResult(ctx?.turnId, tool.name, result);
      return result;
    } catch (err) {
      const failure = { error: { code: "TOOL_HANDLER_ERROR", message: String(err?.message ?? err) } };
      done(failure);
      toolResult(ctx?.turnId, tool.name, failure);
      throw err;
    } finally {
      queueMicrotask(refreshStatus);
    }
  },
}));

function renderStatus(status, waitingOn = []) {
  const el = $("status");
  el.className = `status status-${status}`;
  const waiting = waitingOn.map((w) => w.tool).join(", ");
  el.textContent =
    status === "reconnecting"
      ? "reconnecting…"
      : status === "reconnected"
        ? "reconnected"
        : status === "waiting_tool_result" && waiting
      ? `waiting for ${waiting}`
      : status === "waiting_approval" && waiting
        ? `waiting for your approval: ${waiting}`
        : status.replaceAll("_", " ");
  el.title = el.textContent; // the whole text, where the pill cuts it short
  el.dataset.status = status;
}

function refreshStatus() {
  if (session) renderStatus(session.isReconnecting() ? "reconnecting" : session.getDetailedStatus(), session.getWaitingOn());
}

// While Core is away the SDK reconnects by itself: the pill says so
// ("reconnecting…", not "error"), and once the session is back it says
// "reconnected" for a moment, with a note in the chat.
let lostCore = false;
function statusChanged(s, ctx) {
  if (session !== s) return;
  if (s.isReconnecting()) {
    lostCore = true;
    return renderStatus("reconnecting");
  }
  if (lostCore) {
    lostCore = false;
    systemNote("Reconnected to Pedelec Core: the session goes on where it was.");
    renderStatus("reconnected");
    setTimeout(refreshStatus, 2500);
    return;
  }
  renderStatus(ctx.detailedStatus ?? s.getDetailedStatus(), s.getWaitingOn());
}

// ---- kept across a reload ----
// The session is created with autoEndOnDisconnect: false and its id kept
// in sessionStorage (this tab only), so a reload resumes it
// (resumeSession): a call in flight is delivered again, the agent keeps
// its conversation. The chat's transcript is kept beside it.
const KEPT_SESSION = "pedelec.demo.session";
const KEPT_CHAT = "pedelec.demo.chat";

function keepChat() {
  try {
    sessionStorage.setItem(KEPT_CHAT, $("messages").innerHTML.slice(-200_000));
  } catch {
    // storage full: the chat is only forgotten on reload
  }
}

function restoreChat() {
  const kept = sessionStorage.getItem(KEPT_CHAT);
  // What was kept is this page's own rendering of the chat (text set as
  // textContent, escaped when serialized); the CSP runs no inline script.
  if (kept) $("messages").innerHTML = kept;
  addEventListener("pagehide", keepChat); // the last change before a reload
  let timer = 0;
  new MutationObserver(() => {
    clearTimeout(timer);
    timer = setTimeout(keepChat, 100);
  }).observe($("messages"), { childList: true, subtree: true, characterData: true });
}

// An mcp session takes no messages from the page: its agent is the user's
// own MCP client. The message box says so instead of offering a Send that
// can only fail with SEND_TEXT_NOT_SUPPORTED.
const takesMessages = (provider) => provider !== "mcp";

function setBusy(value) {
  busy = value;
  // With no session yet, Send starts one (the user's own act).
  const open = !session || takesMessages(session.provider);
  $("send").disabled = value || starting || !open;
  $("message").disabled = !open;
  $("restart").disabled = starting;
  $("restart").textContent = session ? "New session" : "Start session";
}

const placeholders = {
  script: "One command per line: call <tool> <json>, spec <tool>, say <text>… (Enter to send)",
  mcp: "Ask in your MCP client: this page does not send messages with the MCP client provider.",
};

function renderExamples(provider) {
  const script = provider === "script";
  const mcp = !takesMessages(provider);
  $("message").placeholder = placeholders[provider] ?? "Message the agent… (Enter to send, Shift+Enter for a new line)";
  $("examples").querySelector("summary").textContent = mcp ? "How to connect an MCP client" : "What to type";
  renderMarkdown($("examples-intro"), script ? scriptIntro : mcp ? mcpIntro(mcpCommand) : agentIntro);
  $("example-list").replaceChildren(
    ...(script ? scriptExamples : mcp ? [] : agentExamples).map((ex) => {
      const b = document.createElement("button");
      b.type = "button";
      b.className = "example";
      b.title = ex.text;
      b.dataset.text = ex.text;
      const label = document.createElement("span");
      label.textContent = ex.label;
      const code = document.createElement("code");
      code.textContent = ex.text.split("\n")[0] + (ex.text.includes("\n") ? " …" : "");
      b.append(label, code);
      b.addEventListener("click", () => {
        $("message").value = ex.text;
        $("message").focus();
      });
      return b;
    }),
  );
}

async function loadProviders() {
  const select = $("provider");
  const wanted = new URLSearchParams(location.search).get("provider");
  let list;
  let settings;
  try {
    [list, settings] = await Promise.all([pedelec.listProviders({ all: true }), pedelec.getSettings({ all: true })]);
  } catch (err) {
    select.replaceChildren(new Option("unreachable", ""));
    renderStatus("error");
    systemNote(`Cannot reach Pedelec Core: ${err.code}: ${err.message}`, "error");
    return null;
  }
  select.replaceChildren(
    ...list.map((p) => {
      const o = new Option(p.available ? p.name : `${p.name} (unavailable)`, p.code);
      o.disabled = !p.available;
      o.title = p.error ?? p.code;
      return o;
    }),
  );
  const unavailable = list.filter((p) => !p.available);
  const note = $("provider-note");
  note.hidden = unavailable.length === 0;
  $("provider-note-count").textContent = `${unavailable.length} of ${list.length} providers are unavailable here`;
  $("provider-note-list").replaceChildren(
    ...unavailable.map((p) => {
      const li = document.createElement("li");
      li.className = "unavailable";
      li.dataset.provider = p.code;
      const name = document.createElement("b");
      name.textContent = p.name;
      // Core's reasons carry `commands` in Markdown: rendered, not shown raw.
      const why = document.createElement("span");
      renderMarkdown(why, p.error ?? "not available");
      li.append(name, ": ", why);
      return li;
    }),
  );
  defaultModels = settings.defaultModels;
  const usable = (code) => list.some((p) => p.code === code && p.available);
  const choice = [wanted, settings.defaultProvider, "script"].find((c) => c && usable(c)) ?? list.find((p) => p.available)?.code;
  if (choice) select.value = choice;
  return choice ?? null;
}

// startSession ends the current session and starts one with the chosen
// provider. Only "New session" (or a message sent after choosing another
// provider) starts one, one at a time: choosing a provider and then
// pressing New session makes exactly one session.
async function startSession() {
  if (starting) return;
  starting = true;
  try {
    await startSessionNow();
  } finally {
    starting = false;
    setBusy(busy);
  }
}

async function startSessionNow() {
  const provider = $("provider").value;
  const model = $("model").value.trim();
  const old = session;
  session = null;
  setBusy(false);
  $("restart").classList.remove("pending");
  if (old) {
    await old.end().catch(() => {});
    sessionStorage.removeItem(KEPT_SESSION);
    sessionDivider(`New session · ${new Date().toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", hourCycle: "h23" })}`);
  }
  renderExamples(provider);
  renderStatus("idle");
  $("model").placeholder = defaultModels[provider] ? `model (default ${defaultModels[provider]})` : "model (optional)";
  try {
    // The original's rule: a model only together with its provider.
    const input = provider ? { provider, ...(model ? { model } : {}) } : {};
    const s = await pedelec.createSession({ ...input, autoEndOnDisconnect: false, skills: { guidance, tools: loggedTools } });
    // A provider picked while this one was starting stays picked: it is
    // the next session's, and New session says so.
    const picked = $("provider").value;
    adopt(s);
    if (picked !== provider && [...$("provider").options].some((o) => o.value === picked)) {
      $("provider").value = picked;
      providerChanged();
    }
    systemNote(`Session started with ${s.provider}. ${sessionAdvice(s.provider)}`);
  } catch (err) {
    renderStatus("error");
    systemNote(`Could not start a session: ${err.code}: ${err.message}`, "error");
  }
}

// adopt makes s the page's session: its listeners, the header, the id kept for a reload.
function adopt(s) {
  session = s;
  sessionStorage.setItem(KEPT_SESSION, s.sessionId);
  s.onChat((delta, ctx) => assistantDelta(ctx.turnId, delta));
  s.onStatus((_status, ctx) => statusChanged(s, ctx));
  s.onError((error, ctx) => {
    if (error.code === "CORE_UNREACHABLE" && s.isReconnecting()) {
      systemNote("Lost the connection to Pedelec Core: reconnecting…");
      return renderStatus("reconnecting");
    }
    toast(`${error.code}: ${error.message}`);
    systemNote(`${error.code}: ${error.message}`, "error");
    if (ctx.turnId) turnFailed(ctx.turnId);
  });
  s.onEnded((ctx) => {
    if (sessionStorage.getItem(KEPT_SESSION) === s.sessionId) sessionStorage.removeItem(KEPT_SESSION);
    if (session === s) {
      systemNote(`Session ended (${ctx.reason ?? ctx.type}). Press "New session" to start again.`);
      session = null;
      setBusy(false);
    }
  });
  $("session-info").textContent = `${s.provider}${s.model ? ` · ${s.model}` : ""} · ${s.sessionId.slice(0, 12)}…`;
  $("provider").value = s.provider;
  renderExamples(s.provider);
  refreshStatus();
  setBusy(false);
  void refreshAssets();
}

// resumeKept resumes the session this tab had before a reload, if Core
// still holds it; true when it did.
async function resumeKept() {
  const id = sessionStorage.getItem(KEPT_SESSION);
  if (!id) return false;
  try {
    adopt(await pedelec.resumeSession(id, { tools: loggedTools }));
    systemNote("Resumed the session after the reload: the page and the agent kept where they were.");
    return true;
  } catch (err) {
    sessionStorage.removeItem(KEPT_SESSION);
    systemNote(`The session before the reload could not be resumed (${err.code}); press "Start session" for a new one.`);
    return false;
  }
}

function sessionAdvice(provider) {
  if (provider === "script") return "Pick an example below, or type commands.";
  if (!takesMessages(provider)) return "Connect an MCP client to use this page's tools (see below); messages are sent from that client, not from here.";
  return "Ask for something.";
}

// A message with no line the script agent knows would only be echoed.
function scriptNeedsHint(text) {
  return !text.split("\n").some((line) => scriptCommands.includes(line.trim().replace(/^&/, "").split(/\s+/)[0]));
}

// The provider picked differs from the session's: the next session uses it.
function providerChanged() {
  const chosen = $("provider").value;
  const pending = Boolean(session) && session.provider !== chosen;
  $("restart").classList.toggle("pending", pending);
  if (pending) systemNote(`Press "New session" to switch to ${$("provider").selectedOptions[0]?.textContent ?? chosen}.`);
  else if (!session) renderExamples(chosen);
}

async function send(text) {
  if (!text.trim()) return;
  // Another provider chosen: the message goes to a session with it.
  // No session yet, or another provider chosen: the message goes to a
  // new session with the chosen one (this Send is the user's act).
  if ((!session || session.provider !== $("provider").value) && !busy) await startSession();
  if (!session || busy || !takesMessages(session.provider)) return;
  const hint = session.provider === "script" && scriptNeedsHint(text);
  userMessage(text);
  $("message").value = "";
  setBusy(true);
  const s = session;
  let turnId = null;
  const offChat = s.onChat((_delta, ctx) => (turnId = ctx.turnId));
  try {
    await s.sendText(text);
    if (!turnHasText(turnId)) systemNote("(the turn finished without a reply)");
    if (hint) systemNote(scriptHint);
  } catch (err) {
    if (turnId) turnFailed(turnId);
    systemNote(`The turn failed: ${err.code}: ${err.message}`, "error");
  } finally {
    offChat();
    setBusy(false);
    void refreshAssets();
  }
}

function mountChat() {
  $("composer").addEventListener("submit", (e) => {
    e.preventDefault();
    void send($("message").value);
  });
  $("message").addEventListener("keydown", (e) => {
    if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
      e.preventDefault();
      void send($("message").value);
    }
  });
  $("restart").addEventListener("click", () => void startSession());
  $("provider").addEventListener("change", providerChanged);
}

// For tests and for poking around in the console.
window.pedelecDemo = {
  pedelec,
  get session() {
    return session;
  },
  send,
};

// The demo acts for the user only as the page they opened: framed by
// another site (Core also forbids framing it: frame-ancestors 'none') it
// does nothing at all. At the top level it starts a session only when the
// user asks (Start session, or Send): opening the page, or a link with
// ?provider=, only preselects the provider.
if (window.top !== window.self) {
  document.body.replaceChildren(Object.assign(document.createElement("p"), { textContent: "The Pedelec demo works only as a page of its own: open it in its own tab." }));
} else {
  mountApp();
  restoreChat();
  mountChat();
  mountChatScroll();
  mountAssets(() => session);
  setBusy(false);
  const [choice] = await Promise.all([loadProviders(), loadConnect()]);
  if (choice && (await resumeKept())) {
    // the session before the reload is back
  } else if (choice) {
    renderExamples(choice);
    renderStatus("idle");
    systemNote(`Press "Start session" (or send a message) to start a session with ${$("provider").selectedOptions[0]?.textContent ?? choice}.`);
  }
  document.body.dataset.demo = "ready";
}
