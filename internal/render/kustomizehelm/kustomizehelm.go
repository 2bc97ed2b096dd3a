// Package kustomizehelm is the `helm` command kustomize's chart generator
// runs (a kustomization's helmCharts, built with --enable-helm), answered
// by the process that runs the build.
//
// kustomize's HelmChartInflationGenerator can only execute a command
// (krusty's HelmConfig.Command): `helm version --short`, `helm pull
// --untar ...` when the chart is not in the chart home yet, and `helm
// template ...` on the chart directory. Start gives it one: a symbolic
// link named helm, in a private temporary directory, to this process's
// own executable, next to a Unix socket this process listens on. Run
// through that link, the executable's main hands over to Main (cmd/
// manifestdiff's main and the TestMain of test binaries that build such
// kustomizations call it first), which forwards the arguments over the
// socket and prints the answer. This process parses them as helm does and
// hands them to a Backend: internal/render's Helm SDK of the major Argo
// CD bundles, and its chart fetcher with the run's cache and credentials.
// No other binary runs, credentials never leave the process that holds
// them, and a helm subcommand or flag kustomize does not use fails loudly.
package kustomizehelm

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
)

const (
	// commandName is the name of the link kustomize executes.
	commandName = "helm"
	// dirPrefix starts the name of the private directory holding the link
	// and the socket: an executable run as .../<dirPrefix>*/helm is ours.
	dirPrefix  = "gitops-promote-kustomize-helm-"
	socketName = "helm.sock"
)

// ErrNotInstalled: this binary's main (or the test binary's TestMain)
// does not call Main, so running it as helm would run the program itself.
var ErrNotInstalled = errors.New("this binary does not answer as kustomize's helm (its main must call kustomizehelm.Main first)")

var hooked atomic.Bool

// Main runs the helm command when this executable was started as the link
// Start made, and reports whether it was: main calls it first and exits
// with code when handled is true. Any other start only records that the
// hook is installed.
func Main(args []string) (code int, handled bool) {
	hooked.Store(true)
	if len(args) == 0 || !isCommandPath(args[0]) {
		return 0, false
	}
	return forward(filepath.Join(filepath.Dir(args[0]), socketName), args[1:], os.Stdout, os.Stderr), true
}

// Installed reports whether Main ran in this process.
func Installed() bool { return hooked.Load() }

func isCommandPath(arg0 string) bool {
	return filepath.Base(arg0) == commandName && strings.HasPrefix(filepath.Base(filepath.Dir(arg0)), dirPrefix)
}

// Backend does what the helm commands ask, in the serving process.
type Backend interface {
	// Version is the helm version `helm version --short` prints
	// ("v4.3.1"): kustomize checks its major.
	Version() string
	// Pull is `helm pull --untar`: the chart extracted into
	// p.UntarDir/<chart name>.
	Pull(ctx context.Context, p Pull) error
	// Template is `helm template`: the manifests it prints.
	Template(ctx context.Context, t Template) ([]byte, error)
}

// Pull is `helm pull --untar --untardir DIR [--repo URL] CHART [--version
// V] [--devel]` as kustomize runs it.
type Pull struct {
	// Chart is the chart argument: a chart name with Repo, or
	// oci://registry/path/name.
	Chart    string
	Repo     string
	Version  string
	Devel    bool
	UntarDir string
}

// Template is `helm template [NAME] CHART ...` as kustomize runs it.
type Template struct {
	// Args are the positional arguments: [NAME] CHART.
	Args         []string
	GenerateName bool
	NameTemplate string
	Namespace    string
	ValueFiles   []string
	APIVersions  []string
	KubeVersion  string
	IncludeCRDs  bool
	SkipTests    bool
	NoHooks      bool
	Debug        bool
	Devel        bool
}
