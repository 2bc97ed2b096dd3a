package render

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"strings"
)

// Bounds of a chart archive, decompressed. A 1 MB .tgz can hold gigabytes
// of zeros, and a chart may carry its dependencies as archives in charts/
// which Helm unpacks in turn, so they are counted together, as the
// stream is read and before anything is kept.
const (
	// maxChartBytes is Helm's own bound of a chart (its loader's
	// MaxDecompressedChartSize, 100 MiB in Helm 3 and 4), here for the
	// chart and every archive nested in it together.
	maxChartBytes = 100 << 20
	// maxChartEntryBytes bounds one file: Helm 3 refuses past 5 MiB and
	// Helm 4 has no per-file bound, so this only keeps a nested archive,
	// which must be held to be scanned, small. A rendered document is
	// bounded at 8 MiB anyway (internal/diff).
	maxChartEntryBytes = 16 << 20
	// maxChartEntries bounds the files: each becomes a Helm object. Real
	// charts hold hundreds (kube-prometheus-stack with its
	// dependencies, about a thousand).
	maxChartEntries = 20_000
	// maxChartNesting bounds archives within archives (Helm unpacks
	// charts/*.tgz of charts/*.tgz...).
	maxChartNesting = 8
)

// checkArchive reads the chart archive tgz as a stream, nested chart
// archives included, and refuses it past the bounds above without
// holding more than one nested archive at a time.
func checkArchive(tgz []byte) error {
	budget := archiveBudget{bytes: maxChartBytes, entries: maxChartEntries}
	return budget.scan(tgz, "", 0)
}

type archiveBudget struct {
	bytes   int64
	entries int
}

func (b *archiveBudget) scan(tgz []byte, within string, depth int) error {
	if depth > maxChartNesting {
		return fmt.Errorf("chart archive %s: %w: nests archives deeper than %d", within, ErrTooLarge, maxChartNesting)
	}
	gz, err := gzip.NewReader(bytes.NewReader(tgz))
	if err != nil {
		return nil // not gzip: the loader says so in its own words
	}
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return nil // a broken archive: the loader says so
		}
		name := within + h.Name
		if b.entries--; b.entries < 0 {
			return fmt.Errorf("chart archive: %w: more than %d files", ErrTooLarge, maxChartEntries)
		}
		if h.Typeflag != tar.TypeReg && h.Typeflag != tar.TypeRegA {
			continue
		}
		if h.Size > maxChartEntryBytes {
			return entryTooLarge(name)
		}
		nested := strings.HasSuffix(h.Name, ".tgz") || strings.HasSuffix(h.Name, ".tar.gz")
		var keep *bytes.Buffer
		w := io.Discard
		if nested {
			keep = &bytes.Buffer{}
			w = keep
		}
		// the header's size is the writer's word: the bytes are counted
		n, err := io.Copy(w, io.LimitReader(tr, min(maxChartEntryBytes, b.bytes)+1))
		if err != nil {
			return nil // a broken archive: the loader says so
		}
		if n > maxChartEntryBytes {
			return entryTooLarge(name)
		}
		if b.bytes -= n; b.bytes < 0 {
			return fmt.Errorf("chart archive: %w: more than %d MiB decompressed", ErrTooLarge, maxChartBytes>>20)
		}
		if nested {
			if err := b.scan(keep.Bytes(), name+"!", depth+1); err != nil {
				return err
			}
		}
	}
}

func entryTooLarge(name string) error {
	return fmt.Errorf("chart archive file %q: %w: more than %d MiB decompressed", name, ErrTooLarge, maxChartEntryBytes>>20)
}
