// The pages of a trip that one session follows (createSession({followPage:
// true, webmcp: true})): each page declares its own WebMCP tools, forms
// and registerTool alike, and answers the call that brought it here, if
// it knows what to say. The chat of every page is kept in the tab's
// sessionStorage, so the last page shows the whole turn.
//
// follow(sdk, {tools, defined, answer, manual}): tools are registerTool
// definitions, defined the session's own (defineTool); answer(call)
// answers the call the previous page was running (onNavigatedCall);
// manual waits for window.start(). window.pageChat is what this page
// itself got of the chat.

export async function follow(sdk, { tools = [], defined = [], answer, manual = false } = {}) {
  for (const t of tools) document.modelContext.registerTool(t);
  const params = new URLSearchParams(location.search);
  if (params.get("provider")) sessionStorage.setItem("test.provider", params.get("provider"));
  const start = async () => {
    try {
      const pedelec = new sdk.Pedelec();
      const session = await pedelec.createSession({ provider: sessionStorage.getItem("test.provider") || "script", webmcp: true, followPage: true, skills: { guidance: "", tools: defined } });
      window.session = session;
      window.pageErrors = [];
      session.onError((e) => window.pageErrors.push(e.code + ": " + e.message));
      window.pageChat = "";
      session.onChat((delta) => (window.pageChat += delta));
      session.onChat((delta) => sessionStorage.setItem("test.chat", (sessionStorage.getItem("test.chat") || "") + delta));
      if (answer) sdk.onNavigatedCall(session, answer);
      window.ready = true;
    } catch (e) {
      window.loadError = String(e && e.code ? e.code + ": " + e.message : e);
    }
  };
  window.chat = () => sessionStorage.getItem("test.chat") || "";
  window.start = start;
  if (manual) window.ready = true;
  else await start();
}
