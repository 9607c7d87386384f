// The original Pedelec's Quick Start "Complete example"
// (getting-started/quick-start.mdx, v0.1.23), exactly as the page shows it.

import {
  Pedelec,
  type PedelecError,
  type PedelecSession,
} from "@kaoruisaac/pedelec";

let activeSession: PedelecSession | null = null;
let disposeSessionHandlers: (() => void) | null = null;

export async function connectAndRun(prompt: string) {
  const pedelec = new Pedelec();

  const approval = await pedelec.getApprovalStatus();
  if (!approval.installed) {
    throw new Error("Pedelec extension is unavailable.");
  }

  const providers = await pedelec.listProviders();
  const provider = providers.find((item) => item.available);
  if (!provider) {
    throw new Error("No provider is available.");
  }

  const session = await pedelec.createSession({
    provider: provider.code,
  });
  activeSession = session;

  let text = "";
  const offChat = session.onChat((delta) => {
    text += delta;
    document.querySelector("#answer")!.textContent = text;
  });
  const offStatus = session.onStatus((status) => {
    document.querySelector("#status")!.textContent = status;
  });
  const offError = session.onError((error) => {
    document.querySelector("#error")!.textContent =
      `${error.code}: ${error.message}`;
  });
  const offEnded = session.onEnded(() => {
    document.querySelector("#status")!.textContent = "ended";
  });

  disposeSessionHandlers = () => {
    offChat();
    offStatus();
    offError();
    offEnded();
  };

  try {
    await session.sendText(prompt);
  } catch (error) {
    const value = error as PedelecError;
    console.error(value.code, value.message, value.details);
    throw error;
  }
}

export async function disconnect() {
  const session = activeSession;
  activeSession = null;

  try {
    await session?.end();
  } finally {
    disposeSessionHandlers?.();
    disposeSessionHandlers = null;
  }
}

// The test drives these two.
Object.assign(window, { connectAndRun, disconnect });
