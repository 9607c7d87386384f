package runtime

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/kaoruisaac/pedelec/prompt"
	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// workDirs are one session's private directories under the state dir:
//
//	sessions/<id>/work  the provider's working directory
//	sessions/<id>/work/assets  the files the page and the agent share (assets.go)
//	sessions/<id>/bin   pedelec and pedelec-cli, first on the provider's PATH
type workDirs struct {
	root, work, bin string
}

func makeWorkDirs(stateDir, sessionID, executable string) (workDirs, error) {
	root := filepath.Join(stateDir, "sessions", sessionID)
	d := workDirs{root: root, work: filepath.Join(root, "work"), bin: filepath.Join(root, "bin")}
	for _, dir := range []string{filepath.Join(d.work, assetsDirName), d.bin} {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return d, err
		}
	}
	// Links, not copies: the agent runs exactly the binary serving it. The
	// binary looks at the name it was invoked under, so pedelec-cli works.
	for _, name := range []string{"pedelec", prompt.CLI} {
		if err := linkExecutable(executable, filepath.Join(d.bin, name)); err != nil {
			os.RemoveAll(root)
			return d, err
		}
	}
	return d, nil
}

func linkExecutable(target, link string) error {
	if err := os.Symlink(target, link); err == nil {
		return nil
	}
	// Some file systems (and Windows without privileges) refuse symlinks.
	data, err := os.ReadFile(target)
	if err != nil {
		return err
	}
	return os.WriteFile(link, data, 0o700)
}

// env is a provider process's environment: the user's own, minus any
// Pedelec variables inherited from elsewhere, plus this session's.
func (d workDirs) env(coreURL, sessionID, secret string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "PEDELEC_") || strings.HasPrefix(kv, "PATH=") {
			continue
		}
		env = append(env, kv)
	}
	path := d.bin
	if p := os.Getenv("PATH"); p != "" {
		path += string(os.PathListSeparator) + p
	}
	return append(env,
		"PATH="+path,
		wire.EnvThreadID+"="+sessionID,
		wire.EnvCoreURL+"="+coreURL,
		wire.EnvSecret+"="+secret,
	)
}
