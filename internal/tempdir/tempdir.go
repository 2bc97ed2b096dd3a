// Package tempdir makes the temporary directories libraries and tools
// cannot be told about: the process's own TMPDIR, and directories short
// enough for a Unix socket.
package tempdir

import "os"

// Private points TMPDIR at a new directory inside the one TMPDIR names
// and returns what removes it and puts TMPDIR back. Libraries that leave
// temporary files behind then leave them where the process's end removes
// them: kustomize's Helm generator makes its directory when configured
// and removes it only when it generates, so a build that fails in between
// (a file the load restrictor refuses, beside helmCharts) would leave an
// empty kustomize-helm-* directory per chart in the machine's temporary
// directory. The processes started afterwards (helm, the jsonnet
// evaluator) inherit it.
func Private(prefix string) (remove func(), err error) {
	dir, err := os.MkdirTemp("", prefix)
	if err != nil {
		return func() {}, err
	}
	old, had := os.LookupEnv("TMPDIR")
	if err := os.Setenv("TMPDIR", dir); err != nil {
		os.Remove(dir)
		return func() {}, err
	}
	return func() {
		if had {
			os.Setenv("TMPDIR", old)
		} else {
			os.Unsetenv("TMPDIR")
		}
		os.RemoveAll(dir)
	}, nil
}
