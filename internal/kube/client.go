// Package kube is the cluster side of manifestdiff's live diff: it loads a
// kubeconfig the standard way, asks the API server what a sync would do
// with a server-side apply dry run under Argo CD's field manager, lists the
// live objects an app tracks, and applies Argo CD's comparison rules
// (server-managed fields, ignoreDifferences, managed objects, prune).
// It only reads the cluster: every write is a dry run. It never prints.
package kube

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"
	"k8s.io/client-go/tools/clientcmd"
)

// Manager is the field manager Argo CD syncs with (its ArgoCDSSAManager,
// "argocd-controller"). Argo CD passes the same name to kubectl's
// client-side apply, so objects it applied either way carry it in their
// managedFields; kubectl's own client-side default
// ("kubectl-client-side-apply") is what Argo CD migrates from.
const Manager = "argocd-controller"

// ErrUnreachable marks a cluster that could not be asked at all: no
// kubeconfig, a refused connection, a TLS or authentication failure. The
// caller fails that env and goes on with the others.
var ErrUnreachable = errors.New("cluster unreachable")

// Options select the cluster with the standard kubeconfig rules: Kubeconfig
// (--kubeconfig), else $KUBECONFIG, else ~/.kube/config, else the
// in-cluster service account; Context (--context) over the current one.
type Options struct {
	Kubeconfig string
	Context    string
	// Remember, when set, is given every credential the cluster's client
	// holds or sends (user "" for a token), before any can show in an
	// error: the caller masks them in everything it writes.
	Remember func(user, secret string)
}

// Cluster is one API server, ready for reads and dry runs.
type Cluster struct {
	// Name says which cluster this is in errors and reports: the context
	// and server, never a credential.
	Name   string
	dyn    dynamic.Interface
	meta   metadata.Interface
	disc   discovery.DiscoveryInterface
	mapper meta.ResettableRESTMapper
	warn   *warnings
}

// Connect loads the kubeconfig and checks the server answers. Any failure
// wraps ErrUnreachable.
func Connect(ctx context.Context, opt Options) (*Cluster, error) {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = opt.Kubeconfig
	cc := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{CurrentContext: opt.Context})
	remember := func(user, secret string) {
		if secret != "" && opt.Remember != nil {
			opt.Remember(user, secret)
		}
	}
	if raw, err := cc.RawConfig(); err == nil {
		rememberKubeconfig(raw, remember)
	}
	cfg, err := cc.ClientConfig()
	if err != nil {
		return nil, fmt.Errorf("loading kubeconfig: %s: %w", oneLine(err.Error()), ErrUnreachable)
	}
	rememberRest(cfg, remember)
	if opt.Remember != nil {
		watchAuth(cfg, remember)
	}
	name := cfg.Host
	if raw, err := cc.RawConfig(); err == nil {
		ctxName := opt.Context
		if ctxName == "" {
			ctxName = raw.CurrentContext
		}
		if ctxName != "" {
			name = fmt.Sprintf("context %s (%s)", ctxName, cfg.Host)
		}
	}
	return newCluster(ctx, cfg, name)
}

func newCluster(ctx context.Context, cfg *rest.Config, name string) (*Cluster, error) {
	cfg = rest.CopyConfig(cfg)
	// client-go's default (5 QPS) would make a live diff of a whole env
	// crawl; kubectl allows bursts of the same order.
	cfg.QPS, cfg.Burst = 50, 100
	cfg.UserAgent = "gitops-promote-manifestdiff"
	// client-go's default handler logs every server warning through klog
	// to stderr, raw; the caller reports them with its own (Warnings).
	w := &warnings{}
	cfg.WarningHandler, cfg.WarningHandlerWithContext = nil, w
	wrap := func(err error) error { return fmt.Errorf("%s: %s: %w", name, oneLine(err.Error()), ErrUnreachable) }
	disc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return nil, wrap(err)
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, wrap(err)
	}
	md, err := metadata.NewForConfig(cfg)
	if err != nil {
		return nil, wrap(err)
	}
	if err := disc.RESTClient().Get().AbsPath("/version").Do(ctx).Error(); err != nil {
		return nil, wrap(err)
	}
	return &Cluster{
		Name: name, dyn: dyn, meta: md, disc: disc, warn: w,
		mapper: restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(disc)),
	}, nil
}

// apiError tells an answer of the API server about one object (forbidden,
// not found, invalid...) from a failure to reach it. Only the former is a
// per-object finding.
func apiError(err error) bool {
	var st apierrors.APIStatus
	if !errors.As(err, &st) {
		return false
	}
	code := st.Status().Code
	return code != http.StatusUnauthorized && code != 0
}

// transport wraps an error that is not an API answer as ErrUnreachable.
func (c *Cluster) transport(err error) error {
	return fmt.Errorf("%s: %s: %w", c.Name, oneLine(err.Error()), ErrUnreachable)
}
