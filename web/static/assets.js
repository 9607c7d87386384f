// The Files panel: the session's shared assets/ directory. The user uploads
// a file for the agent, sees every file there (the agent's too, newest
// first) and opens one, all through the SDK's uploadAsset, listAssets and
// readAsset.

const $ = (id) => document.getElementById(id);

let currentSession = () => null;
let openURL = null; // the object URL of the file on show, revoked on the next

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

/** Opens one asset: text shown inline, images as images, anything else as a download. */
async function show(asset) {
  const session = currentSession();
  const view = $("asset-view");
  if (!session) return;
  try {
    const file = await session.readAsset(asset.path, "file");
    if (openURL) URL.revokeObjectURL(openURL);
    openURL = null;
    const title = document.createElement("p");
    title.className = "asset-title";
    title.textContent = `${file.name} · ${file.type} · ${size(file.size)} · modified ${new Date(file.lastModified).toLocaleString()}`;
    let body;
    if (TEXT_LIKE.test(file.type) && file.size <= 256 * 1024 && !file.type.startsWith("image/")) {
      body = document.createElement("pre");
      body.id = "asset-text";
      body.textContent = await file.text();
    } else if (file.type.startsWith("image/")) {
      openURL = URL.createObjectURL(file);
      body = document.createElement("img");
      body.src = openURL;
      body.alt = file.name;
    } else {
      openURL = URL.createObjectURL(file);
      body = document.createElement("a");
      body.href = openURL;
      body.download = file.name;
      body.textContent = `Download ${file.name}`;
    }
    view.replaceChildren(title, body);
    view.hidden = false;
  } catch (err) {
    note(`${err.code}: ${err.message}`, "error-text");
  }
}
