// What the Quick Start leaves to the application (compat.html defines
// them), so `npm --prefix sdk run typecheck` can compile the docs' code
// as it is against our SDK's types.
declare function renderAssistantMessage(text: string): void;
declare function renderSessionStatus(status: string): void;
declare function setComposerDisabled(disabled: boolean): void;
declare function renderError(message: string): void;
interface Window {
  quickStartDone?: boolean;
}
