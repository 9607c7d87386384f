// The demo app's own state and UI: a counter, a todo list and an editor.
// The tools (tools.js) go through these functions, exactly as the buttons
// do, so the agent can never do what the user could not.

const $ = (id) => document.getElementById(id);

// ---- kept across a reload ----
// The page's state lives in sessionStorage (this tab only, gone with it),
// so a reload keeps the counter, the todos and the editor's text, as the
// resumed session keeps the agent's side.
const KEPT = "pedelec.demo.state";

function save() {
  try {
    sessionStorage.setItem(KEPT, JSON.stringify({ counter, todos, nextTodo, editor: $("editor").value }));
  } catch {
    // storage full or off: the page still works, it only forgets on reload
  }
}

function load() {
  try {
    const kept = JSON.parse(sessionStorage.getItem(KEPT) ?? "null");
    if (!kept) return;
    if (Number.isInteger(kept.counter)) counter = kept.counter;
    if (Array.isArray(kept.todos)) todos = kept.todos.filter((t) => typeof t?.id === "string" && typeof t?.text === "string").map((t) => ({ id: t.id, text: t.text, done: t.done === true }));
    if (Number.isInteger(kept.nextTodo)) nextTodo = kept.nextTodo;
    if (typeof kept.editor === "string") $("editor").value = kept.editor;
  } catch {
    // a damaged entry: start fresh
  }
}

// ---- counter ----

let counter = 0;
const COUNTER_MIN = -1_000_000;
const COUNTER_MAX = 1_000_000;

export function getCounter() {
  return counter;
}

export function addToCounter(delta) {
  counter = Math.min(COUNTER_MAX, Math.max(COUNTER_MIN, counter + delta));
  renderCounter();
  flash($("counter-card"));
  return counter;
}

export function resetCounter() {
  counter = 0;
  renderCounter();
  flash($("counter-card"));
  return counter;
}

function renderCounter() {
  $("counter-value").textContent = String(counter);
  save();
}

// ---- todos ----

let todos = [];
let nextTodo = 1;

export function listTodos() {
  return todos.map((t) => ({ ...t }));
}

export function addTodo(text) {
  const todo = { id: `todo-${nextTodo++}`, text, done: false };
  todos.push(todo);
  renderTodos();
  flash($("todo-card"));
  return { ...todo };
}

/** Removes every todo; returns how many there were. */
export function clearTodos() {
  const removed = todos.length;
  todos = [];
  renderTodos();
  flash($("todo-card"));
  return removed;
}

/** Flips or sets a todo's done flag; null when there is no such todo. */
export function setTodoDone(id, done) {
  const todo = todos.find((t) => t.id === id);
  if (!todo) return null;
  todo.done = typeof done === "boolean" ? done : !todo.done;
  renderTodos();
  flash($("todo-card"));
  return { ...todo };
}

function renderTodos() {
  save();
  const list = $("todo-list");
  list.replaceChildren(
    ...todos.map((t) => {
      const li = document.createElement("li");
      li.dataset.id = t.id;
      li.className = t.done ? "done" : "";
      const label = document.createElement("label");
      const box = document.createElement("input");
      box.type = "checkbox";
      box.checked = t.done;
      box.addEventListener("change", () => setTodoDone(t.id, box.checked));
      const text = document.createElement("span");
      text.textContent = t.text;
      const id = document.createElement("code");
      id.textContent = t.id;
      label.append(box, text);
      li.append(label, id);
      return li;
    }),
  );
  if (todos.length === 0) {
    const empty = document.createElement("li");
    empty.className = "empty";
    empty.textContent = "Nothing to do yet.";
    list.append(empty);
  }
}

// ---- editor ----

/** The editor's selection; the textarea keeps it while focus is elsewhere (the chat box). */
export function getSelection() {
  const ed = $("editor");
  return { start: ed.selectionStart, end: ed.selectionEnd, text: ed.value.slice(ed.selectionStart, ed.selectionEnd) };
}

/** Replaces the selected text; null when nothing is selected. */
export function replaceSelection(text) {
  const ed = $("editor");
  const { start, end } = getSelection();
  if (start === end) return null;
  const replaced = ed.value.slice(start, end);
  ed.setRangeText(text, start, end, "select");
  renderSelection();
  save();
  flash($("editor-card"));
  return { replaced, start, end: start + text.length };
}

function renderSelection() {
  const { start, end } = getSelection();
  $("selection-info").textContent = start === end ? "none" : `${end - start} characters (${start}–${end})`;
}

function flash(el) {
  // On a phone the cards are a strip: the one that changed comes into view.
  if (matchMedia("(max-width: 860px)").matches) el.parentElement?.scrollTo({ left: el.offsetLeft - el.parentElement.offsetLeft, behavior: "smooth" });
  el.classList.remove("flash");
  void el.offsetWidth; // restart the animation
  el.classList.add("flash");
}

export function mountApp() {
  $("counter-inc").addEventListener("click", () => addToCounter(1));
  $("counter-dec").addEventListener("click", () => addToCounter(-1));
  $("todo-form").addEventListener("submit", (e) => {
    e.preventDefault();
    const input = $("todo-input");
    const text = input.value.trim();
    if (text) addTodo(text);
    input.value = "";
  });
  const ed = $("editor");
  load();
  ed.addEventListener("input", save);
  for (const ev of ["select", "keyup", "mouseup", "input"]) ed.addEventListener(ev, renderSelection);
  document.addEventListener("selectionchange", renderSelection);
  renderCounter();
  renderTodos();
  renderSelection();
}
