package kubeserver

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"
)

// Client writes to the test cluster as a user: what Argo CD's sync and a
// person's manual edit do, so that a live diff has something to find.
type Client struct {
	dyn    dynamic.Interface
	mapper meta.ResettableRESTMapper
}

// Client returns a client acting as user.
func (s *Server) Client(t testing.TB, user string) *Client {
	t.Helper()
	cfg := &rest.Config{Host: s.URL, BearerToken: s.tokens[user], TLSClientConfig: rest.TLSClientConfig{CAFile: s.CAFile}, QPS: 100, Burst: 200}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	disc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return &Client{dyn: dyn, mapper: restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(disc))}
}

func (c *Client) resource(obj map[string]any) (dynamic.ResourceInterface, string, error) {
	u := unstructured.Unstructured{Object: obj}
	gvk := u.GroupVersionKind()
	m, err := c.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if meta.IsNoMatchError(err) {
		c.mapper.Reset()
		m, err = c.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	}
	if err != nil {
		return nil, "", err
	}
	if m.Scope.Name() == meta.RESTScopeNameNamespace {
		return c.dyn.Resource(m.Resource).Namespace(u.GetNamespace()), u.GetName(), nil
	}
	return c.dyn.Resource(m.Resource), u.GetName(), nil
}

// Apply server-side applies obj as manager, forcing conflicts, as Argo CD
// syncs with server-side apply.
func (c *Client) Apply(ctx context.Context, obj map[string]any, manager string) error {
	ri, name, err := c.resource(obj)
	if err != nil {
		return err
	}
	body, err := json.Marshal(obj)
	if err != nil {
		return err
	}
	force := true
	_, err = ri.Patch(ctx, name, types.ApplyPatchType, body, metav1.PatchOptions{FieldManager: manager, Force: &force})
	return err
}

// MergePatch changes an object as `kubectl patch --type merge` does, with
// manager as the field manager (an Update operation, like kubectl edit).
func (c *Client) MergePatch(ctx context.Context, apiVersion, kind, ns, name, patch, manager string) error {
	obj := map[string]any{"apiVersion": apiVersion, "kind": kind, "metadata": map[string]any{"name": name, "namespace": ns}}
	ri, _, err := c.resource(obj)
	if err != nil {
		return err
	}
	_, err = ri.Patch(ctx, name, types.MergePatchType, []byte(patch), metav1.PatchOptions{FieldManager: manager})
	return err
}

// Get reads an object.
func (c *Client) Get(ctx context.Context, apiVersion, kind, ns, name string) (map[string]any, error) {
	obj := map[string]any{"apiVersion": apiVersion, "kind": kind, "metadata": map[string]any{"name": name, "namespace": ns}}
	ri, _, err := c.resource(obj)
	if err != nil {
		return nil, err
	}
	u, err := ri.Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	return u.Object, nil
}

// WaitEstablished waits until a CRD serves its kind.
func (c *Client) WaitEstablished(ctx context.Context, gvk schema.GroupVersionKind) error {
	deadline := time.Now().Add(time.Minute)
	for {
		c.mapper.Reset()
		_, err := c.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s not served after a minute: %w", gvk, err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}
