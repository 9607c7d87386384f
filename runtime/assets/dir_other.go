//go:build !unix

package assets

import "io/fs"

// OpenNonBlock: opening a named pipe does not block here.
const OpenNonBlock = 0

// linkCount: FileInfo carries no link count here, so hard links are not
// told apart from plain files (docs/security.md, "Session assets").
func linkCount(fs.FileInfo) uint64 { return 1 }
