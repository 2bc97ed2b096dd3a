package render

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/gitops-promote/gitops-promote/internal/argo"
	"github.com/gitops-promote/gitops-promote/internal/testutil/gencharts"
)

// TestGeneratingChartsRenderTwice is the proof that the render-once
// shortcut never hides a generated value: a real chart holding any
// template function that can give a different value per render, in any
// place a template can sit (helpers, blocks, library charts and
// subcharts, packaged or not, two deep, values rendered by tpl), is
// never called deterministic by RenderChecked, with either Helm major, so
// manifestdiff renders its head twice and labels the value generated.
// Where the function does differ between two renders, the test shows it
// does, so no case passes for a chart that never generates.
//
// Every generator is tried in every placement through the scan alone
// (ChartDeterministic, what RenderChecked asks); the renders cover every
// generator in the template placement and two (one that differs, one
// that may not) in every other placement, both majors, twice each.
func TestGeneratingChartsRenderTwice(t *testing.T) {
	gens := gencharts.Generators()
	for _, p := range gencharts.Placements {
		for _, g := range append(gens, gencharts.Pure) {
			chart, _, err := gencharts.Chart(gencharts.Slug(p, g), p, g)
			if err != nil {
				t.Fatal(err)
			}
			wantDet := g.Func == "" && !p.Tpl
			if got := ChartDeterministic(chart); got != wantDet {
				t.Errorf("%s, %s: ChartDeterministic = %v, want %v", p.Name, g.Expr, got, wantDet)
			}
		}
	}
	for _, p := range gencharts.Placements {
		for _, g := range append(gens, gencharts.Pure) {
			if p.Name != "template" && !slices.Contains([]string{"randAlphaNum", "lookup", ""}, g.Func) {
				continue
			}
			t.Run(gencharts.Slug(p, g), func(t *testing.T) {
				renderTwiceChecked(t, p, g)
			})
		}
	}
}

func renderTwiceChecked(t *testing.T, p gencharts.Placement, g gencharts.Generator) {
	name := gencharts.Slug(p, g)
	chart, values, err := gencharts.Chart(name, p, g)
	if err != nil {
		t.Fatal(err)
	}
	wantDet := g.Func == "" && !p.Tpl
	for _, major := range []int{3, 4} {
		req := &argo.Request{Env: "qa", App: name, Kind: argo.KindHelm,
			Source: argo.Source{Chart: name, TargetRevision: "0.1.0"},
			Helm: &argo.HelmRequest{Chart: argo.ChartRef{RepoURL: "https://charts.example.com", Name: name, Version: "0.1.0"},
				ReleaseName: "rel", Namespace: "ns", Values: []byte(values), HelmMajor: major}}
		in := Input{Charts: chartSource(chart)}
		a, detA, err := RenderChecked(context.Background(), in, req)
		if err != nil {
			t.Fatalf("helm %d: %v", major, err)
		}
		b, _, err := RenderChecked(context.Background(), in, req)
		if err != nil {
			t.Fatalf("helm %d, again: %v", major, err)
		}
		if detA != wantDet {
			t.Errorf("helm %d: RenderChecked says deterministic = %v, want %v", major, detA, wantDet)
		}
		if !bytes.Contains(a, []byte("token: ")) || !bytes.Contains(a, []byte("level: ")) {
			t.Fatalf("helm %d: the chart rendered no token or level:\n%s", major, a)
		}
		if g.Varies && bytes.Equal(a, b) {
			t.Errorf("helm %d: %s should differ between two renders, and did not:\n%s", major, g.Expr, a)
		}
		if wantDet && !bytes.Equal(a, b) {
			t.Errorf("helm %d: a pure chart rendered differently twice:\n%s\n---\n%s", major, a, b)
		}
	}
}

// Every function TestTemplateFunctionsClassified calls generating has a
// generator in gencharts, but call (no value holds a function) and
// env/expandenv (Helm removes them).
func TestGeneratorsCoverTheGeneratingFunctions(t *testing.T) {
	have := gencharts.Names(gencharts.Generators())
	for _, n := range generatingFuncs {
		if !slices.Contains(have, n) && n != "call" && n != "env" && n != "expandenv" {
			t.Errorf("template function %s generates, and gencharts has no chart for it", n)
		}
	}
}

// The scan reads the templates Helm's loaders give the engine, whatever
// the archive's spelling: a template under a backslash path (an archive
// packaged on Windows by an old Helm) or in a tar entry of another type
// than a regular file is rendered by both majors, so it is scanned too.
func TestScanSeesWhatHelmRenders(t *testing.T) {
	for _, tc := range []struct {
		name string
		hdr  tar.Header
	}{
		{"backslash path", tar.Header{Name: `c\templates\gen.yaml`, Typeflag: tar.TypeReg}},
		{"contiguous-file entry", tar.Header{Name: "c/templates/gen.yaml", Typeflag: tar.TypeCont}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			zw := gzip.NewWriter(&buf)
			tw := tar.NewWriter(zw)
			for _, f := range []struct {
				hdr  tar.Header
				data string
			}{
				{tar.Header{Name: "c/Chart.yaml", Typeflag: tar.TypeReg}, "apiVersion: v2\nname: c\nversion: 0.1.0\n"},
				{tc.hdr, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: gen}\ndata: {token: {{ randAlphaNum 16 | quote }}}\n"},
			} {
				f.hdr.Mode, f.hdr.Size = 0o644, int64(len(f.data))
				if err := tw.WriteHeader(&f.hdr); err != nil {
					t.Fatal(err)
				}
				if _, err := tw.Write([]byte(f.data)); err != nil {
					t.Fatal(err)
				}
			}
			if err := errors.Join(tw.Close(), zw.Close()); err != nil {
				t.Fatal(err)
			}
			chart := buf.Bytes()
			for _, m := range helmMajors {
				a, errA := m.render(context.Background(), Request{Chart: chart})
				b, errB := m.render(context.Background(), Request{Chart: chart})
				if errA != nil || errB != nil || bytes.Equal(a, b) || !bytes.Contains(a, []byte("token:")) {
					t.Fatalf("%s: want two renders that differ in the token: %v, %v\n%s", m.name, errA, errB, a)
				}
			}
			if ChartDeterministic(chart) {
				t.Error("ChartDeterministic = true for a chart whose renders differ")
			}
		})
	}
}
