// Command etcd is etcd's server for the live tests' kube-apiserver
// (scripts/kube-build.sh builds it). It is built in this module, at the
// version Kubernetes requires here and with this module's toolchain, so
// the packages it shares with kube-apiserver (gRPC, OpenTelemetry,
// Prometheus, zap, etcd's client) compile once for both.
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() { etcdmain.Main(os.Args) }
