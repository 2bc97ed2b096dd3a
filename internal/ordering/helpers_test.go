package ordering

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"

	"go.yaml.in/yaml/v3"

	"github.com/gitops-promote/gitops-promote/internal/config"
)

// splitConfig separates the ordering section from the rest of a
// .promote.yaml, so these tests do not depend on internal/config knowing
// the section (it embeds ordercfg.Config once wired).
func splitConfig(t testing.TB, data []byte) (*config.Config, Config) {
	t.Helper()
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	m := doc.Content[0]
	var ocfg Config
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == "ordering" {
			if err := m.Content[i+1].Decode(&ocfg); err != nil {
				t.Fatal(err)
			}
			m.Content = append(m.Content[:i], m.Content[i+2:]...)
			break
		}
	}
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	if err := enc.Encode(&doc); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Parse(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if err := ocfg.Validate(cfg.Environments); err != nil {
		t.Fatal(err)
	}
	return cfg, ocfg
}

// loadRepo reads a fixture directory into memory, so cases can edit it.
func loadRepo(t testing.TB, dir string) (fstest.MapFS, *config.Config, Config) {
	t.Helper()
	m := fstest.MapFS{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		m[filepath.ToSlash(rel)] = &fstest.MapFile{Data: data}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	cfg, ocfg := splitConfig(t, m[config.FileName].Data)
	return m, cfg, ocfg
}

func build(t testing.TB, fsys fs.FS, cfg *config.Config, envs ...string) *Inventory {
	t.Helper()
	inv, err := Build(fsys, cfg, envs...)
	if err != nil {
		t.Fatal(err)
	}
	return inv
}
