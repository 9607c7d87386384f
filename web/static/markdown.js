// A small Markdown renderer for the agent's replies: fenced code blocks,
// `inline code` and **bold**, built as DOM nodes (never innerHTML), so a
// reply can never inject markup. Everything else stays plain text. A line
// of the agent's that looks like a tool-call result ({"ok":...}) is shown
// as the JSON it is, never styled as a success: the agent wrote it, and
// only the page knows what its tools returned (chat.js marks those). An
// error the agent says it received is marked, so it does not read as an
// answer.

/** Renders text into el, replacing its children. */
export function renderMarkdown(el, text) {
  const out = [];
  const parts = text.split(/^```[^\n]*\n?/m);
  // Even parts are prose, odd parts are the inside of a fence (an
  // unterminated fence, while the reply still streams, counts as code).
  parts.forEach((part, i) => {
    if (i % 2 === 1) {
      const pre = document.createElement("pre");
      const code = document.createElement("code");
      code.textContent = part.replace(/\n$/, "");
      pre.append(code);
      out.push(pre);
      return;
    }
    for (const [j, line] of part.split("\n").entries()) {
      if (j > 0) out.push(document.createTextNode("\n"));
      out.push(renderLine(line));
    }
  });
  el.replaceChildren(...out);
}

/** text indented, when it is one JSON value; else null. */
function prettyJson(text) {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return null;
  }
}

function renderLine(line) {
  const span = document.createElement("span");
  const trimmed = line.trim();
  if (trimmed.startsWith('{"ok":')) {
    // A result line is JSON: shown as that JSON, never reinterpreted as
    // Markdown; a long one indented to be readable (a tool's spec).
    span.className = trimmed.startsWith('{"ok":false') ? "line-error" : "line-json";
    span.textContent = trimmed.length > 100 ? prettyJson(trimmed) ?? line : line;
    return span;
  }
  // `code` first (its inside is literal), then **bold** in the rest.
  const re = /`([^`\n]+)`|\*\*([^*\n]+)\*\*/g;
  let last = 0;
  for (const m of line.matchAll(re)) {
    if (m.index > last) span.append(line.slice(last, m.index));
    const node = document.createElement(m[1] !== undefined ? "code" : "strong");
    node.textContent = m[1] ?? m[2];
    span.append(node);
    last = m.index + m[0].length;
  }
  if (last < line.length) span.append(line.slice(last));
  return span;
}
