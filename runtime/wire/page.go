package wire

import "reflect"

// The page ↔ Core WebSocket protocol, whole: every method a page may call
// with its params and result types, and every event Core sends with its
// payload type. Core's dispatch answers exactly these methods, docs/
// protocol.md describes exactly these, and `go generate ./runtime/wire`
// writes the SDK's typed method map and event union from these tables
// (sdk/src/client/protocol.gen.ts), so the SDK's request is typed by method
// and its events are narrowed by name. A method or an event is added here,
// its types beside its family's (protocol.go, tools_update.go, assets.go,
// approvals.go); a test fails while a Method or Event constant is missing.

// PageMethod is one method of the page WebSocket. Params is what the page
// sends; Result what Core answers with ok:true (struct{} for {}).
type PageMethod struct {
	Name   string
	Params reflect.Type
	Result reflect.Type
}

// PageEvent is one event Core sends a page; Data is its payload's type.
type PageEvent struct {
	Name string
	Data reflect.Type
}

func method[P, R any](name string) PageMethod {
	return PageMethod{Name: name, Params: reflect.TypeFor[P](), Result: reflect.TypeFor[R]()}
}

func event[D any](name string) PageEvent {
	return PageEvent{Name: name, Data: reflect.TypeFor[D]()}
}

// PageMethods is every method a page may call, in docs/protocol.md's order.
var PageMethods = []PageMethod{
	method[struct{}, ListProvidersResult](MethodListProviders),
	method[CreateSessionParams, SessionInfo](MethodCreateSession),
	method[ResumeSessionParams, SessionInfo](MethodResumeSession),
	method[SessionParams, TurnStarted](MethodPrepare),
	method[SendTextParams, TurnStarted](MethodSendText),
	method[SubmitToolResultParams, struct{}](MethodSubmitToolResult),
	method[ToolProgressParams, struct{}](MethodToolProgress),
	method[SessionParams, struct{}](MethodEndSession),
	method[UpdateToolsParams, UpdateToolsResult](MethodUpdateTools),
	method[SessionParams, ListAssetsResult](MethodListAssets),
	method[AssetUploadTicketParams, AssetTicket](MethodAssetUploadTicket),
	method[AssetReadTicketParams, AssetTicket](MethodAssetReadTicket),
	method[struct{}, OriginApprovalStatus](MethodGetApprovalStatus),
	method[struct{}, OriginApprovalStatus](MethodRequestApproval),
	method[struct{}, OriginApprovalStatus](MethodAwaitApproval),
}

// PageEvents is every event Core sends a page, in docs/protocol.md's order.
var PageEvents = []PageEvent{
	event[StatusChangedData](EventStatusChanged),
	event[ChatDeltaData](EventChatDelta),
	event[ToolCallData](EventToolCall),
	event[ToolCallSettledData](EventToolCallSettled),
	event[AgentActivityData](EventAgentActivity),
	event[ErrorData](EventError),
	event[DoneData](EventDone),
	event[EndedData](EventEnded),
	event[EventsTruncatedData](EventEventsTruncated),
}

// LookupPageMethod is the method named name, if a page may call it.
func LookupPageMethod(name string) (PageMethod, bool) {
	for _, m := range PageMethods {
		if m.Name == name {
			return m, true
		}
	}
	return PageMethod{}, false
}
