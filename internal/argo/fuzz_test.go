package argo

import (
	"testing"
	"testing/fstest"
)

// FuzzDiscover feeds arbitrary bytes as a manifest file: discovery may
// fail, but must never panic.
func FuzzDiscover(f *testing.F) {
	f.Add([]byte(app("x", "  source: {repoURL: r, chart: c, helm: {valuesObject: {a: 1}}}\n")))
	f.Add([]byte(appSet("  goTemplate: true", gitDirs("envs/*/nodes/*"), `'{{.path.basename}}'`, "")))
	cfg := testConfig(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		m := fstest.MapFS{
			"argocd/qa/m.yaml":            {Data: data},
			"envs/qa/nodes/a/values.yaml": {Data: []byte("{}")},
			"envs/qa/n.yaml":              {Data: data},
		}
		apps, err := Discover(m, cfg, "qa")
		if err != nil {
			return
		}
		for _, a := range apps {
			for _, s := range a.Sources {
				_, _ = a.ValueFiles(s, cfg.RepoURL, BuildEnv{}, cfg.Argo.ValuesFileSchemes())
			}
			_, _ = a.InputsKey(m, cfg.RepoURL, "rev")
		}
	})
}
