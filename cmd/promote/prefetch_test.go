package main

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestRepoURLs(t *testing.T) {
	data := []byte(`spec:
  sources:
    - repoURL: https://charts.example.com/stable   # comment
      chart: backend
    - {repoURL: "https://charts.example.com/flow", chart: x}
    - repoURL: '{{ .values.repo }}'
    - repoURL: 'oci://registry.example.com/charts'` + "\r\n" + `    - repoURL:
`)
	want := []string{"https://charts.example.com/stable", "https://charts.example.com/flow", "oci://registry.example.com/charts"}
	if diff := cmp.Diff(want, repoURLs(data)); diff != "" {
		t.Errorf("repoURLs (-want +got):\n%s", diff)
	}
}
