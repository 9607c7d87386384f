// What to type. With the script provider each line is a command the
// script agent runs through the real `pedelec tool-call` / `tool-spec`;
// with a real agent, plain requests.

export const scriptIntro =
  "The script provider needs no AI: each line of your message is a command. `call <tool> <json>` runs the tool exactly as an agent would, `spec <tool>` prints its schema, `say <text>` replies; `write`, `mkdir`, `ls` work on files in its directory (the Files panel's `assets/`). Click an example to put it in the message box.";

export const agentIntro = "Ask in plain words. Click an example to put it in the message box.";

// The mcp provider starts no agent here: the user's own MCP client is the
// agent, and the page cannot send it messages (SEND_TEXT_NOT_SUPPORTED).
export const mcpIntro = (command = "pedelec mcp") =>
  `With **MCP client** this page sends no messages: your own MCP client (Claude Code, Codex, Cursor, VS Code, the MCP Inspector) is the agent and calls this page's tools. Connect it once, with this Core running: \`claude mcp add pedelec -- ${command}\` (or \`${command}\` as the command in any client's MCP config; the MCP docs have each one), then ask in your client, for example "add a todo to buy milk". The Tool activity below shows its calls.`;

// What the script provider accepts, for the message box and for a message
// that holds no command (it would only be echoed back).
export const scriptCommands = ["call", "spec", "say", "write", "mkdir", "symlink", "rm", "ls", "history"];
export const scriptHint =
  "The script provider is not an AI: it runs commands, one per line (call <tool> <json>, spec <tool>, say <text>, write, mkdir, ls), and echoes anything else. Pick an example below, or choose an agent provider to ask in plain words.";

export const scriptExamples = [
  { label: "Add 2 to the counter", text: 'call update_counter {"delta": 2}' },
  { label: "Read the counter", text: "call get_counter {}" },
  { label: "Add a todo", text: 'call add_todo {"text": "Buy milk"}' },
  { label: "Two calls in one turn", text: 'say Adding two todos, then listing them.\ncall add_todo {"text": "Write docs"}\ncall add_todo {"text": "Ship it"}\ncall list_todos {}' },
  { label: "Toggle a todo", text: 'call toggle_todo {"id": "todo-1"}' },
  { label: "Read the selection", text: "call get_selected_text {}" },
  { label: "Replace the selection", text: 'call replace_selection {"text": "HELLO"}' },
  { label: "Ask me first (modal)", text: 'call confirm_action {"title": "Is this a good time?", "message": "The agent only asks: nothing on the page changes either way.", "confirmLabel": "Yes"}' },
  { label: "Reset the counter (the page asks you)", text: "call reset_counter {}" },
  { label: "Clear the todos (Core asks you)", text: "call clear_todos {}" },
  { label: "Show a tool's schema", text: "spec update_counter" },
  { label: "Bad arguments", text: 'call update_counter {"delta": "two"}' },
  { label: "Page info", text: "call get_current_page {}" },
  { label: "Write a file for the page", text: 'ls assets\nwrite assets/results/report.json {"rows": 2, "summary": "written by the agent"}\nsay Wrote assets/results/report.json: see Files.' },
];

export const agentExamples = [
  { label: "Counter", text: "Add 3 to the counter, then tell me its value." },
  { label: "Todos", text: "Add todos for 'write docs' and 'ship it', then mark the first one done." },
  { label: "Editor", text: "Make the text I selected in the editor more formal." },
  { label: "Confirm", text: "Ask me for confirmation, then subtract 20 from the counter if I agree." },
  { label: "Reset", text: "Reset the counter." },
  { label: "Clear (Core asks you)", text: "Clear my todo list." },
];
