// The Files panel: the session's shared assets/ directory. The user uploads
// a file for the agent, sees every file there (the agent's too, newest
// first) and opens one, all through the SDK's uploadAsset, listAssets and
// readAsset.
//
// Nothing an agent wrote ever runs on this page's origin, which is Core's
// (the console and the approvals API live there): a file is never given a
// blob: or data: URL a browser could open as a document. Text is shown as
// text; a raster image is decoded to pixels on a canvas (an SVG, which can
// hold script, is shown as its source); anything else is saved as
// application/octet-stream, which a browser downloads and never renders.

const $ = (id) => document.getElementById(id);

let currentSession = () => null;

/** Wires the panel; getSession returns the live session or null. */
export function mountAssets(getSession) {
  currentSession = getSession;
  $("asset-form").addEventListener("submit", (e) => {
    e.preventDefault();
    void upload();
  });
  $("asset-refresh").addEventListener("click", () => void refreshAssets());
}

function note(text, kind = "") {
  const el = $("asset-note");
  el.textContent = text;
  el.className = `hint ${kind}`;
}

async function upload() {
  const session = currentSession();
  const input = $("asset-file");
  const file = input.files?.[0];
  if (!session || !file) return note(session ? "Choose a file first." : "No session yet.", "error-text");
  $("asset-upload").disabled = true;
  note(`Uploading ${file.name}…`);
  try {
    const path = await session.uploadAsset(file);
    note(`Uploaded ${path}. The agent finds it at assets${path}.`);
    input.value = "";
  } catch (err) {
    note(`${err.code}: ${err.message}`, "error-text");
  } finally {
    $("asset-upload").disabled = false;
  }
  await refreshAssets();
}

/** Lists the session's assets again (after an upload, a turn, or on demand). */
export async function refreshAssets() {
  const list = $("asset-list");
  const session = currentSession();
  if (!session) {
    list.replaceChildren(emptyItem("No session."));
    return;
  }
  let assets;
  try {
    assets = await session.listAssets();
  } catch (err) {
    if (err.code !== "SESSION_ENDED") note(`${err.code}: ${err.message}`, "error-text");
    list.replaceChildren(emptyItem("No files."));
    return;
  }
  if (session !== currentSession()) return;
  list.replaceChildren(...(assets.length ? assets.map(item) : [emptyItem("No files yet: upload one, or ask the agent to write one.")]));
}

function emptyItem(text) {
  const li = document.createElement("li");
  li.className = "empty";
  li.textContent = text;
  return li;
}

function item(asset) {
  const li = document.createElement("li");
  li.dataset.path = asset.path;
  const name = document.createElement("span");
  name.className = "asset-path";
  name.textContent = asset.path;
  const meta = document.createElement("span");
  meta.className = "muted";
  meta.textContent = `${size(asset.sizeBytes)} · ${new Date(asset.modifiedAt).toLocaleTimeString()}`;
  const open = document.createElement("button");
  open.type = "button";
  open.className = "secondary";
  open.textContent = "Open";
  open.setAttribute("aria-label", `Open ${asset.path}`);
  open.addEventListener("click", () => void show(asset));
  li.append(name, meta, open);
  return li;
}

function size(n) {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / 1024 / 1024).toFixed(1)} MiB`;
}

const TEXT_LIKE = /^(text\/|application\/(json|xml|javascript)|image\/svg)/;
const RASTER = /^image\/(png|jpeg|gif|webp|avif|bmp)$/;

/** Opens one asset: text shown inline, raster images as pixels, anything else as a download. */
async function show(asset) {
  const session = currentSession();
  const view = $("asset-view");
  if (!session) return;
  try {
    const file = await session.readAsset(asset.path, "file");
    const title = document.createElement("p");
    title.className = "asset-title";
    title.textContent = `${file.name} · ${file.type} · ${size(file.size)} · modified ${new Date(file.lastModified).toLocaleString()}`;
    let body = null;
    if (TEXT_LIKE.test(file.type) && file.size <= 256 * 1024) {
      body = document.createElement("pre");
      body.id = "asset-text";
      body.textContent = await file.text();
    } else if (RASTER.test(file.type)) {
      body = await pixels(file);
    }
    if (!body) body = download(file);
    view.replaceChildren(title, body);
    view.hidden = false;
  } catch (err) {
    note(`${err.code ?? "ASSET_READ_FAILED"}: ${err.message}`, "error-text");
  }
}

// pixels draws a raster image on a canvas: only its pixels reach the page
// (null when the bytes are no image the browser decodes).
async function pixels(file) {
  let bitmap;
  try {
    bitmap = await createImageBitmap(file);
  } catch {
    return null;
  }
  const canvas = document.createElement("canvas");
  canvas.width = bitmap.width;
  canvas.height = bitmap.height;
  canvas.className = "asset-image";
  canvas.setAttribute("role", "img");
  canvas.setAttribute("aria-label", file.name);
  canvas.getContext("2d").drawImage(bitmap, 0, 0);
  bitmap.close();
  return canvas;
}

// download saves the file on a click. The object URL exists only for that
// click and carries application/octet-stream, so opening it anywhere
// downloads it instead of rendering what the agent wrote.
function download(file) {
  const button = document.createElement("button");
  button.type = "button";
  button.className = "secondary";
  button.textContent = `Download ${file.name}`;
  button.addEventListener("click", () => {
    const url = URL.createObjectURL(new Blob([file], { type: "application/octet-stream" }));
    const a = document.createElement("a");
    a.href = url;
    a.download = file.name;
    a.click();
    setTimeout(() => URL.revokeObjectURL(url), 0);
  });
  return button;
}
