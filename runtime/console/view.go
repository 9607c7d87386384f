package console

import (
	"encoding/json"
	"strings"

	"github.com/kaoruisaac/pedelec/runtime/persist"
	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// State is what View needs of a session, copied under its lock so the
// events are read without it: logged frames never change.
type State struct {
	// Info holds the fields that are not read from events.
	Info   wire.ConsoleSession
	Events []persist.Event
	Notes  Notes
	// Final is the view a retired session kept (Events and Notes are
	// then empty): Info's Status, Attached and Seq still apply.
	Final *wire.ConsoleSession
	// ThreadID is the id the session's agent knows it by: the command
	// lines the console shows name it, never the session id, since a
	// command that is run stands in every user's `ps`.
	ThreadID string
}

// View is the session as the console shows it and its record downloads.
// An ended session that Core retired keeps the view it had.
func View(st State) wire.ConsoleSession {
	if st.Final != nil {
		v := *st.Final
		v.Status, v.Attached, v.Seq = st.Info.Status, st.Info.Attached, st.Info.Seq
		return v
	}
	return build(st.Info, st.Events, st.Notes, st.ThreadID)
}

// frame is the part of an event frame the console reads.
type frame struct {
	Event  string          `json:"event"`
	Seq    int64           `json:"seq"`
	TurnID string          `json:"turnId"`
	Data   json.RawMessage `json:"data"`
}

// build reads a session's turns and calls from its event log and adds
// what only the notes know: the user's text, results, errors, times.
func build(info wire.ConsoleSession, events []persist.Event, notes Notes, threadID string) wire.ConsoleSession {
	v := info
	v.Turns, v.Calls = []wire.ConsoleTurn{}, []wire.ConsoleCall{}
	if v.Tools == nil {
		v.Tools = []string{}
	}
	if len(events) > 0 && events[0].Seq > 1 {
		v.Truncated = true
	}
	turnAt := map[string]int{}
	callAt := map[string]int{}
	turn := func(id string) *wire.ConsoleTurn {
		if i, ok := turnAt[id]; ok {
			return &v.Turns[i]
		}
		t := wire.ConsoleTurn{ID: id}
		if n, ok := notes.turns[id]; ok {
			t.Text, t.Warmup, t.StartedAt = n.text, n.warmup, n.startedAt.UnixMilli()
		}
		turnAt[id] = len(v.Turns)
		v.Turns = append(v.Turns, t)
		return &v.Turns[len(v.Turns)-1]
	}
	var agent = map[string]*strings.Builder{}
	for _, ev := range events {
		var f frame
		if json.Unmarshal(ev.Frame, &f) != nil {
			continue
		}
		if f.TurnID != "" {
			turn(f.TurnID)
		}
		switch f.Event {
		case wire.EventChatDelta:
			var d wire.ChatDeltaData
			if f.TurnID != "" && json.Unmarshal(f.Data, &d) == nil {
				b := agent[f.TurnID]
				if b == nil {
					b = &strings.Builder{}
					agent[f.TurnID] = b
				}
				b.WriteString(d.Text)
			}
		case wire.EventToolCall:
			var d wire.ToolCallData
			if json.Unmarshal(f.Data, &d) != nil {
				continue
			}
			if _, seen := callAt[d.ToolRequestID]; seen {
				continue // delivered again to a resumed page
			}
			if f.TurnID != "" && d.TurnStartedAt > 0 && turn(f.TurnID).StartedAt == 0 {
				turn(f.TurnID).StartedAt = d.TurnStartedAt
			}
			callAt[d.ToolRequestID] = len(v.Calls)
			thread := threadID
			if thread == "" {
				thread = v.ID
			}
			v.Calls = append(v.Calls, call(thread, f.TurnID, d, notes.calls[d.ToolRequestID]))
		case wire.EventToolCallSettled:
			var d wire.ToolCallSettledData
			if json.Unmarshal(f.Data, &d) != nil {
				continue
			}
			if i, ok := callAt[d.ToolRequestID]; ok {
				v.Calls[i].Status = string(d.Outcome)
			}
		case wire.EventAgentActivity:
			var d wire.AgentActivityData
			if f.TurnID != "" && json.Unmarshal(f.Data, &d) == nil {
				addActivity(turn(f.TurnID), d)
			}
		case wire.EventError:
			var d wire.ErrorData
			if f.TurnID != "" && json.Unmarshal(f.Data, &d) == nil && d.Error != nil {
				turn(f.TurnID).Error = d.Error
			}
		case wire.EventDone:
			var d wire.DoneData
			if f.TurnID != "" && json.Unmarshal(f.Data, &d) == nil {
				t := turn(f.TurnID)
				t.Done, t.OK = true, d.OK
				t.Warmup = t.Warmup || d.Prepare
				if d.Error != nil {
					t.Error = d.Error
				}
			}
		case wire.EventEnded:
			var d wire.EndedData
			if json.Unmarshal(f.Data, &d) == nil {
				v.EndReason = d.Reason
			}
		}
	}
	for id, b := range agent {
		v.Turns[turnAt[id]].Agent = b.String()
	}
	return v
}

// addActivity puts d in t's activity: a step of a call already listed
// replaces it (its latest status; a rejection's reason is kept).
func addActivity(t *wire.ConsoleTurn, d wire.AgentActivityData) {
	for i := range t.Activity {
		if a := &t.Activity[i]; a.ToolCallID == d.ToolCallID {
			if d.Title == "" {
				d.Title = a.Title
			}
			if d.Kind == "" {
				d.Kind = a.Kind
			}
			if d.Reason == "" {
				d.Reason = a.Reason
			}
			if a.Status == wire.ActivityRejected && d.Status == "failed" {
				d.Status = a.Status // failed because Pedelec said no: say that
			}
			*a = d
			return
		}
	}
	if len(t.Activity) < wire.ConsoleActivityMax {
		t.Activity = append(t.Activity, d)
	}
}

// call is one tool_call event with what the notes add.
func call(threadID, turnID string, d wire.ToolCallData, n *callNote) wire.ConsoleCall {
	c := wire.ConsoleCall{
		ID: d.ToolRequestID, TurnID: turnID, Tool: d.Tool, Args: d.Args, Status: "pending",
		StartedAt: d.Deadline - d.TimeoutMs, TimeoutMs: d.TimeoutMs,
		Command: toolCallCommandLine(threadID, d.Tool, d.Args),
	}
	if n == nil {
		return c
	}
	c.StartedAt = n.startedAt.UnixMilli()
	c.ApprovedBy = n.approvedBy
	c.Progress = n.progress
	if !n.settledAt.IsZero() {
		c.Status = string(n.outcome)
		c.SettledAt = n.settledAt.UnixMilli()
		ms := n.settledAt.Sub(n.startedAt).Milliseconds()
		c.DurationMs = &ms
		c.Result, c.ResultTruncated, c.Error = n.result, n.truncated, n.err
	}
	return c
}

// toolCallCommandLine is the `pedelec tool-call` line that repeats a call,
// quoted for a POSIX shell. It names the session with --thread-id and
// carries no secret: it runs where the agent's environment is
// (PEDELEC_CORE_URL and PEDELEC_AGENT_SECRET), while the session runs a
// turn, as the agent's own call did.
func toolCallCommandLine(threadID, tool string, args json.RawMessage) string {
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	return "pedelec tool-call --thread-id " + shellQuote(threadID) + " " + shellQuote(tool) + " " + shellQuote(string(args))
}

// shellQuote quotes s as one POSIX shell word: inside single quotes
// nothing is special but the quote itself, written '\”.
func shellQuote(s string) string {
	safe := s != ""
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("_-.,:/@%+=", r)) {
			safe = false
			break
		}
	}
	if safe {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
