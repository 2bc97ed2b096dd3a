package ordering

import (
	"io"
	"testing"
	"testing/fstest"
)

// FuzzInventory feeds arbitrary bytes as a manifest file next to an
// app-of-apps: building, checking and rendering may fail, never panic.
func FuzzInventory(f *testing.F) {
	f.Add([]byte(listAppSet))
	m, cfg, ocfg := loadRepo(f, "testdata/repo")
	for _, name := range []string{"argocd/qa/appset-api.yaml", "argocd/qa/app-shared.yaml"} {
		f.Add(m[name].Data)
	}
	root := m["argocd/qa/app-root.yaml"].Data
	f.Fuzz(func(t *testing.T, data []byte) {
		fsys := fstest.MapFS{
			"argocd/qa/app-root.yaml":            {Data: root},
			"argocd/qa/m.yaml":                   {Data: data},
			"envs/qa/nodes/node-a/values.yaml":   {Data: []byte("{}")},
			"envs/qa/nodes/node-b/values.yaml":   {Data: data},
			"argocd/prod/m.yaml":                 {Data: data},
			"envs/prod/nodes/node-a/values.yaml": {Data: []byte("{}")},
		}
		inv, err := Build(fsys, cfg)
		if err != nil {
			return
		}
		_ = Check(inv, ocfg)
		if err := Markdown(io.Discard, inv); err != nil {
			t.Fatal(err)
		}
	})
}
