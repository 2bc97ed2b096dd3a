package render

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gitops-promote/gitops-promote/internal/argo"
)

// tgzEntry is one file of a test archive: size bytes of zeros, or data.
type tgzEntry struct {
	name string
	size int64
	data []byte
}

// zeroTGZ packs entries as a chart archive, streaming the zeros through
// gzip: 1 GB of them make about 1 MB, and never sit in memory.
func zeroTGZ(t testing.TB, entries ...tgzEntry) []byte {
	t.Helper()
	var buf bytes.Buffer
	gz, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	tw := tar.NewWriter(gz)
	zeros := make([]byte, 1<<20)
	for _, e := range entries {
		size := e.size
		if e.data != nil {
			size = int64(len(e.data))
		}
		if err := tw.WriteHeader(&tar.Header{Name: e.name, Mode: 0o644, Size: size, Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		if e.data != nil {
			tw.Write(e.data)
			continue
		}
		for left := size; left > 0; left -= int64(len(zeros)) {
			if _, err := tw.Write(zeros[:min(left, int64(len(zeros)))]); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	gz.Close()
	return buf.Bytes()
}

const hugeChartYAML = "apiVersion: v2\nname: huge\nversion: 1.0.0\n"

// hugeChart is a valid chart whose values.yaml is 1 GB of zeros, about
// 1 MB packed; built once. (The bound is 16 MiB: past it, the size does
// not matter, and packing 3 GB takes half a minute of a loaded machine.)
var hugeChart = sync.OnceValue(func() []byte {
	return zeroTGZ(&testing.T{}, tgzEntry{name: "huge/Chart.yaml", data: []byte(hugeChartYAML)},
		tgzEntry{name: "huge/values.yaml", size: 1 << 30})
})

// TestHugeArchiveEntryRefusedWhileRead: a chart whose one file is 1 GB
// decompressed fails its app with ErrTooLarge naming the chart and
// version, for every path an archive takes into Helm, having allocated
// far less than the entry.
func TestHugeArchiveEntryRefusedWhileRead(t *testing.T) {
	start := time.Now()
	tgz := hugeChart()
	t.Logf("a %d KB archive of a 1 GB file, packed in %v", len(tgz)>>10, time.Since(start).Round(time.Millisecond))
	for _, major := range []int{3, 4} {
		t.Run(fmt.Sprint("helm ", major), func(t *testing.T) {
			req := &argo.Request{Env: "qa", App: "bomb", Kind: argo.KindHelm,
				Source: argo.Source{Chart: "huge", TargetRevision: "1.0.0"},
				Helm: &argo.HelmRequest{Chart: argo.ChartRef{RepoURL: "https://charts.example.com", Name: "huge", Version: "1.0.0"},
					ReleaseName: "rel", Namespace: "ns", HelmMajor: major}}
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			_, err := Render(context.Background(), Input{Charts: chartSource(tgz)}, req)
			runtime.ReadMemStats(&after)
			if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "env qa, app bomb, chart huge version 1.0.0") ||
				!strings.Contains(err.Error(), `"huge/values.yaml"`) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("err %v; want ErrTooLarge naming app, chart, version and file", err)
			}
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 256<<20 {
				t.Errorf("allocated %d MiB to refuse it", alloc>>20)
			}
		})
	}
}

// TestArchiveBounds: every bound of checkArchive, nested archives
// counted with their chart.
func TestArchiveBounds(t *testing.T) {
	chartYAML := tgzEntry{name: "c/Chart.yaml", data: []byte("apiVersion: v2\nname: c\nversion: 1.0.0\n")}
	tenMiB := func(i int) tgzEntry { return tgzEntry{name: fmt.Sprintf("c/files/f%d", i), size: 10 << 20} }
	var tenOfTen, manyFiles []tgzEntry
	for i := range 11 {
		tenOfTen = append(tenOfTen, tenMiB(i))
	}
	for i := range maxChartEntries + 1 {
		manyFiles = append(manyFiles, tgzEntry{name: fmt.Sprintf("c/f%d", i), data: []byte{}})
	}
	nested := zeroTGZ(t, tenOfTen[:6]...) // 60 MiB, twice in one chart
	deep := zeroTGZ(t, chartYAML)
	for range maxChartNesting + 1 {
		deep = zeroTGZ(t, tgzEntry{name: "c/charts/sub.tgz", data: deep})
	}
	tests := []struct {
		name    string
		tgz     []byte
		wantErr string // "" valid
	}{
		{"a real chart", chartBytes(t, "demo"), ""},
		{"one file past 16 MiB", zeroTGZ(t, chartYAML, tgzEntry{name: "c/big", size: 17 << 20}), `"c/big": too large: more than 16 MiB`},
		{"files past 100 MiB together", zeroTGZ(t, append([]tgzEntry{chartYAML}, tenOfTen...)...), "more than 100 MiB decompressed"},
		{"nested archives past 100 MiB together", zeroTGZ(t, chartYAML, tgzEntry{name: "c/charts/a.tgz", data: nested},
			tgzEntry{name: "c/charts/b.tgz", data: nested}), "more than 100 MiB decompressed"},
		{"too many files", zeroTGZ(t, manyFiles...), "more than 20000 files"},
		{"nested too deep", deep, "deeper than 8"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := checkArchive(tc.tgz)
			if tc.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("err %v; want ErrTooLarge, %q", err, tc.wantErr)
			}
		})
	}
}
