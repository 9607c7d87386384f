package commands

import "runtime/debug"

// Version is stamped at build time: -ldflags "-X github.com/kaoruisaac/pedelec/commands.Version=v1.2.3".
// Left as "dev", versionString reads what the Go toolchain recorded instead.
var Version = "dev"

// versionString is what --version prints: the stamped version; else the
// module version `go install …@v1.2.3` records; else, for a build from a
// checkout (`go install .`, `go build`), "dev" with the commit it was built
// from and whether the tree had changes, so a bug report names the code.
func versionString() string {
	if Version != "dev" {
		return Version
	}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return Version
	}
	return fromBuildInfo(info)
}

func fromBuildInfo(info *debug.BuildInfo) string {
	if v := info.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	var rev, modified string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			modified = s.Value
		}
	}
	if rev == "" {
		return "dev"
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	out := "dev (commit " + rev
	if modified == "true" {
		out += ", with uncommitted changes"
	}
	return out + ")"
}
