// One renderer for what a tool call will run with: the approval window
// and the console both show a call's arguments through it, so the user
// sees the same thing wherever they decide.
//
// It shows the values the page's handler gets (the handler's JSON.parse
// is the last word: a number is shown as the digits that parse gives, not
// as the agent spelled it) and nothing that can hide or rearrange text:
// bidi controls and invisible characters become visible escapes (\u202E),
// long runs of spaces a visible count, every string wraps, and a word that
// mixes letters of look-alike scripts (a Cyrillic а in "alice") is
// flagged. Everything is written as text, never as HTML.

// Characters that reorder or hide text: bidi embeddings, overrides,
// isolates and marks; zero-width and other invisible format characters;
// spaces that look like none or like an ordinary one; tag characters.
const HIDDEN =
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F\u00A0\u00AD\u034F\u061C\u115F\u1160\u1680\u17B4\u17B5\u180B-\u180F\u2000-\u200F\u2028-\u202F\u205F-\u206F\u3000\u3164\uFE00-\uFE0F\uFEFF\uFFA0\uFFF9-\uFFFB]|[\u{E0000}-\u{E007F}\u{E0100}-\u{E01EF}]/gu;
const NAMES = {
  0x061c: "ARABIC LETTER MARK", 0x200b: "ZERO WIDTH SPACE", 0x200c: "ZERO WIDTH NON-JOINER", 0x200d: "ZERO WIDTH JOINER",
  0x200e: "LEFT-TO-RIGHT MARK", 0x200f: "RIGHT-TO-LEFT MARK", 0x202a: "LEFT-TO-RIGHT EMBEDDING", 0x202b: "RIGHT-TO-LEFT EMBEDDING",
  0x202c: "POP DIRECTIONAL FORMATTING", 0x202d: "LEFT-TO-RIGHT OVERRIDE", 0x202e: "RIGHT-TO-LEFT OVERRIDE", 0x2066: "LEFT-TO-RIGHT ISOLATE",
  0x2067: "RIGHT-TO-LEFT ISOLATE", 0x2068: "FIRST STRONG ISOLATE", 0x2069: "POP DIRECTIONAL ISOLATE", 0xfeff: "ZERO WIDTH NO-BREAK SPACE",
  0x00a0: "NO-BREAK SPACE", 0x00ad: "SOFT HYPHEN", 0x2060: "WORD JOINER",
};
const SPACES = / {4,}/g;

// Scripts whose letters pass for one another; a word holding letters of
// two of them is how a look-alike name is made.
const SCRIPTS = ["Latin", "Cyrillic", "Greek", "Armenian", "Cherokee", "Georgian", "Coptic"].map((name) => [name, new RegExp(`\\p{Script=${name}}`, "u")]);
const WORD = /[\p{L}\p{M}\p{Nd}_]+/gu;

const hex = (cp) => cp.toString(16).toUpperCase().padStart(4, "0");

function el(tag, cls, text) {
  const n = document.createElement(tag);
  if (cls) n.className = cls;
  if (text !== undefined) n.textContent = text;
  return n;
}

/** The scripts a word mixes ([] when it does not). */
export function mixedScripts(word) {
  const seen = new Set();
  for (const ch of word) for (const [name, re] of SCRIPTS) if (re.test(ch)) seen.add(name);
  return seen.size > 1 ? [...seen] : [];
}

/**
 * text renders one string (a key or a value) into parent: escapes for
 * what would hide or reorder, a count for long runs of spaces, a flag on
 * mixed-script words. It reports what it found into notes.
 */
export function text(parent, s, notes) {
  // JSON's own escapes first (quotes, backslashes, newlines, controls),
  // then ours on what JSON leaves as it is.
  const quoted = JSON.stringify(s);
  const parts = [];
  let last = 0;
  const marks = [];
  for (const m of quoted.matchAll(HIDDEN)) marks.push({ at: m.index, len: m[0].length, kind: "hidden", ch: m[0] });
  for (const m of quoted.matchAll(SPACES)) marks.push({ at: m.index, len: m[0].length, kind: "spaces" });
  marks.sort((a, b) => a.at - b.at);
  for (const m of marks) {
    if (m.at < last) continue;
    if (m.at > last) parts.push(quoted.slice(last, m.at));
    if (m.kind === "spaces") {
      parts.push(el("span", "esc esc-spaces", `⟨${m.len} spaces⟩`));
      notes.add(`a run of ${m.len} spaces, shown as ⟨${m.len} spaces⟩`);
    } else {
      const cp = m.ch.codePointAt(0);
      const name = NAMES[cp] ?? "invisible character";
      const e = el("span", "esc", `\\u${cp > 0xffff ? `{${hex(cp)}}` : hex(cp)}`);
      e.title = `U+${hex(cp)} ${name}`;
      parts.push(e);
      notes.add(`U+${hex(cp)} ${name}, shown as ${e.textContent}`);
    }
    last = m.at + m.len;
  }
  if (last < quoted.length) parts.push(quoted.slice(last));
  const span = el("span", "str");
  for (const p of parts) {
    if (typeof p !== "string") {
      span.append(p);
      continue;
    }
    // Flag look-alike words inside the plain text.
    let at = 0;
    for (const w of p.matchAll(WORD)) {
      const mixed = mixedScripts(w[0]);
      if (!mixed.length) continue;
      span.append(p.slice(at, w.index));
      const mark = el("mark", "mixed-script", w[0]);
      mark.title = `mixes ${mixed.join(" and ")} letters`;
      span.append(mark);
      notes.add(`“${w[0]}” mixes ${mixed.join(" and ")} letters`);
      at = w.index + w[0].length;
    }
    span.append(p.slice(at));
  }
  parent.append(span);
}

// ---- values: from a parsed value, or from the raw text Core holds ----

/** fromValue makes the renderer's tree of a parsed JSON value. */
function fromValue(v) {
  if (v === null) return { t: "null" };
  if (Array.isArray(v)) return { t: "arr", items: v.map(fromValue) };
  switch (typeof v) {
    case "object":
      return { t: "obj", members: Object.entries(v).map(([k, x]) => [k, fromValue(x)]) };
    case "string":
      return { t: "str", v };
    case "number":
      return { t: "num", v };
    case "boolean":
      return { t: "bool", v };
  }
  return { t: "str", v: String(v) };
}

/**
 * fromRaw parses JSON text as JSON.parse does (so the values are what the
 * handler gets), keeping each number's spelling to say when the handler
 * gets other digits, and noting repeated keys.
 */
function fromRaw(src, notes) {
  let i = 0;
  const ws = () => {
    while (i < src.length && " \t\n\r".includes(src[i])) i++;
  };
  const value = () => {
    ws();
    const c = src[i];
    if (c === "{") {
      i++;
      const members = [];
      const keys = new Set();
      ws();
      if (src[i] === "}") return i++, { t: "obj", members };
      for (;;) {
        ws();
        const k = string();
        ws();
        i++; // :
        const v = value();
        if (keys.has(k)) notes.add(`the key ${JSON.stringify(k)} appears more than once`);
        keys.add(k);
        members.push([k, v]);
        ws();
        if (src[i++] === "}") return { t: "obj", members };
      }
    }
    if (c === "[") {
      i++;
      const items = [];
      ws();
      if (src[i] === "]") return i++, { t: "arr", items };
      for (;;) {
        items.push(value());
        ws();
        if (src[i++] === "]") return { t: "arr", items };
      }
    }
    if (c === '"') return { t: "str", v: string() };
    const m = /^-?\d+(\.\d+)?([eE][+-]?\d+)?|^true|^false|^null/.exec(src.slice(i, i + 400));
    if (!m) throw new SyntaxError("not JSON");
    i += m[0].length;
    if (m[0] === "true" || m[0] === "false") return { t: "bool", v: m[0] === "true" };
    if (m[0] === "null") return { t: "null" };
    return { t: "num", v: Number(m[0]), raw: m[0] };
  };
  const string = () => {
    const start = i;
    i++;
    while (src[i] !== '"') i += src[i] === "\\" ? 2 : 1;
    i++;
    return JSON.parse(src.slice(start, i));
  };
  const tree = value();
  ws();
  if (i < src.length) throw new SyntaxError("not JSON");
  return tree;
}

function render(parent, node, indent, notes) {
  const pad = "  ".repeat(indent);
  switch (node.t) {
    case "obj":
      if (!node.members.length) return parent.append("{}");
      parent.append("{\n");
      node.members.forEach(([k, v], n) => {
        parent.append(pad + "  ");
        const key = el("span", "key");
        text(key, k, notes);
        parent.append(key, ": ");
        render(parent, v, indent + 1, notes);
        parent.append(n < node.members.length - 1 ? ",\n" : "\n");
      });
      return parent.append(pad + "}");
    case "arr":
      if (!node.items.length) return parent.append("[]");
      parent.append("[\n");
      node.items.forEach((v, n) => {
        parent.append(pad + "  ");
        render(parent, v, indent + 1, notes);
        parent.append(n < node.items.length - 1 ? ",\n" : "\n");
      });
      return parent.append(pad + "]");
    case "str":
      return text(parent, node.v, notes);
    case "num": {
      // The digits the handler gets; JSON.stringify spells them as JS does.
      const shown = JSON.stringify(node.v);
      const n = el("span", "num", shown);
      if (node.raw !== undefined && changesValue(node.raw, node.v)) {
        n.classList.add("num-changed");
        n.title = `the agent wrote ${node.raw}`;
        notes.add(`the agent wrote the number ${node.raw}; the handler gets ${shown}`);
      }
      return parent.append(n);
    }
    case "bool":
      return parent.append(el("span", "lit", String(node.v)));
    case "null":
      return parent.append(el("span", "lit", "null"));
  }
}

// changesValue: the spelled number is not exactly the double it parses to
// (an integer beyond 2^53, too many digits).
function changesValue(raw, v) {
  if (/^-?\d+$/.test(raw)) {
    try {
      return BigInt(raw) !== BigInt(v);
    } catch {
      return true;
    }
  }
  const digits = (s) => s.replace(/^-/, "").replace(/e.*$/i, "").replace(".", "").replace(/^0+/, "").replace(/0+$/, "");
  return digits(raw).length > 17 || (Number.isFinite(v) && digits(String(v)).length < digits(raw).length);
}

/**
 * argsView renders a call's arguments: raw JSON text (the approval window
 * holds Core's copy of what the page will get) or a parsed value (the
 * console). It returns the <pre> and the list of what the user should know.
 */
export function argsView(input, { raw = false } = {}) {
  const notes = new Set();
  let tree;
  try {
    tree = raw ? fromRaw(String(input), notes) : fromValue(input);
  } catch {
    tree = { t: "str", v: String(input) };
    notes.add("the arguments are not JSON");
  }
  const pre = el("pre", "args-view");
  pre.tabIndex = 0; // scrollable with the keyboard
  render(pre, tree, 0, notes);
  const box = el("div", "args-box");
  box.append(pre);
  if (notes.size) {
    const ul = el("ul", "args-notes");
    ul.setAttribute("aria-label", "Look closely");
    for (const n of notes) ul.append(el("li", "", n));
    box.append(ul);
  }
  return { box, pre, notes: [...notes] };
}
