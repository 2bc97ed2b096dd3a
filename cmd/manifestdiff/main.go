// Command manifestdiff renders every Argo CD app of a GitOps repository at
// two git revisions and diffs the results per Kubernetes resource.
package main

import (
	"fmt"
	"os"
)

func main() {
	fmt.Fprintln(os.Stderr, "manifestdiff: not implemented yet")
	os.Exit(1)
}
