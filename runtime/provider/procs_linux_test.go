//go:build linux

package provider

import (
	"os"
	"os/exec"
	"slices"
	"strconv"
	"testing"
	"time"
)

// The one /proc scan finds a process by an exact environment entry (the
// turn's sweep) or by its thread id (the start-up stop), never this
// process, and no longer once it is a zombie.
func TestEnvProcessesFiltersOfSweepAndLeftovers(t *testing.T) {
	id := "procs-test-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	tag := "PEDELEC_THREAD_ID=" + id
	cmd := exec.Command("sleep", "300")
	cmd.Env = append(os.Environ(), tag)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	pid := cmd.Process.Pid

	if got := taggedPIDs(tag); !slices.Equal(got, []int{pid}) {
		t.Errorf("taggedPIDs(%q) = %v, want [%d]", tag, got, pid)
	}
	if got := taggedPIDs(tag + "x"); len(got) != 0 {
		t.Errorf("a longer value matched: %v", got)
	}
	if got := leftoverPIDs(map[string]bool{id: true, "other": true}); !slices.Equal(got, []int{pid}) {
		t.Errorf("leftoverPIDs = %v, want [%d]", got, pid)
	}
	if got := leftoverPIDs(map[string]bool{id[:len(id)-1]: true}); len(got) != 0 {
		t.Errorf("a prefix of the id matched: %v", got)
	}
	if got := CountTagged("PEDELEC_THREAD_ID="); got != 0 {
		t.Errorf("an empty id matched %d processes", got)
	}

	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for len(taggedPIDs(tag)) > 0 { // a zombie until Wait: not live
		if time.Now().After(deadline) {
			t.Fatal("a killed, unreaped process is still listed")
		}
		time.Sleep(20 * time.Millisecond)
	}
	cmd.Wait()
}
