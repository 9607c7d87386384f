// The input schema of a declarative WebMCP tool (<form toolname>), where
// the browser does not synthesize one itself. The draft names the
// algorithm ("synthesize a declarative JSON Schema object") and leaves its
// steps to do; this follows what Chromium's implementation produces
// (probed in Chromium 156, docs/webmcp.md) where that is plain JSON
// Schema, and says the same thing with fewer keywords where it can (an
// integer type for a whole step, an anchored pattern for a date), so the
// schema means what the form accepts:
//   one property per control name, in document order; a control without a
//   name, disabled, read-only, hidden, a file or a button is not a parameter
//   text, search, tel, email, url, password → string (minlength, maxlength,
//     pattern anchored as HTML anchors it)
//   number, range → integer when the step (1 unless given; "any" none)
//     and its base are whole, else number (multipleOf the step); min/max
//   date, time, datetime-local, month, week, color → string with the
//     pattern of the value the control takes, and its format in words
//   checkbox → boolean; several checkboxes of one name → an array of
//     their values (uniqueItems)
//   radio group → string, enum of the values
//   select → string, enum of the option values (array for multiple)
//   textarea → string (minlength, maxlength)
//   required → the name in required
//   toolparamdescription, else the control's label → description
//   toolparamtitle → title
// Option and radio labels that differ from their values are said in the
// description ("eco" (Economy)), where Chromium writes anyOf/const/title.

export type FormSchema = {
  type: "object";
  properties: Record<string, Record<string, unknown>>;
  required: string[];
};

/** The controls of one parameter: a radio group, a checkbox group, or one control. */
type Param = { name: string; controls: FormControl[] };

type FormControl = HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement;

const SKIPPED_INPUTS = new Set(["hidden", "file", "submit", "reset", "button", "image"]);

/** What a value of these input types looks like: the pattern and the words for it. */
const SHAPED: Record<string, [pattern: string, words: string]> = {
  date: ["^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])$", "A date, YYYY-MM-DD"],
  time: ["^([01][0-9]|2[0-3]):[0-5][0-9](:[0-5][0-9](\\.[0-9]{1,3})?)?$", "A time, HH:MM"],
  "datetime-local": ["^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])T([01][0-9]|2[0-3]):[0-5][0-9](:[0-5][0-9](\\.[0-9]{1,3})?)?$", "A local date and time, YYYY-MM-DDTHH:MM"],
  month: ["^[0-9]{4}-(0[1-9]|1[0-2])$", "A month, YYYY-MM"],
  week: ["^[0-9]{4}-W(0[1-9]|[1-4][0-9]|5[0-3])$", "A week, YYYY-Www"],
  color: ["^#[0-9a-fA-F]{6}$", "A colour, #rrggbb"],
};

/** The form's controls that are parameters, grouped by name, in document order. */
export function formParams(form: HTMLFormElement): Param[] {
  const byName = new Map<string, Param>();
  for (const el of Array.from(form.elements)) {
    if (!isParamControl(el)) continue;
    const name = el.name;
    let p = byName.get(name);
    if (!p) byName.set(name, (p = { name, controls: [] }));
    p.controls.push(el);
  }
  return [...byName.values()];
}

function isParamControl(el: Element): el is FormControl {
  if (!(el instanceof HTMLInputElement || el instanceof HTMLSelectElement || el instanceof HTMLTextAreaElement)) return false;
  if (!el.name || el.matches(":disabled")) return false;
  if (el instanceof HTMLSelectElement) return true;
  if (el.readOnly) return false;
  return !(el instanceof HTMLInputElement && SKIPPED_INPUTS.has(el.type));
}

/** The input schema of a <form toolname>. */
export function synthesizeFormSchema(form: HTMLFormElement): FormSchema {
  const schema: FormSchema = { type: "object", properties: {}, required: [] };
  for (const p of formParams(form)) {
    schema.properties[p.name] = paramSchema(p);
    if (p.controls.some((c) => c.required)) schema.required.push(p.name);
  }
  return schema;
}

function paramSchema(p: Param): Record<string, unknown> {
  const first = p.controls[0]!;
  let s: Record<string, unknown>;
  let described: string | undefined;
  if (first instanceof HTMLSelectElement) {
    const options = Array.from(first.options).filter((o) => !o.disabled);
    const values = options.map((o) => o.value);
    described = choices(options.map((o) => [o.value, o.label || o.text]));
    const item = { type: "string", enum: unique(values) };
    s = first.multiple ? { type: "array", items: item, uniqueItems: true } : item;
  } else if (first instanceof HTMLInputElement && first.type === "radio") {
    const radios = p.controls as HTMLInputElement[];
    s = { type: "string", enum: unique(radios.map((r) => r.value)) };
    described = choices(radios.map((r) => [r.value, labelOf(r)]));
  } else if (first instanceof HTMLInputElement && first.type === "checkbox") {
    const boxes = p.controls as HTMLInputElement[];
    if (boxes.length === 1) s = { type: "boolean" };
    else {
      s = { type: "array", items: { type: "string", enum: unique(boxes.map((b) => b.value)) }, uniqueItems: true };
      described = choices(boxes.map((b) => [b.value, labelOf(b)]));
    }
  } else if (first instanceof HTMLInputElement && (first.type === "number" || first.type === "range")) {
    s = numberSchema(first);
  } else if (first instanceof HTMLInputElement && SHAPED[first.type]) {
    const [pattern, words] = SHAPED[first.type]!;
    s = { type: "string", pattern };
    described = words + boundsInWords(first);
  } else {
    s = stringSchema(first as HTMLInputElement | HTMLTextAreaElement);
  }
  const title = attr(p.controls, "toolparamtitle");
  if (title) s.title = title;
  const own = attr(p.controls, "toolparamdescription") ?? labelOfGroup(p);
  const description = [own, described].filter(Boolean).join(". ");
  if (description) s.description = description;
  return s;
}

function stringSchema(el: HTMLInputElement | HTMLTextAreaElement): Record<string, unknown> {
  const s: Record<string, unknown> = { type: "string" };
  if (el.minLength > 0) s.minLength = el.minLength;
  if (el.maxLength >= 0) s.maxLength = el.maxLength;
  if (el instanceof HTMLInputElement && el.pattern && validPattern(el.pattern)) {
    // HTML matches the whole value (and compiles with the v flag, which a
    // JSON Schema validator does not know); JSON Schema matches anywhere.
    s.pattern = `^(?:${el.pattern})$`;
  }
  return s;
}

function validPattern(p: string): boolean {
  try {
    new RegExp(p, "v");
    return true;
  } catch {
    return false;
  }
}

function numberSchema(el: HTMLInputElement): Record<string, unknown> {
  const min = finite(el.min) ?? (el.type === "range" ? 0 : undefined);
  const max = finite(el.max) ?? (el.type === "range" ? 100 : undefined);
  const stepAttr = el.getAttribute("step");
  const step = stepAttr === null ? 1 : stepAttr.trim().toLowerCase() === "any" ? undefined : (finite(stepAttr) ?? 1);
  const base = min ?? 0;
  const whole = step !== undefined && step > 0 && Number.isInteger(step) && Number.isInteger(base);
  const s: Record<string, unknown> = { type: whole ? "integer" : "number" };
  // A step other than 1 from a base of 0 is multipleOf; from another base
  // (min 1, step 2: 1, 3, 5...) JSON Schema has no word, and the form's own
  // check on submit says so.
  if (step !== undefined && step > 0 && step !== 1 && base === 0) s.multipleOf = step;
  if (min !== undefined) s.minimum = min;
  if (max !== undefined) s.maximum = max;
  return s;
}

function finite(v: string | null | undefined): number | undefined {
  if (v === null || v === undefined || v.trim() === "") return undefined;
  const n = Number(v);
  return Number.isFinite(n) ? n : undefined;
}

function boundsInWords(el: HTMLInputElement): string {
  const parts = [];
  if (el.min) parts.push(`from ${el.min}`);
  if (el.max) parts.push(`to ${el.max}`);
  return parts.length ? ` (${parts.join(" ")})` : "";
}

/** Says the labels of choices whose label is not their value. */
function choices(pairs: [value: string, label: string][]): string | undefined {
  const told = pairs.filter(([v, l]) => l && l.trim() !== v).map(([v, l]) => `${JSON.stringify(v)} (${l.trim()})`);
  return told.length ? `One of: ${told.join(", ")}` : undefined;
}

function unique(values: string[]): string[] {
  return [...new Set(values)];
}

function attr(controls: FormControl[], name: string): string | undefined {
  for (const c of controls) {
    const v = c.getAttribute(name)?.trim();
    if (v) return v;
  }
  return undefined;
}

/** A control's label text, whitespace collapsed. */
export function labelOf(el: FormControl): string {
  const label = el.labels?.[0];
  if (!label) return "";
  // The label's text without the text of the control itself (a <select>'s options).
  const copy = label.cloneNode(true) as HTMLElement;
  copy.querySelectorAll("select, textarea, input").forEach((n) => n.remove());
  return (copy.textContent ?? "").replace(/\s+/g, " ").trim();
}

/** A group's label: a radio or checkbox group's fieldset legend, else its one control's label. */
function labelOfGroup(p: Param): string {
  const first = p.controls[0]!;
  const grouped = first instanceof HTMLInputElement && (first.type === "radio" || (first.type === "checkbox" && p.controls.length > 1));
  if (grouped) {
    const legend = first.closest("fieldset")?.querySelector("legend")?.textContent;
    return legend ? legend.replace(/\s+/g, " ").trim() : "";
  }
  return labelOf(first);
}
