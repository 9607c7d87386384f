//go:build !linux

package commands

import "os"

// mapManifest maps only on Linux (MAP_POPULATE); elsewhere the file is read.
func mapManifest(*os.File, int64) ([]byte, func(), bool) { return nil, nil, false }
