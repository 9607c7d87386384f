package wire

// Exit statuses of the pedelec CLI, decided here and nowhere else. They
// sit beside the error codes because they are the same kind of contract:
// an agent reads `tool-call`'s status as it reads the code in its JSON
// (75 says retry). ExitStatuses says what each means; docs/errors.md's
// table is generated from it (go generate ./runtime/wire).
const (
	ExitOK               = 0
	ExitFailed           = 1
	ExitUsage            = 2
	ExitPending          = 3   // TOOL_CALL_PENDING: wait with details.next (issue 26)
	ExitCoreUnreachable  = 75  // sysexits' EX_TEMPFAIL: docs/decisions.md
	ExitCoreNotAuthentic = 76  // sysexits' EX_PROTOCOL: what answered is not this Core
	ExitInterrupted      = 130 // 128 + SIGINT, as a shell reports a Ctrl-C
	ExitTerminated       = 143 // 128 + SIGTERM
)

// ExitStatus documents one exit status of the CLI.
type ExitStatus struct {
	Status  int
	Meaning string // Markdown, one line
}

// ExitStatuses lists every status the CLI exits with.
var ExitStatuses = []ExitStatus{
	{ExitOK, "success; for `tool-call`, any result the app returned, its own domain errors included"},
	{ExitFailed, "the thing checked or called failed: an invalid manifest, a Pedelec error (the JSON on stdout has its code), a call the page refused (`TOOL_REFUSED`: `details.retryable` says whether the same call may succeed later)"},
	{ExitUsage, "a usage error or unreadable input (bad flags, arguments that are not JSON, no session environment); fix the command line, do not retry it as it is"},
	{ExitPending, "`tool-call` only: the call is still running in Core (`TOOL_CALL_PENDING`); run the command in `details.next` (`pedelec tool-call --wait <handle>`) to wait for its result"},
	{ExitCoreUnreachable, "`tool-call`/`tool-spec` could not reach Core (`CORE_UNREACHABLE`: connection refused, cut or timed out): Core is down or restarting; retry the same command in a few seconds"},
	{ExitCoreNotAuthentic, "what answers at Core's address could not prove it is the Core of this state directory (`CORE_NOT_AUTHENTIC`): nothing secret was sent; do not retry blindly, start the real Core or find who holds its port"},
	{ExitInterrupted, "interrupted by SIGINT (Ctrl-C); a `tool-call` cut off this way prints `TOOL_CALL_CANCELLED` and Core settles the call `cancelled`; `serve` stops as for SIGTERM"},
	{ExitTerminated, "stopped by SIGTERM: `serve` after its orderly stop (sessions kept for the restart), `tool-call` as for SIGINT"},
}
