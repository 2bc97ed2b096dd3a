//go:build tools

package parity

import _ "k8s.io/kubernetes/cmd/kube-apiserver"
