package render

import (
	"bytes"
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/gitops-promote/gitops-promote/internal/argo"
	"github.com/gitops-promote/gitops-promote/internal/config"
	"github.com/gitops-promote/gitops-promote/internal/diff"
)

// Argo CD's tracking keys.
const (
	trackingIDKey     = "argocd.argoproj.io/tracking-id"
	installationIDKey = "argocd.argoproj.io/installation-id"
	labelMaxLength    = 63
)

// Tracking is what Argo CD's tracking metadata of an app's objects
// depends on: the method, the instance label key, the app's name and
// destination namespace. It is the same for every source of an app.
type Tracking struct {
	Method, LabelKey, App, Namespace string
}

// TrackingOf is req's tracking.
func TrackingOf(req *argo.Request) Tracking {
	return Tracking{Method: req.Tracking, LabelKey: req.InstanceLabelKey, App: req.BuildEnv.AppName, Namespace: req.BuildEnv.AppNamespace}
}

func (t Tracking) none() bool { return t.Method == "" || t.Method == config.TrackingNone }

// Active reports whether t adds anything to the objects.
func (t Tracking) Active() bool { return !t.none() }

// track marks every object of a rendered stream as Argo CD's repo-server
// does after a render (resourceTracking.SetAppInstance): annotation
// tracking sets "<app>:<group>/<kind>:<namespace>/<name>" (the object's
// namespace, else the destination's, even for cluster-scoped objects) and
// drops an installation-id annotation; label tracking sets the instance
// label to the app name, over the chart's own; annotation+label does both,
// the label cut to 63 characters. CRDs are left alone, and the items of a
// List are marked one by one. Documents that do not parse are left for
// the diff to report.
//
// It parses and re-encodes every document: ParseTracked gives the same
// resources from the untracked stream with one parse.
func track(stream []byte, req *argo.Request) ([]byte, error) {
	out, err := trackText(stream, TrackingOf(req))
	if err != nil {
		return nil, fmt.Errorf("env %s, app %s: tracking: %w", req.Env, req.App, err)
	}
	return out, nil
}

func trackText(stream []byte, t Tracking) ([]byte, error) {
	if t.none() {
		return stream, nil
	}
	return reencode(stream, t.markDocument)
}

// reencode parses each document of stream, lets mark change it and
// encodes it again; what does not parse as a mapping is kept as it is.
func reencode(stream []byte, mark func(*yaml.Node)) ([]byte, error) {
	if len(bytes.TrimSpace(stream)) == 0 {
		return stream, nil
	}
	var out bytes.Buffer
	for _, doc := range splitYAML(string(stream)) {
		head, body := leadingComments(doc)
		var n yaml.Node
		// A document past the diff's bounds is passed on untouched (and
		// unparsed when too big), for the diff to refuse with its clear
		// per-app error: re-encoding it first would cost more memory than
		// the bounds allow.
		if strings.TrimSpace(body) == "" || len(body) > diff.MaxDocumentBytes || yaml.Unmarshal([]byte(body), &n) != nil ||
			len(n.Content) == 0 || n.Content[0].Kind != yaml.MappingNode || diff.TooDeep(&n) {
			if strings.TrimSpace(doc) != "" {
				fmt.Fprintf(&out, "---\n%s", ensureNewline(doc))
			}
			continue
		}
		mark(&n)
		var b bytes.Buffer
		enc := yaml.NewEncoder(&b)
		enc.SetIndent(2)
		if err := enc.Encode(&n); err != nil {
			return nil, err
		}
		fmt.Fprintf(&out, "---\n%s%s", head, b.String())
	}
	return out.Bytes(), nil
}

// markDocument marks the object of a parsed document, or each item of a
// List; anything but a mapping is left alone.
func (t Tracking) markDocument(n *yaml.Node) {
	if len(n.Content) == 0 || n.Content[0].Kind != yaml.MappingNode {
		return
	}
	root := n.Content[0]
	if items := mapValue(root, "items"); items != nil && items.Kind == yaml.SequenceNode && strings.HasSuffix(scalar(root, "kind"), "List") {
		for _, it := range items.Content {
			markObject(it, t)
		}
	} else {
		markObject(root, t)
	}
}

func markObject(obj *yaml.Node, req Tracking) {
	if obj.Kind != yaml.MappingNode {
		return
	}
	apiVersion, kind := scalar(obj, "apiVersion"), scalar(obj, "kind")
	group, _, hasGroup := strings.Cut(apiVersion, "/")
	if !hasGroup {
		group = ""
	}
	if kind == "CustomResourceDefinition" && group == "apiextensions.k8s.io" {
		return
	}
	meta := ensureMap(obj, "metadata")
	app := req.App
	if req.Method != config.TrackingLabel {
		ns := scalar(meta, "namespace")
		if ns == "" {
			ns = req.Namespace
		}
		ann := ensureMap(meta, "annotations")
		deleteKey(ann, installationIDKey)
		setScalar(ann, trackingIDKey, fmt.Sprintf("%s:%s/%s:%s/%s", app, group, kind, ns, scalar(meta, "name")))
	}
	if req.Method == config.TrackingLabel || req.Method == config.TrackingAnnotationAndLabel {
		v := app
		if req.Method == config.TrackingAnnotationAndLabel {
			v = truncateLabel(v)
		}
		setScalar(ensureMap(meta, "labels"), req.LabelKey, v)
	}
}

// truncateLabel cuts a label value to 63 characters ending in an
// alphanumeric, as Argo CD's TruncateLabel does.
func truncateLabel(v string) string {
	if len(v) <= labelMaxLength {
		return v
	}
	v = v[:labelMaxLength]
	for len(v) > 1 && !isAlnum(v[len(v)-1]) {
		v = v[:len(v)-1]
	}
	return v
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// leadingComments splits a document into its leading comment and blank
// lines (Helm's "# Source:" among them) and the rest.
func leadingComments(doc string) (string, string) {
	i := 0
	for i < len(doc) {
		end := strings.IndexByte(doc[i:], '\n')
		if end < 0 {
			end = len(doc) - i
		} else {
			end++
		}
		line := strings.TrimSpace(doc[i : i+end])
		if line != "" && !strings.HasPrefix(line, "#") {
			break
		}
		i += end
	}
	return doc[:i], doc[i:]
}

func ensureNewline(s string) string {
	if strings.HasSuffix(s, "\n") {
		return s
	}
	return s + "\n"
}

func mapValue(n *yaml.Node, key string) *yaml.Node {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := lastPair(n); i >= 0; i -= 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

// lastPair is the index of n's last key. The helpers here look keys up
// from the end: a key a document repeats has its last value, as Argo CD
// reads it (and as internal/diff keeps it).
func lastPair(n *yaml.Node) int { return len(n.Content)&^1 - 2 }

func scalar(n *yaml.Node, key string) string {
	if v := mapValue(n, key); v != nil && v.Kind == yaml.ScalarNode && v.Tag != "!!null" {
		return v.Value
	}
	return ""
}

// ensureMap returns the mapping at key, creating (or replacing a null
// with) an empty one.
func ensureMap(n *yaml.Node, key string) *yaml.Node {
	for i := lastPair(n); i >= 0; i -= 2 {
		if n.Content[i].Value == key {
			if v := n.Content[i+1]; v.Kind == yaml.MappingNode {
				if v.Style&yaml.FlowStyle != 0 {
					v.Style = 0
				}
				return v
			}
			m := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
			n.Content[i+1] = m
			return m
		}
	}
	m := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: key}, m)
	return m
}

func setScalar(n *yaml.Node, key, val string) {
	v := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: val}
	for i := lastPair(n); i >= 0; i -= 2 {
		if n.Content[i].Value == key {
			n.Content[i+1] = v
			return
		}
	}
	n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: key}, v)
}

// deleteKey removes every pair of key: a repeated key is one field.
func deleteKey(n *yaml.Node, key string) {
	for i := lastPair(n); i >= 0; i -= 2 {
		if n.Content[i].Value == key {
			n.Content = append(n.Content[:i], n.Content[i+2:]...)
		}
	}
}
