// Command sbom writes a CycloneDX SBOM of one Go binary (internal/sbom).
// GoReleaser's sboms step runs it for every binary it builds:
//
//	sbom -o DOCUMENT BINARY
//
// It is a build tool of this repository, not a shipped command.
package main

import (
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/gitops-promote/gitops-promote/internal/sbom"
)

func main() {
	out := flag.String("o", "", "write the SBOM to this file (default stdout)")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: sbom [-o FILE] BINARY")
		os.Exit(2)
	}
	if err := run(flag.Arg(0), *out); err != nil {
		fmt.Fprintln(os.Stderr, "sbom:", err)
		os.Exit(1)
	}
}

func run(binary, out string) error {
	var created time.Time
	if e := os.Getenv("SOURCE_DATE_EPOCH"); e != "" {
		var sec int64
		if _, err := fmt.Sscan(e, &sec); err != nil {
			return fmt.Errorf("SOURCE_DATE_EPOCH %q: %w", e, err)
		}
		created = time.Unix(sec, 0)
	}
	doc, err := sbom.FromFile(binary, created)
	if err != nil {
		return err
	}
	w := os.Stdout
	if out != "" {
		f, err := os.Create(out)
		if err != nil {
			return err
		}
		defer f.Close()
		w = f
	}
	if err := sbom.Write(w, doc); err != nil {
		return fmt.Errorf("writing SBOM: %w", err)
	}
	if out != "" {
		return w.Close()
	}
	return nil
}
