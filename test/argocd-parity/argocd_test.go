package parity

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	log "github.com/sirupsen/logrus"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/argoproj/argo-cd/v3/applicationset/controllers/template"
	"github.com/argoproj/argo-cd/v3/applicationset/generators"
	"github.com/argoproj/argo-cd/v3/applicationset/utils"
	"github.com/argoproj/argo-cd/v3/controller"
	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	"github.com/argoproj/argo-cd/v3/reposerver/apiclient"
	repocache "github.com/argoproj/argo-cd/v3/reposerver/cache"
	"github.com/argoproj/argo-cd/v3/reposerver/metrics"
	"github.com/argoproj/argo-cd/v3/reposerver/repository"
	"github.com/argoproj/argo-cd/v3/util/argo"
	cacheutil "github.com/argoproj/argo-cd/v3/util/cache"
	"github.com/argoproj/argo-cd/v3/util/git"
	"github.com/argoproj/argo-cd/v3/util/settings"
)

// argoCD is Argo CD v3.6's own code, in process: the repo-server's
// GenerateManifest renders a source, the ApplicationSet controller's
// GenerateApplications expands a set, and the application controller's
// NormalizeTargetObjects turns a render into the objects it syncs.
type argoCD struct {
	svc *repository.Service
}

var metricsOnce = metrics.NewMetricsServer() // registers global collectors: once per process

func newArgoCD(t *testing.T) *argoCD {
	t.Helper()
	cache := repocache.NewCache(cacheutil.NewCache(cacheutil.NewInMemoryCache(time.Hour)), time.Hour, time.Hour, 10*time.Second)
	root := filepath.Join(t.TempDir(), "reposerver")
	svc := repository.NewService(metricsOnce, cache, repository.RepoServerInitConstants{
		// argocd-repo-server's flag defaults
		MaxCombinedDirectoryManifestsSize: resource.MustParse("10M"),
		StreamedManifestMaxExtractedSize:  1 << 30,
		StreamedManifestMaxTarSize:        100 << 20,
		HelmManifestMaxExtractedSize:      1 << 30,
		HelmRegistryMaxIndexSize:          1 << 30,
		OCIManifestMaxExtractedSize:       1 << 30,
	}, &git.NoopCredsStore{}, root)
	if err := svc.Init(); err != nil {
		t.Fatal(err)
	}
	log.SetLevel(log.ErrorLevel)
	return &argoCD{svc: svc}
}

// deployment is what manifestdiff rendered with (its .promote.yaml's
// deployment settings), which stand for the cluster and argocd-cm.
type deployment struct {
	Argo struct {
		Tracking, InstanceLabelKey, Namespace string
		Helm                                  struct{ ValuesFileSchemes *string }
		Kustomize                             struct{ BuildOptions string }
	}
	KubeVersion string
	APIVersions []string
}

func (d deployment) namespace() string { return or(d.Argo.Namespace, "argocd") }

// request fills a ManifestRequest for one source of app as the
// application controller does (controller/state.go GetRepoObjs).
func (d deployment) request(app *v1alpha1.Application, src v1alpha1.ApplicationSource, refs v1alpha1.RefTargetRevisionMapping) *apiclient.ManifestRequest {
	apis := slices.Clone(d.APIVersions) // the cluster's: a set, sorted
	slices.Sort(apis)
	apis = slices.Compact(apis)
	helm := &v1alpha1.HelmOptions{ValuesFileSchemes: []string{"https", "http"}}
	if s := d.Argo.Helm.ValuesFileSchemes; s != nil {
		helm.ValuesFileSchemes = splitTrim(*s)
	}
	return &apiclient.ManifestRequest{
		Repo:               &v1alpha1.Repository{Repo: src.RepoURL},
		Revision:           src.TargetRevision,
		NoCache:            true,
		AppLabelKey:        or(d.Argo.InstanceLabelKey, "app.kubernetes.io/instance"),
		AppName:            app.InstanceName(d.namespace()),
		Namespace:          app.Spec.Destination.Namespace,
		ApplicationSource:  &src,
		KustomizeOptions:   &v1alpha1.KustomizeOptions{BuildOptions: d.Argo.Kustomize.BuildOptions},
		KubeVersion:        d.KubeVersion,
		ApiVersions:        apis,
		TrackingMethod:     or(d.Argo.Tracking, "annotation"),
		EnabledSourceTypes: map[string]bool{},
		HelmOptions:        helm,
		HasMultipleSources: app.Spec.HasMultipleSources(),
		RefSources:         refs,
		ProjectName:        app.Spec.Project,
		ProjectSourceRepos: []string{"*"},
		InstallationID:     "",
	}
}

// generate is what the repo-server returns for app: every source but
// refs rendered, as the controller asks (an error is one Argo CD would
// show on the app).
func (a *argoCD) generate(ctx context.Context, app *v1alpha1.Application, d deployment) ([]*unstructured.Unstructured, error) {
	sources := app.Spec.GetSources()
	getRepo := func(_ context.Context, url, _ string) (*v1alpha1.Repository, error) {
		return &v1alpha1.Repository{Repo: url}, nil
	}
	refs, err := argo.GetRefSources(ctx, sources, app.Spec.Project, getRepo, nil)
	if err != nil {
		return nil, err
	}
	var objs []*unstructured.Unstructured
	for i, src := range sources {
		if src.IsRef() {
			continue // read through the sources that refer to it
		}
		res, err := a.svc.GenerateManifest(ctx, d.request(app, src, refs))
		if err != nil {
			return nil, fmt.Errorf("source %d of %d: %w", i+1, len(sources), err)
		}
		for _, m := range res.Manifests {
			u, err := v1alpha1.UnmarshalToUnstructured(m)
			if err != nil {
				return nil, err
			}
			objs = append(objs, u)
		}
	}
	return objs, nil
}

// normalize is what the application controller syncs of a render:
// normalised and deduplicated by its own NormalizeTargetObjects, the
// excluded kinds dropped as its CompareAppState drops them; the warnings
// are the conditions it raises.
func normalize(app *v1alpha1.Application, d deployment, objs []*unstructured.Unstructured, sc scope) ([]*unstructured.Unstructured, []string, error) {
	tracking := argo.NewResourceTracking()
	labelKey, method := or(d.Argo.InstanceLabelKey, "app.kubernetes.io/instance"), v1alpha1.TrackingMethod(or(d.Argo.Tracking, "annotation"))
	objs, conds, err := controller.NormalizeTargetObjects(app.Spec.Destination.Namespace, objs, sc, func(u *unstructured.Unstructured) error {
		return tracking.SetAppInstance(u, labelKey, app.InstanceName(d.namespace()), app.Spec.Destination.Namespace, method, "")
	})
	if err != nil {
		return nil, nil, err
	}
	var warnings []string
	for _, c := range conds {
		warnings = append(warnings, c.Message)
	}
	filter := settings.ResourcesFilter{}
	objs = slices.DeleteFunc(objs, func(u *unstructured.Unstructured) bool {
		gvk := u.GroupVersionKind()
		if !filter.IsExcludedResource(gvk.Group, gvk.Kind, app.Spec.Destination.Server) {
			return false
		}
		warnings = append(warnings, fmt.Sprintf("Resource %s/%s %s is excluded in the settings", gvk.Group, gvk.Kind, u.GetName()))
		return true
	})
	sort.Strings(warnings)
	return objs, warnings, nil
}

// expand is the Applications an ApplicationSet generates, as the
// ApplicationSet controller generates them (List, Git, Matrix, Merge).
func (a *argoCD) expand(set v1alpha1.ApplicationSet) ([]v1alpha1.Application, error) {
	repos := gitRepos{a.svc}
	terminal := map[string]generators.Generator{
		"List": generators.NewListGenerator(),
		"Git":  generators.NewGitGenerator(repos, "argocd"),
	}
	nested := map[string]generators.Generator{
		"List": terminal["List"], "Git": terminal["Git"],
		"Matrix": generators.NewMatrixGenerator(terminal), "Merge": generators.NewMergeGenerator(terminal),
	}
	top := map[string]generators.Generator{
		"List": terminal["List"], "Git": terminal["Git"],
		"Matrix": generators.NewMatrixGenerator(nested), "Merge": generators.NewMergeGenerator(nested),
	}
	// the set's AppProject, permissive: the git generator reads its
	// source integrity policy (none) from it
	scheme := runtime.NewScheme()
	if err := v1alpha1.AddToScheme(scheme); err != nil {
		return nil, err
	}
	b := fake.NewClientBuilder().WithScheme(scheme)
	if p := set.Spec.Template.Spec.Project; p != "" && !strings.Contains(p, "{{") {
		b = b.WithObjects(&v1alpha1.AppProject{ObjectMeta: metav1.ObjectMeta{Name: p, Namespace: "argocd"},
			Spec: v1alpha1.AppProjectSpec{SourceRepos: []string{"*"}}})
	}
	c := b.Build()
	apps, _, err := template.GenerateApplications(log.NewEntry(log.StandardLogger()), set, top, &utils.Render{}, c)
	return apps, err
}

// gitRepos answers the Git generator from the repo-server, as the
// ApplicationSet controller's service does.
type gitRepos struct{ svc *repository.Service }

func (g gitRepos) GetFiles(ctx context.Context, repoURL, revision, _, pattern string, noRevisionCache bool, _ *v1alpha1.SourceIntegrity) (map[string][]byte, error) {
	res, err := g.svc.GetGitFiles(ctx, &apiclient.GitFilesRequest{Repo: &v1alpha1.Repository{Repo: repoURL}, Revision: revision, Path: pattern, NoRevisionCache: noRevisionCache})
	if err != nil {
		return nil, err
	}
	return res.GetMap(), nil
}

func (g gitRepos) GetDirectories(ctx context.Context, repoURL, revision, _ string, noRevisionCache bool, _ *v1alpha1.SourceIntegrity) ([]string, error) {
	res, err := g.svc.GetGitDirectories(ctx, &apiclient.GitDirectoriesRequest{Repo: &v1alpha1.Repository{Repo: repoURL}, Revision: revision, NoRevisionCache: noRevisionCache})
	if err != nil {
		return nil, err
	}
	return res.GetPaths(), nil
}

func (g gitRepos) GetOciFiles(context.Context, string, string, string, string, bool) (map[string][]byte, error) {
	return nil, fmt.Errorf("no OCI generator in the parity suite")
}

func (g gitRepos) GetOciDirectories(context.Context, string, string, string, bool) ([]string, error) {
	return nil, fmt.Errorf("no OCI generator in the parity suite")
}

// scope says which kinds are namespaced, as the discovery of a cluster
// that runs the env would: the built-in cluster-scoped kinds, and the
// kinds of every CustomResourceDefinition the env's apps render (once
// synced, the cluster has them); anything else is namespaced.
type scope map[string]bool // group/kind -> cluster-scoped

func (sc scope) IsNamespaced(gk schema.GroupKind) (bool, error) {
	if cluster, ok := sc[gk.Group+"/"+gk.Kind]; ok {
		return !cluster, nil
	}
	return !clusterScoped[gk.Kind], nil
}

// learn records the scope obj declares if it is a CRD.
func (sc scope) learn(obj *unstructured.Unstructured) {
	if obj.GetKind() != "CustomResourceDefinition" {
		return
	}
	group, _, _ := unstructured.NestedString(obj.Object, "spec", "group")
	kind, _, _ := unstructured.NestedString(obj.Object, "spec", "names", "kind")
	s, _, _ := unstructured.NestedString(obj.Object, "spec", "scope")
	if kind != "" && (s == "Cluster" || s == "Namespaced") {
		sc[group+"/"+kind] = s == "Cluster"
	}
}

var clusterScoped = map[string]bool{}

func init() {
	for _, k := range strings.Fields(`Namespace Node PersistentVolume StorageClass ClusterRole ClusterRoleBinding
		CustomResourceDefinition PriorityClass ValidatingWebhookConfiguration MutatingWebhookConfiguration
		ValidatingAdmissionPolicy ValidatingAdmissionPolicyBinding MutatingAdmissionPolicy MutatingAdmissionPolicyBinding
		APIService IngressClass RuntimeClass CSIDriver CSINode VolumeAttachment VolumeAttributesClass
		VolumeSnapshotClass VolumeSnapshotContent PodSecurityPolicy CertificateSigningRequest FlowSchema
		PriorityLevelConfiguration ClusterIssuer ClusterSecretStore ComponentStatus ClusterTrustBundle
		DeviceClass ResourceSlice StorageVersion StorageVersionMigration IPAddress ServiceCIDR
		SelfSubjectReview TokenReview SubjectAccessReview SelfSubjectAccessReview SelfSubjectRulesReview`) {
		clusterScoped[k] = true
	}
}

func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func splitTrim(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

func mustEnv(t *testing.T, k string) string {
	t.Helper()
	v := os.Getenv(k)
	if v == "" {
		t.Fatalf("%s is not set: run the suite with `make test-argocd`", k)
	}
	return v
}
