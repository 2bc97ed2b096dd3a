package main

import "os"

// privateTempDir points TMPDIR at a directory of this run's own, inside
// the one TMPDIR named, and returns what removes it. Libraries that leave
// temporary files behind leave them there, and the run's end removes
// them: kustomize's Helm generator makes its directory when configured
// and removes it only when it generates, so a build that fails in between
// (a file the load restrictor refuses, beside helmCharts) would leave an
// empty kustomize-helm-* directory in the machine's temporary directory
// per chart. The helm and jsonnet processes the run starts inherit it.
func privateTempDir() (remove func(), err error) {
	dir, err := os.MkdirTemp("", "manifestdiff-")
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
