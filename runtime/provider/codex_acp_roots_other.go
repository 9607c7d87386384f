//go:build !unix

package provider

// fileID: no cache where Codex takes its roots from the system's store.
type fileID struct{}

func fileIDOf(string) (fileID, bool) { return fileID{}, false }
