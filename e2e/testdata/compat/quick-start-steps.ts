// The original Pedelec's Quick Start (getting-started/quick-start.mdx,
// v0.1.23), steps 1 to 6 in order, each code block exactly as the page
// shows it. The functions it leaves to the application (render..., set...)
// are the page's own, defined in compat.html. The import is the original's
// too: the page's import map points "@kaoruisaac/pedelec" at our SDK.

// ---- step 1 ----
import {
  Pedelec,
  type PedelecError,
  type PedelecSession,
} from "@kaoruisaac/pedelec";

const pedelec = new Pedelec();

// ---- step 2 ----
const approval = await pedelec.getApprovalStatus();

if (!approval.installed) {
  throw new Error("Install or enable the Pedelec Chrome Extension.");
}

const providers = await pedelec.listProviders();
const provider = providers.find((item) => item.available);

if (!provider) {
  throw new Error("Pedelec Desktop could not start or connect; open it manually or repair installation, then configure a provider.");
}

// ---- step 3 ----
const session = await pedelec.createSession({
  provider: provider.code,
});

// ---- step 4 ----
let assistantText = "";

const unsubscribeChat = session.onChat((delta, ctx) => {
  assistantText += delta;
  renderAssistantMessage(assistantText);
  console.debug("turn", ctx.turnId, "received", delta.length, "characters");
});

const unsubscribeStatus = session.onStatus((status, ctx) => {
  renderSessionStatus(status);
  setComposerDisabled(status !== "idle");
  console.debug(ctx.previousStatus, "→", status, ctx.source);
});

const unsubscribeError = session.onError((error, ctx) => {
  renderError(`${error.code}: ${error.message}`);
  console.error(ctx.type, error.details);
});

const unsubscribeEnded = session.onEnded(() => {
  setComposerDisabled(true);
});

// ---- step 5 ----
try {
  assistantText = "";
  setComposerDisabled(true);

  await session.sendText("Explain what this application can do.");

  console.log("The agent turn is complete.");
} catch (error) {
  const pedelecError = error as PedelecError;
  renderError(`${pedelecError.code}: ${pedelecError.message}`);
} finally {
  if (session.getStatus() === "idle") {
    setComposerDisabled(false);
  }
}

// ---- step 6 ----
await session.end();

unsubscribeChat();
unsubscribeStatus();
unsubscribeError();
unsubscribeEnded();

window.quickStartDone = true;
