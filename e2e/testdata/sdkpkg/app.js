// An app that installed the SDK with its package manager (the tarball the
// release ships): its import is the package's, resolved by the page's
// import map to node_modules as a bundler would. It must load and show its
// "unavailable" state while Core is not running, and work once it is.
import { Pedelec } from "@kaoruisaac/pedelec";

const core = new URLSearchParams(location.search).get("core");
const pedelec = new Pedelec({ url: core });
const state = document.getElementById("state");

window.check = async () => {
  const status = await pedelec.getApprovalStatus();
  state.textContent = status.installed ? "Pedelec is ready" : "Pedelec unavailable: start `pedelec serve`";
  return status;
};

window.chat = async (text) => {
  const session = await pedelec.createSession({ provider: "script" });
  let answer = "";
  session.onChat((delta) => (answer += delta));
  await session.sendText(text);
  await session.end();
  return answer;
};

await window.check();
window.ready = true;
