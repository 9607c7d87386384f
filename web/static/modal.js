// The interactive confirm_action tool's modal. It resolves exactly once:
// on Confirm, on Cancel (button or Escape), when the call's signal aborts
// (the deadline passed, Core settled the call, the session ended), or when
// the page is closing. The agent always learns which one happened.

const $ = (id) => document.getElementById(id);

let current = null;

/**
 * Opens the modal and resolves with {confirmed, reason}. reason is
 * "confirmed", "cancelled", "timeout", "settled" or "page_closed".
 */
export function askUser({ title, message, confirmLabel, deadline, signal }) {
  if (current) current.finish(false, "superseded");
  const dialog = $("confirm-dialog");
  $("confirm-title").textContent = title;
  $("confirm-message").textContent = message ?? "";
  $("confirm-ok").textContent = confirmLabel || "Confirm";

  return new Promise((resolve) => {
    const countdown = setInterval(tick, 250);
    const onClose = () => finish(dialog.returnValue === "confirm", dialog.returnValue === "confirm" ? "confirmed" : "cancelled");
    const onAbort = () => finish(false, signal.reason?.code === "TOOL_TIMEOUT" ? "timeout" : "settled");
    // Answer before the page goes away: the SDK submits the result while
    // the socket is still open.
    const onPageHide = () => finish(false, "page_closed");

    function tick() {
      const left = Math.max(0, Math.ceil((deadline - Date.now()) / 1000));
      $("confirm-countdown").textContent = `${left}s`;
    }
    function finish(confirmed, reason) {
      if (current?.finish !== finish) return;
      current = null;
      clearInterval(countdown);
      dialog.removeEventListener("close", onClose);
      signal.removeEventListener("abort", onAbort);
      window.removeEventListener("pagehide", onPageHide);
      window.removeEventListener("beforeunload", onPageHide);
      if (dialog.open) dialog.close(confirmed ? "confirm" : "cancel");
      resolve({ confirmed, reason });
    }

    current = { finish };
    tick();
    dialog.returnValue = "";
    dialog.addEventListener("close", onClose);
    signal.addEventListener("abort", onAbort);
    window.addEventListener("pagehide", onPageHide);
    window.addEventListener("beforeunload", onPageHide);
    if (signal.aborted) return onAbort();
    dialog.showModal();
    $("confirm-ok").focus();
  });
}
