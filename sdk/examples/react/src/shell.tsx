// What every page of the example shares: the provider with one session
// that follows the tab from page to page, and the chat panel.
import { StrictMode, useRef, version, type ReactNode } from "react";
import { createRoot } from "react-dom/client";
import { installModelContext } from "@kaoruisaac/pedelec";
import { PedelecProvider, useChat, useSession } from "@kaoruisaac/pedelec/react";

// Before any WebMCP hook registers a tool: document.modelContext for
// browsers that have none, observed by Pedelec where they have one.
installModelContext();

// Where Core is and which agent runs: ?core=…&provider=… on the first
// page, remembered for the tab's next pages.
function setting(name: string, fallback: string): string {
  const v = new URLSearchParams(location.search).get(name) ?? sessionStorage.getItem("example." + name) ?? fallback;
  sessionStorage.setItem("example." + name, v);
  return v;
}
const core = setting("core", "http://127.0.0.1:7077");
const provider = setting("provider", "script");

const guidance = "A small shop. Use the page's tools; each page has its own.";

export function mount(page: ReactNode) {
  createRoot(document.getElementById("root")!).render(
    <StrictMode>
      <PedelecProvider options={{ url: core }} session={{ provider, followPage: true, webmcp: true, skills: { guidance, tools: [] } }}>
        {page}
        <ChatPanel />
      </PedelecProvider>
    </StrictMode>,
  );
}

function ChatPanel() {
  const { session } = useSession();
  const { messages, status, error, sending, send } = useChat();
  const prompt = useRef<HTMLTextAreaElement>(null);
  return (
    <section>
      <p>
        React <code id="react-version">{version}</code> · Session <code id="session-id">{session?.sessionId ?? ""}</code> · status <code id="status">{status}</code>
        {sending ? " · sending" : ""}
      </p>
      <pre id="chat">{messages.map((m) => `${m.role}: ${m.text}`).join("\n")}</pre>
      {error ? <p id="error">{error.code}: {error.message}</p> : null}
      <form
        onSubmit={(e) => {
          e.preventDefault();
          const text = prompt.current?.value ?? "";
          send(text).catch(() => {}); // shown in `error`
        }}
      >
        <textarea id="prompt" ref={prompt} rows={4} cols={60} />
        <button id="send" type="submit" disabled={!session || sending}>Send</button>
      </form>
    </section>
  );
}
