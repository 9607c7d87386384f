package session

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"

	"github.com/kaoruisaac/pedelec/runtime/persist"
	"github.com/kaoruisaac/pedelec/runtime/wire"
	"github.com/kaoruisaac/pedelec/schema"
)

// A session's tools can change while it lives (issue 24: WebMCP pages
// register and unregister tools at any time). The list is one immutable
// toolSet swapped whole, so a call, tool-spec or MCP snapshot reads one
// consistent list without s.mu, and a call already running keeps the
// definition it started with.
type toolSet struct {
	skills schema.Skills
	reg    *schema.Registry
}

// tools is the registry in force now.
func (s *Session) tools() *schema.Registry { return s.toolset.Load().reg }

// Tools is the registry in force now.
func (s *Session) Tools() *schema.Registry { return s.tools() }

// skills is the guidance and tool definitions in force now.
func (s *Session) skills() schema.Skills { return s.toolset.Load().skills }

// Skills is the guidance and tool definitions in force now.
func (s *Session) Skills() schema.Skills { return s.skills() }

// UpdateTools checks the new list as create_session checks skills (limits,
// then every rule, the session's guidance kept), swaps it in, saves it for
// a restart, and tells MCP clients. From its answer on, a call of a removed
// tool is TOOL_NOT_FOUND and an added one is callable.
func (s *Session) UpdateTools(rawTools json.RawMessage) (*wire.UpdateToolsResult, error) {
	// The guidance is create_session's: update_tools never changes it.
	guidance, _ := json.Marshal(s.skills().Guidance)
	raw := make(json.RawMessage, 0, len(rawTools)+len(guidance)+24)
	raw = append(append(append(append(raw, `{"guidance":`...), guidance...), `,"tools":`...), rawTools...)
	raw = append(raw, '}')
	if err := s.table.cfg.Limits.CheckSkillLimits(raw); err != nil {
		return nil, toolsPaths(err)
	}
	skills, problems := schema.ValidateSkills(raw)
	if len(problems) > 0 {
		for i := range problems {
			problems[i].Path = strings.TrimPrefix(problems[i].Path, "skills.")
		}
		return nil, schema.InvalidInput(problems)
	}
	reg, err := schema.NewRegistry(skills)
	if err != nil {
		return nil, wire.Errorf(wire.CodeInvalidInput, "compile tool schemas: %w", err)
	}
	s.mu.Lock()
	if s.ended {
		s.mu.Unlock()
		return nil, wire.Errorf(wire.CodeSessionEnded, "session %s has ended", s.id)
	}
	// Swaps happen under s.mu, so the diff is against the list this one replaces.
	res := diffTools(s.toolset.Load().skills.Tools, skills.Tools)
	res.Tools = reg.Names()
	s.toolset.Store(&toolSet{skills: skills, reg: reg})
	s.notes.ToolsChanged()
	if !s.frozen {
		rec := s.recordLocked()
		rec.Skills = raw
		s.table.persist.Put(persist.Op{Put: rec})
	}
	s.mu.Unlock()
	s.table.console.Bump()
	s.table.host.SessionChanged(s)
	s.table.host.ToolsChanged(s) // the session's own endpoint (an ACP agent's)
	s.restartAgentForTools()
	s.log.Info("tools updated", "tools", len(skills.Tools), "added", res.Added, "removed", res.Removed, "changed", res.Changed)
	return res, nil
}

// toolsPaths names update_tools' own field in a limit error's path.
func toolsPaths(err error) error {
	if werr := wire.AsError(err); werr != nil {
		if d, ok := werr.Details.(map[string]any); ok {
			if p, ok := d["path"].(string); ok {
				d["path"] = strings.TrimPrefix(p, "skills.")
			}
		}
		werr.Message = strings.ReplaceAll(werr.Message, "skills declare", "the tools list has")
		return werr
	}
	return err
}

// diffTools names the tools added, removed and redefined between two lists.
func diffTools(before, after []schema.Tool) *wire.UpdateToolsResult {
	res := &wire.UpdateToolsResult{Added: []string{}, Removed: []string{}, Changed: []string{}}
	was := make(map[string]schema.Tool, len(before))
	for _, t := range before {
		was[t.Name] = t
	}
	for _, t := range after {
		prev, ok := was[t.Name]
		switch {
		case !ok:
			res.Added = append(res.Added, t.Name)
		case !sameTool(prev, t):
			res.Changed = append(res.Changed, t.Name)
		}
		delete(was, t.Name)
	}
	for _, t := range before {
		if _, gone := was[t.Name]; gone {
			res.Removed = append(res.Removed, t.Name)
		}
	}
	return res
}

func sameTool(a, b schema.Tool) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return bytes.Equal(ja, jb)
}

// toolChangesLocked is what the agent has not been told yet: the tools
// added (or redefined) and removed since the prompt it last got, and
// records that it is being told now.
func (s *Session) toolChangesLocked(now []schema.Tool) (added []schema.Tool, removed []string) {
	told := s.toldTools
	names := make([]string, len(now))
	for i, t := range now {
		names[i] = t.Name
		if !slices.Contains(told, t.Name) {
			added = append(added, t)
		}
	}
	for _, name := range told {
		if !slices.Contains(names, name) {
			removed = append(removed, name)
		}
	}
	s.toldTools = names
	return added, removed
}
