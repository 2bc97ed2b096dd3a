// Command install builds the pinned tools Argo CD v3.6 bundles (helm 4,
// kustomize) into the tool cache, as the parity tests do, and prints the
// directory holding each, one per line: test/argocd-parity puts them on
// its PATH, where Argo CD's repo-server looks for them.
package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/gitops-promote/gitops-promote/internal/testutil/toolbin"
)

func main() {
	for _, tool := range []toolbin.Tool{toolbin.Helm4, toolbin.Kustomize} {
		bin, err := toolbin.Install(tool)
		if err != nil {
			fmt.Fprintf(os.Stderr, "install: %v\n", err)
			os.Exit(1)
		}
		fmt.Println(filepath.Dir(bin))
	}
}
