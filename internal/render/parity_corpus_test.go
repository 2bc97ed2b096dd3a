package render

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/gitops-promote/gitops-promote/internal/testutil/toolbin"
)

// corpusCase is one chart of the corpus with its inputs. wantErr names
// the majors that must fail; majorsDiffer, when set, is why the released
// helm 3 and helm 4 binaries print different bytes (or one fails) for it.
type corpusCase struct {
	name         string
	req          Request
	wantErr      errOn
	majorsDiffer string
}

// TestHelmCorpusParity renders a corpus of real charts with both Helm
// majors, each with our renderer and with the released binary, and fails
// on any byte of difference. It also pins down where helm 3 and helm 4
// themselves differ on the corpus (docs/manifestdiff.md lists it), so a
// new difference between the majors shows up here first.
func TestHelmCorpusParity(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the real helm binaries and downloads charts; run without -short")
	}
	bins := map[string]string{}
	for _, m := range helmMajors {
		bins[m.name] = toolbin.Path(t, m.tool)
	}
	for _, tc := range corpusCases(t) {
		t.Run(tc.name, func(t *testing.T) {
			// Cases run side by side (-parallel, GOMAXPROCS by default):
			// half of each is a helm process, half an in-process render.
			t.Parallel()
			outs := map[string][]byte{}
			failed := map[string]bool{}
			for _, m := range helmMajors {
				t.Run(m.name, func(t *testing.T) {
					out := checkParity(t, m, bins[m.name], parityCase{tc.name, tc.req, tc.wantErr})
					outs[m.name], failed[m.name] = out, out == nil
				})
			}
			// Blank lines between documents differ on most charts (helm 4
			// keeps a template's trailing newlines); the objects must not,
			// unless the case says why.
			differ := failed["helm3"] != failed["helm4"] || !sameObjects(t, outs["helm3"], outs["helm4"])
			if differ != (tc.majorsDiffer != "") {
				t.Errorf("helm 3 and helm 4 objects differ = %v, want %v (%q)", differ, !differ, tc.majorsDiffer)
			}
		})
	}
}

func corpusCases(t *testing.T) []corpusCase {
	var cases []corpusCase
	cases = append(cases, platformCases(t)...)
	cases = append(cases, majorFeatureCases(t)...)
	cases = append(cases, helmTestChartCases(t)...)
	cases = append(cases, certManagerCases(t)...)
	cases = append(cases, kyvernoCases(t)...)
	return cases
}

// sameObjects reports whether two `helm template` outputs hold the same
// objects from the same sources, in the same order, whatever the blank
// lines and formatting.
func sameObjects(t *testing.T, a, b []byte) bool {
	return reflect.DeepEqual(templateObjects(t, a), templateObjects(t, b))
}

func templateObjects(t *testing.T, out []byte) []any {
	t.Helper()
	var objs []any
	for _, doc := range splitYAML(string(out)) {
		var obj any
		if err := yaml.Unmarshal([]byte(doc), &obj); err != nil {
			t.Fatalf("helm printed a document that does not parse: %v\n%s", err, doc)
		}
		if obj == nil {
			continue
		}
		source := ""
		if i := strings.Index(doc, "# Source: "); i >= 0 {
			source, _, _ = strings.Cut(doc[i:], "\n")
		}
		objs = append(objs, source, obj)
	}
	return objs
}

// packRaw packs a chart directory as-is into a .tgz under its base name,
// for charts the Helm 3 SDK cannot package (apiVersion v3).
func packRaw(t *testing.T, dir string) []byte {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	base := filepath.Base(dir)
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		hdr := &tar.Header{Name: base + "/" + filepath.ToSlash(rel), Mode: 0o644, Size: int64(len(data))}
		if err := tw.WriteHeader(hdr); err != nil {
			return err
		}
		_, err = tw.Write(data)
		return err
	})
	if err == nil {
		err = tw.Close()
	}
	if err == nil {
		err = gz.Close()
	}
	if err != nil {
		t.Fatalf("pack %s: %v", dir, err)
	}
	return buf.Bytes()
}

// copyModuleDir copies a read-only module-cache directory to a writable one.
func copyModuleDir(t *testing.T, src string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), filepath.Base(src))
	if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
		t.Fatalf("copy %s: %v", src, err)
	}
	if err := filepath.WalkDir(dst, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Chmod(p, map[bool]fs.FileMode{true: 0o755, false: 0o644}[d.IsDir()])
	}); err != nil {
		t.Fatal(err)
	}
	return dst
}

// dropRemoteDependencies removes from Chart.yaml the dependencies that
// come from a repository and are not vendored under charts/, which
// `helm dependency build` would fetch from the network.
func dropRemoteDependencies(t *testing.T, chartDir string) {
	t.Helper()
	p := filepath.Join(chartDir, "Chart.yaml")
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	var meta map[string]any
	if err := yaml.Unmarshal(data, &meta); err != nil {
		t.Fatal(err)
	}
	deps, _ := meta["dependencies"].([]any)
	var kept []any
	for _, d := range deps {
		dep, _ := d.(map[string]any)
		repo, _ := dep["repository"].(string)
		if _, err := os.Stat(filepath.Join(chartDir, "charts", dep["name"].(string))); repo != "" && err != nil {
			continue
		}
		kept = append(kept, d)
	}
	meta["dependencies"] = kept
	out, err := yaml.Marshal(meta)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, out, 0o644); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(chartDir, "Chart.lock"))
}

// valueFiles reads every *.yaml file of dir, in name order.
func valueFiles(t *testing.T, dir string) []NamedBytes {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(names)
	var files []NamedBytes
	for _, n := range names {
		data, err := os.ReadFile(n)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, NamedBytes{Name: strings.TrimSuffix(filepath.Base(n), ".yaml"), Data: data})
	}
	return files
}
