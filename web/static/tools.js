// The demo's tools: narrow, described so an agent picks the right one, and
// each handler checks its arguments again (agent input is untrusted, even
// after Core's schema check) and goes through the app's own functions.
import { defineTool } from "/sdk/pedelec.js";
import { askUser } from "./modal.js";
import * as app from "./state.js";

const noArgs = { type: "object", properties: {}, required: [] };

// How long confirm_action waits for the user; ?confirmTimeoutMs= shortens
// it to watch (or test) the timeout path.
const confirmTimeoutMs = Number(new URLSearchParams(location.search).get("confirmTimeoutMs")) || 120_000;

const fail = (code, message, details) => ({ error: details ? { code, message, details } : { code, message } });

export const guidance = [
  "You are working inside the Pedelec demo page: a counter, a todo list and a text editor.",
  "Read state with get_counter, list_todos, get_selected_text or get_current_page instead of guessing it.",
  "Use get_selected_text before editing the user's selection, and never guess the selection.",
  "Use list_todos to find a todo's id before toggle_todo.",
  "To reset the counter use reset_counter: it asks the user itself.",
  "clear_todos removes every todo; Pedelec Core asks the user to approve each call first, so say what you are about to clear.",
  "Ask for confirmation with confirm_action before large changes (a counter change of more than 10, or replacing more than one line of text), and do nothing if the user does not confirm.",
].join("\n");

export const tools = [
  defineTool({
    name: "get_counter",
    description: "Read the current value of the counter shown on the page. Changes nothing.",
    argsSchema: noArgs,
    handler: () => ({ value: app.getCounter() }),
  }),
  defineTool({
    name: "update_counter",
    description:
      "Increase or decrease the visible counter by a signed delta and return the new value. Use get_counter to only read it.",
    argsSchema: {
      type: "object",
      properties: {
        delta: { type: "integer", description: "Signed amount to add to the counter.", minimum: -100, maximum: 100 },
      },
      required: ["delta"],
    },
    timeoutMs: 10_000,
    handler: (args) => {
      if (!Number.isInteger(args?.delta)) return fail("INVALID_DELTA", "delta must be an integer.");
      return { value: app.addToCounter(args.delta) };
    },
  }),
  defineTool({
    name: "reset_counter",
    description:
      "Set the counter back to 0. It asks the user first in a dialog and resets only when they confirm; returns {reset: true, value: 0}, or {reset: false, reason} with reason cancelled, timeout or page_closed.",
    argsSchema: noArgs,
    timeoutMs: confirmTimeoutMs,
    handler: async (_args, ctx) => {
      const answer = await askUser({
        title: "Reset the counter?",
        message: `The agent wants to set the counter from ${app.getCounter()} to 0.`,
        confirmLabel: "Reset",
        deadline: ctx.deadline,
        signal: ctx.signal,
      });
      return answer.confirmed ? { reset: true, value: app.resetCounter() } : { reset: false, reason: answer.reason };
    },
  }),
  defineTool({
    name: "add_todo",
    description: "Add a new, not yet done item at the end of the todo list and return it with its id.",
    argsSchema: {
      type: "object",
      properties: { text: { type: "string", description: "What needs doing.", minLength: 1, maxLength: 200 } },
      required: ["text"],
    },
    handler: (args) => {
      const text = typeof args?.text === "string" ? args.text.trim() : "";
      if (!text) return fail("EMPTY_TODO", "text must be a non-empty string.");
      return app.addTodo(text.slice(0, 200));
    },
  }),
  defineTool({
    name: "toggle_todo",
    description:
      "Mark a todo as done or not done. Without `done` it flips the current state. Needs the todo's id from list_todos or add_todo.",
    argsSchema: {
      type: "object",
      properties: {
        id: { type: "string", description: "The todo's id, such as todo-1.", minLength: 1 },
        done: { type: "boolean", description: "The state to set; omit to flip." },
      },
      required: ["id"],
    },
    handler: (args) => {
      const todo = app.setTodoDone(String(args?.id ?? ""), args?.done);
      if (!todo) {
        return fail("TODO_NOT_FOUND", `There is no todo with id ${JSON.stringify(args?.id)}. Call list_todos for the ids.`, {
          knownIds: app.listTodos().map((t) => t.id),
        });
      }
      return todo;
    },
  }),
  // A destructive tool: Core, not the page, asks the user before each call
  // (the console's Pending approvals, or `pedelec approve`); the handler
  // runs only once they approve, and a denial reaches the agent as
  // TOOL_CALL_DENIED.
  defineTool({
    name: "clear_todos",
    description: "Remove every todo from the list and return how many were removed. Destructive: the user approves each call in Pedelec Core first.",
    argsSchema: noArgs,
    annotations: { destructiveHint: true },
    timeoutMs: 120_000,
    handler: () => ({ removed: app.clearTodos() }),
  }),
  defineTool({
    name: "list_todos",
    description: "List every todo with its id, text and done state, in order. Changes nothing.",
    argsSchema: noArgs,
    handler: () => ({ todos: app.listTodos() }),
  }),
  defineTool({
    name: "get_selected_text",
    description:
      "Read the text the user selected in the page's editor, with its start and end offsets. Returns empty text when nothing is selected.",
    argsSchema: noArgs,
    handler: () => app.getSelection(),
  }),
  defineTool({
    name: "replace_selection",
    description:
      "Replace the text currently selected in the editor with new text. Fails with NO_SELECTION when nothing is selected: then ask the user to select text first. Read it with get_selected_text before replacing it.",
    argsSchema: {
      type: "object",
      properties: { text: { type: "string", description: "The replacement text.", maxLength: 10_000 } },
      required: ["text"],
    },
    handler: (args) => {
      if (typeof args?.text !== "string") return fail("INVALID_TEXT", "text must be a string.");
      const done = app.replaceSelection(args.text);
      return done ?? fail("NO_SELECTION", "There is no selected text in the editor. Ask the user to select the text to replace.");
    },
  }),
  defineTool({
    name: "get_current_page",
    description: "Read the title and URL of the current browser page, and any text selected on it.",
    argsSchema: noArgs,
    handler: (_args, ctx) => ({
      title: document.title,
      url: location.href,
      selectedText: window.getSelection()?.toString() ?? "",
      observedForTurn: ctx.turnId,
    }),
  }),
  defineTool({
    name: "confirm_action",
    description:
      "Ask the user to confirm an action in a dialog and wait for the answer (up to 2 minutes). Returns {confirmed: true} only when the user clicked Confirm; otherwise {confirmed: false, reason} with reason cancelled, timeout or page_closed.",
    argsSchema: {
      type: "object",
      properties: {
        title: { type: "string", description: "A short question, such as 'Reset the counter?'", minLength: 1, maxLength: 120 },
        message: { type: "string", description: "What will happen if the user confirms.", maxLength: 1000 },
        confirmLabel: { type: "string", description: "The confirm button's label (default: Confirm).", maxLength: 40 },
      },
      required: ["title"],
    },
    timeoutMs: confirmTimeoutMs,
    handler: async (args, ctx) => {
      const title = typeof args?.title === "string" && args.title.trim() ? args.title : "Confirm?";
      const answer = await askUser({
        title,
        message: typeof args?.message === "string" ? args.message : "",
        confirmLabel: typeof args?.confirmLabel === "string" ? args.confirmLabel : "",
        deadline: ctx.deadline,
        signal: ctx.signal,
      });
      return answer.confirmed ? { confirmed: true } : { confirmed: false, reason: answer.reason };
    },
  }),
];
