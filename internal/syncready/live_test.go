//go:build live

package syncready

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/rest"

	"github.com/gitops-promote/gitops-promote/internal/testutil/kubeserver"
)

// TestLiveSchemaJudge: the real kube-apiserver (at corpusKube) judges
// every document of the schema corpus by a dry-run create with
// fieldValidation=Strict, the document's text sent as written; the
// offline checks must refuse the same documents and name the fields the
// server names. The corpus's CRDs are created first.
func TestLiveSchemaJudge(t *testing.T) {
	srv := kubeserver.Start(t)
	admin := srv.Client(t, kubeserver.Admin)
	ctx := context.Background()
	crds, crdDocs := corpusCRDs(t)
	for _, d := range crdDocs {
		if err := admin.Apply(ctx, d.Body, "corpus"); err != nil {
			t.Fatalf("creating CRD %s: %v", d.name(), err)
		}
	}
	for _, c := range crds {
		for v := range c.Versions {
			if err := admin.WaitEstablished(ctx, schema.GroupVersionKind{Group: c.Group, Version: v, Kind: c.Kind}); err != nil {
				t.Fatal(err)
			}
		}
	}
	j := newJudge(t, srv)
	file := filepath.Join("testdata", "schema", "objects.yaml")
	for _, d := range readCorpus(t, file) {
		t.Run(d.id(), func(t *testing.T) {
			status, msg := j.dryRun(t, d)
			offline := offlineFindings(t, d, crds)
			t.Logf("server: %d %s", status, msg)
			rejected := status >= 300
			if rejected != (len(offline) > 0) {
				t.Fatalf("%s:%d: server says %d %q, offline %v", file, d.Line, status, msg, offline)
			}
			for _, f := range offline {
				if f.Rule == RuleAPIRemoved {
					if status != http.StatusNotFound {
						t.Errorf("%s:%d: api-removed, but the server answers %d %q", file, d.Line, status, msg)
					}
					continue
				}
				if field := fieldOf(f.Message); !names(msg, field, f.Rule) {
					t.Errorf("%s:%d: offline names %s (%s), the server does not: %q", file, d.Line, field, f.Rule, msg)
				}
			}
		})
	}
	// Per-kind validation is not checked offline: the server refuses
	// these, the checks let them pass (docs/manifestdiff.md says so).
	other := filepath.Join("testdata", "schema", "not-offline.yaml")
	for _, d := range readCorpus(t, other) {
		t.Run("not offline "+d.id(), func(t *testing.T) {
			status, msg := j.dryRun(t, d)
			if status < 300 {
				t.Errorf("%s:%d: the server accepts it now: move it to objects.yaml", other, d.Line)
			}
			if f := offlineFindings(t, d, crds); len(f) > 0 {
				t.Errorf("%s:%d: offline now refuses it (%v): move it to objects.yaml", other, d.Line, f)
			}
			t.Logf("server: %d %s", status, msg)
		})
	}
}

// judge sends raw dry runs as the admin.
type judge struct {
	url, token string
	http       *http.Client
	disc       *discovery.DiscoveryClient
}

func newJudge(t *testing.T, srv *kubeserver.Server) *judge {
	ca, err := os.ReadFile(srv.CAFile)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(ca)
	token := srv.Token(kubeserver.Admin)
	disc, err := discovery.NewDiscoveryClientForConfig(&rest.Config{Host: srv.URL, BearerToken: token, TLSClientConfig: rest.TLSClientConfig{CAFile: srv.CAFile}})
	if err != nil {
		t.Fatal(err)
	}
	return &judge{url: srv.URL, token: token, disc: disc,
		http: &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}}
}

// dryRun posts d's text to its collection; an API version the server
// does not serve is its 404, as Argo CD's sync would meet it.
func (j *judge) dryRun(t *testing.T, d corpusDoc) (int, string) {
	gv, err := schema.ParseGroupVersion(d.str("apiVersion"))
	if err != nil {
		t.Fatal(err)
	}
	list, err := j.disc.ServerResourcesForGroupVersion(gv.String())
	if apierrors.IsNotFound(err) {
		return http.StatusNotFound, "the server does not serve " + gv.String()
	}
	if err != nil {
		t.Fatal(err)
	}
	path := "/apis/" + gv.String()
	if gv.Group == "" {
		path = "/api/" + gv.Version
	}
	found := false
	for _, r := range list.APIResources {
		if r.Kind == d.str("kind") && !strings.Contains(r.Name, "/") {
			if r.Namespaced {
				path += "/namespaces/default"
			}
			path, found = path+"/"+r.Name, true
			break
		}
	}
	if !found {
		return http.StatusNotFound, fmt.Sprintf("the server has no %s in %s", d.str("kind"), gv)
	}
	req, err := http.NewRequest(http.MethodPost, j.url+path+"?dryRun=All&fieldValidation=Strict", strings.NewReader(d.Text))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+j.token)
	req.Header.Set("Content-Type", "application/yaml")
	resp, err := j.http.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

// fieldOf is the field path a schema finding's message names ("field
// spec.replicas must be ...").
func fieldOf(msg string) string {
	if f := strings.Fields(msg); len(f) > 1 && f[0] == "field" {
		return f[1]
	}
	return msg
}

var index = regexp.MustCompile(`\[\d+\]`)

// names reports whether the server's message names field: as a path
// (Go's JSON decoder names list items without their index), or, for a
// key repeated in a YAML body, as the quoted key.
func names(msg, field, rule string) bool {
	if strings.Contains(msg, field) || strings.Contains(index.ReplaceAllString(msg, ""), index.ReplaceAllString(field, "")) {
		return true
	}
	if rule == RuleSchemaType {
		// Go's JSON decoder names a map's field, not the key whose
		// value it could not take (metadata.labels for
		// metadata.labels.version)
		if i := strings.LastIndex(field, "."); i > 0 && strings.Contains(msg, "."+field[:i]+" of type ") {
			return true
		}
	}
	if rule != RuleSchemaDuplicateField {
		return false
	}
	last := field[strings.LastIndexAny(field, ".]")+1:]
	return strings.Contains(msg, `\"`+last+`\"`) || strings.Contains(msg, `"`+last+`"`)
}
