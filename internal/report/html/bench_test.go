package html

import (
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/gitops-promote/gitops-promote/internal/report"
)

// BenchmarkWrite: the cost of writing the page, apart from rendering the
// manifests (go test -bench Write -benchtime 5x ./internal/report/html).
func BenchmarkWrite(b *testing.B) {
	for _, bc := range []struct {
		name       string
		apps, keys int
		shared     bool
	}{
		{"150 apps, one shared bump", 150, 20, true},
		{"100 apps, 1000-line diffs of their own", 100, 1000, false},
	} {
		r := report.Report{Base: "a", Head: "b"}
		for i := range bc.apps {
			name := fmt.Sprintf("node-%03d-api", i)
			var base, head strings.Builder
			for j := range bc.keys {
				v := j
				if !bc.shared {
					v = i*100000 + j
				}
				fmt.Fprintf(&base, "  k%d: old-%d\n", j, v)
				fmt.Fprintf(&head, "  k%d: new-%d\n", j, v)
			}
			cm := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: " + name + "}\ndata:\n"
			r.Apps = append(r.Apps, appOf(b, "prod", name, cm+base.String(), cm+head.String()))
		}
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				if err := Write(io.Discard, r); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
