// Command install builds pinned tools into the tool cache, as the parity
// tests do, and prints the directory holding each, one per line. With no
// arguments it installs the tools Argo CD v3.6 bundles (helm 4,
// kustomize): test/argocd-parity puts them on its PATH, where Argo CD's
// repo-server looks for them. scripts/tools.sh asks it for helm3, so that
// make bench's baseline runs the helm 3 the parity tests built.
package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/gitops-promote/gitops-promote/internal/testutil/toolbin"
)

var tools = map[string]toolbin.Tool{"helm3": toolbin.Helm3, "helm4": toolbin.Helm4, "kustomize": toolbin.Kustomize}

func main() {
	names := os.Args[1:]
	if len(names) == 0 {
		names = []string{"helm4", "kustomize"}
	}
	for _, name := range names {
		tool, ok := tools[name]
		if !ok {
			fmt.Fprintf(os.Stderr, "install: unknown tool %q (helm3, helm4 or kustomize)\n", name)
			os.Exit(2)
		}
		bin, err := toolbin.Install(tool)
		if err != nil {
			fmt.Fprintf(os.Stderr, "install: %v\n", err)
			os.Exit(1)
		}
		fmt.Println(filepath.Dir(bin))
	}
}
