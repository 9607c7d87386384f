package secretfile

import (
	"os"
	"path/filepath"
	"testing"
)

// A link planted at a secret's name or at its temporary name is never
// written through: the target keeps its content and its owner, and the
// secret ends up in a regular 0600 file of the directory. Run as root this
// is the case that mattered: a link to a system file overwrote it.
func TestWriteNeverFollowsPlantedLinks(t *testing.T) {
	dir, outside := t.TempDir(), t.TempDir()
	for _, plant := range []string{"core-token", "core-token.tmp"} {
		t.Run(plant, func(t *testing.T) {
			victim := filepath.Join(outside, plant+"-victim")
			if err := os.WriteFile(victim, []byte("system file\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			link := filepath.Join(dir, plant)
			os.Remove(link)
			if err := os.Symlink(victim, link); err != nil {
				t.Fatal(err)
			}
			if err := Write(dir, "core-token", []byte("pt_secret\n")); err != nil {
				t.Fatal(err)
			}
			if got, _ := os.ReadFile(victim); string(got) != "system file\n" {
				t.Fatalf("the link's target was written: %q", got)
			}
			info, err := os.Lstat(filepath.Join(dir, "core-token"))
			if err != nil || !info.Mode().IsRegular() || info.Mode().Perm() != Mode {
				t.Fatalf("core-token: %v %v, want a regular file of mode %v", info.Mode(), err, Mode)
			}
			if data, err := Read(dir, "core-token"); err != nil || string(data) != "pt_secret\n" {
				t.Fatalf("Read = %q, %v", data, err)
			}
			if _, err := os.Lstat(filepath.Join(dir, "core-token.tmp")); !os.IsNotExist(err) {
				t.Fatalf("the temporary name is left: %v", err)
			}
		})
	}
}

// Create makes a file once; a link at its name counts as taken (and is not
// followed), a link at its temporary name is replaced.
func TestCreateOnceNeverThroughLinks(t *testing.T) {
	dir, outside := t.TempDir(), t.TempDir()
	victim := filepath.Join(outside, "victim")
	os.WriteFile(victim, []byte("x"), 0o644)
	os.Symlink(victim, filepath.Join(dir, "core-key.new"))
	wrote, err := Create(dir, "core-key", []byte("key1"))
	if err != nil || !wrote {
		t.Fatalf("Create = %v, %v", wrote, err)
	}
	if wrote, err := Create(dir, "core-key", []byte("key2")); err != nil || wrote {
		t.Fatalf("second Create = %v, %v; want the first kept", wrote, err)
	}
	if data, _ := Read(dir, "core-key"); string(data) != "key1" {
		t.Fatalf("core-key = %q", data)
	}
	os.Remove(filepath.Join(dir, "core-key"))
	os.Symlink(victim, filepath.Join(dir, "core-key"))
	if wrote, err := Create(dir, "core-key", []byte("key3")); wrote || err != nil {
		t.Fatalf("Create over a link = %v, %v; want it left alone", wrote, err)
	}
	if got, _ := os.ReadFile(victim); string(got) != "x" {
		t.Fatalf("victim written: %q", got)
	}
	if _, err := Read(dir, "core-key"); err == nil {
		t.Fatal("Read followed a link")
	}
}

func TestRemoveOnlyOwnSecret(t *testing.T) {
	dir := t.TempDir()
	Write(dir, "approver-token", []byte("pa_other\n"))
	Remove(dir, "approver-token", func(b []byte) bool { return string(b) == "pa_mine\n" })
	if _, err := os.Stat(filepath.Join(dir, "approver-token")); err != nil {
		t.Fatal("removed another Core's token")
	}
	Remove(dir, "approver-token", func(b []byte) bool { return string(b) == "pa_other\n" })
	if _, err := os.Stat(filepath.Join(dir, "approver-token")); !os.IsNotExist(err) {
		t.Fatal("own token not removed")
	}
}
