//go:build !unix

package runtime

import "io/fs"

// checkOwnDir: owners and modes are Unix's; elsewhere the directory's ACLs
// are the user's to set.
func checkOwnDir(string, fs.FileInfo) error { return nil }
