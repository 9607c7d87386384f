package runtime

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"time"

	"github.com/kaoruisaac/pedelec/runtime/console"
	"github.com/kaoruisaac/pedelec/runtime/persist"
	"github.com/kaoruisaac/pedelec/runtime/provider"
	"github.com/kaoruisaac/pedelec/runtime/session"
	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// recover opens the state database and brings back what the last Core left:
// every session that did not end comes back detached (a turn it was running
// is reported cut off), waiting for its page to resume it within the resume
// window. Then it cleans up after a crash: processes an agent of this state
// directory's sessions left running, and work directories of sessions that
// no longer exist.
func (c *Core) recover() error {
	db, err := persist.Open(filepath.Join(c.opts.StateDir, persist.FileName), 2*time.Second)
	if err != nil {
		if errors.Is(err, persist.ErrLocked) {
			return wire.Errorf(wire.CodeInvalidInput, "%v: stop it, or give this one its own --state-dir", err)
		}
		return err
	}
	c.persist = persist.NewWriter(db, c.log)
	if err := c.openBook(db); err != nil {
		c.persist.Close()
		return fmt.Errorf("read approved origins from the state database: %w", err)
	}
	c.history = console.NewHistory(db)
	c.newSessions(c.persist)
	db.Recovered.Log(c.log)
	records, err := db.Sessions()
	if err != nil {
		return fmt.Errorf("read sessions from the state database: %w", err)
	}
	// Oldest first, so mcp sessions get back their order (their tool
	// prefixes' ordinals) and the log reads in creation order.
	sort.SliceStable(records, func(i, j int) bool { return records[i].CreatedAt < records[j].CreatedAt })
	known := map[string]bool{}
	for _, r := range records {
		known[r.ID] = true
	}
	// Leftovers first, so no old agent process races the restored session.
	dirs, _ := os.ReadDir(filepath.Join(c.opts.StateDir, "sessions"))
	dirs = slices.DeleteFunc(dirs, func(d os.DirEntry) bool {
		if d.IsDir() {
			return false
		}
		// Not a work directory Core made (a link, say): removed itself,
		// never followed, before a restored session could build in it.
		path := filepath.Join(c.opts.StateDir, "sessions", d.Name())
		if err := os.Remove(path); err != nil {
			c.log.Warn("remove what is not a work directory from the state directory", "path", path, "err", err)
		}
		return true
	})
	for _, d := range dirs {
		if id := session.WorkDirSessionID(c.opts.StateDir, d.Name()); id != "" {
			known[id] = true
		}
	}
	killed := provider.StopLeftovers(known)
	if killed > 0 {
		c.log.Warn("stopped processes a previous Core's agents left running", "count", killed)
	}
	restored := 0
	for _, r := range records {
		events, err := db.Events(r.ID)
		if err == nil {
			err = c.sessions.Restore(r, events)
			if err == nil {
				restored++
				continue
			}
		}
		c.log.Warn("could not restore a session; it ends", "session", r.ID, "err", err)
		c.persist.Put(persist.Op{Delete: r.ID})
	}
	removed := 0
	for _, d := range dirs {
		id := session.WorkDirSessionID(c.opts.StateDir, d.Name())
		if c.sessions.Has(id) && d.Name() == session.WorkDirName(id) {
			continue
		}
		if err := session.RemoveTree(filepath.Join(c.opts.StateDir, "sessions", d.Name())); err != nil {
			c.log.Warn("remove a stale work directory", "dir", d.Name(), "err", err)
		} else {
			removed++
		}
	}
	if restored > c.opts.Limits.Sessions {
		// Kept, not dropped: they are the user's conversations (say, Core
		// restarted with a lower --max-sessions). They count against the
		// limit, so new sessions are refused until enough of them end.
		c.log.Warn("restored more sessions than --max-sessions allows; new sessions are refused until some end",
			"restored", restored, "limit", c.opts.Limits.Sessions)
	}
	if restored > 0 || removed > 0 {
		c.log.Info("state restored", "sessions", restored, "staleWorkDirs", removed)
	}
	return nil
}
