//go:build tools

// Package tools pins the decided dependencies in go.mod before every
// package that uses them exists, so `go mod tidy` keeps them.
package tools

import (
	_ "github.com/go-git/go-git/v5"
	_ "github.com/google/go-cmp/cmp"
	_ "github.com/mikefarah/yq/v4/pkg/yqlib"
	_ "github.com/sergi/go-diff/diffmatchpatch"
	_ "gitlab.com/gitlab-org/api/client-go"
	_ "go.yaml.in/yaml/v3"
	_ "helm.sh/helm/v3/pkg/action"
)
