package argo

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"text/template"

	"github.com/Masterminds/sprig/v3"
	yamlv2 "go.yaml.in/yaml/v2"
	"go.yaml.in/yaml/v3"
)

// funcMap is the ApplicationSet controller's: sprig's generic functions
// minus those that leak the environment, plus its own helpers. slugify is
// left out because its exact output depends on a library we do not have;
// a template using it fails rather than renders differently.
var funcMap = func() template.FuncMap {
	m := sprig.GenericFuncMap()
	for _, unsafe := range []string{"env", "expandenv", "getHostByName"} {
		delete(m, unsafe)
	}
	m["normalize"] = SanitizeName
	m["toYaml"] = toYAML
	m["fromYaml"] = fromYAML
	m["fromYamlArray"] = fromYAMLArray
	return template.FuncMap(m)
}()

// renderer substitutes generator parameters into template strings.
type renderer struct {
	goTmpl bool
	opts   []string
	cache  map[string]*template.Template
}

func newRenderer(goTmpl bool, opts []string) (*renderer, error) {
	for _, o := range opts {
		switch o {
		case "missingkey=default", "missingkey=invalid", "missingkey=zero", "missingkey=error":
		default:
			// template.Option panics on anything else.
			return nil, fmt.Errorf("goTemplateOptions: unsupported option %q", o)
		}
	}
	return &renderer{goTmpl: goTmpl, opts: opts, cache: map[string]*template.Template{}}, nil
}

// replace renders one string.
func (r *renderer) replace(s string, params map[string]any) (string, error) {
	if !strings.Contains(s, "{{") {
		return s, nil
	}
	if !r.goTmpl {
		return fastReplace(s, params)
	}
	t, ok := r.cache[s]
	if !ok {
		var err error
		t, err = template.New("").Funcs(funcMap).Option(r.opts...).Parse(s)
		if err != nil {
			return "", fmt.Errorf("parsing %q: %w", s, err)
		}
		r.cache[s] = t
	}
	var buf bytes.Buffer
	if err := t.Execute(&limitWriter{w: &buf, n: maxRender}, params); err != nil {
		return "", fmt.Errorf("executing %q: %w", s, err)
	}
	return buf.String(), nil
}

// fastReplace is Argo CD's default syntax (valyala/fasttemplate): "{{ x }}"
// becomes params["x"] when that is a string; anything else is kept as
// written, and an unterminated "{{" is an error.
func fastReplace(s string, params map[string]any) (string, error) {
	var b strings.Builder
	rest := s
	for {
		i := strings.Index(rest, "{{")
		if i < 0 {
			b.WriteString(rest)
			return b.String(), nil
		}
		b.WriteString(rest[:i])
		rest = rest[i+2:]
		j := strings.Index(rest, "}}")
		if j < 0 {
			return "", fmt.Errorf("invalid template %q: no closing }}", s)
		}
		tag := rest[:j]
		rest = rest[j+2:]
		key := strings.TrimSpace(tag)
		if v, ok := params[key].(string); ok && key != "" {
			b.WriteString(v)
		} else {
			b.WriteString("{{" + tag + "}}")
		}
	}
}

// rendered is n with params substituted into every string scalar, mapping
// keys included, as Argo CD templates every string of the Application. n
// is not modified: a subtree in which nothing changes is shared with the
// result, a changed node is a copy. An ApplicationSet's template is
// rendered once per generated app, and most of it (sources without
// placeholders, sync policies) is the same for every app, so only the few
// nodes on the way to a placeholder are new. Nothing modifies a rendered
// tree afterwards (the templatePatch merge copies what it changes).
func (r *renderer) rendered(n *yaml.Node, params map[string]any) (*yaml.Node, error) {
	if n == nil {
		return nil, nil
	}
	if n.Kind == yaml.ScalarNode && !strings.Contains(n.Value, "{{") {
		return n, nil // replace would keep it as it is
	}
	if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!str" {
		v, err := r.replace(n.Value, params)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", n.Line, err)
		}
		if v == n.Value {
			return n, nil
		}
		c := *n
		c.Value, c.Tag, c.Style = v, "!!str", 0
		return &c, nil
	}
	var content []*yaml.Node // nil while no child has changed
	for i, c := range n.Content {
		rc, err := r.rendered(c, params)
		if err != nil {
			return nil, err
		}
		if rc != c && content == nil {
			content = make([]*yaml.Node, len(n.Content))
			copy(content, n.Content[:i])
		}
		if content != nil {
			content[i] = rc
		}
	}
	if content == nil {
		return n, nil
	}
	c := *n
	c.Content = content
	return &c, nil
}

// renderTreeExcept substitutes params into every string scalar of n in
// place, as rendered does, leaving the subtree skip as it is.
func (r *renderer) renderTreeExcept(n *yaml.Node, params map[string]any, skip *yaml.Node) error {
	if n == nil || n == skip {
		return nil
	}
	if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!str" {
		v, err := r.replace(n.Value, params)
		if err != nil {
			return fmt.Errorf("line %d: %w", n.Line, err)
		}
		if v != n.Value {
			n.Value, n.Tag, n.Style = v, "!!str", 0
		}
		return nil
	}
	for _, c := range n.Content {
		if err := r.renderTreeExcept(c, params, skip); err != nil {
			return err
		}
	}
	return nil
}

// withMissingKeyError is r with its missingkey option replaced by
// missingkey=error, as Argo CD resolves a generator's values early.
func (r *renderer) withMissingKeyError() *renderer {
	if !r.goTmpl {
		return r
	}
	opts := []string{}
	for _, o := range r.opts {
		if !strings.HasPrefix(o, "missingkey=") {
			opts = append(opts, o)
		}
	}
	return &renderer{goTmpl: true, opts: append(opts, "missingkey=error"), cache: map[string]*template.Template{}}
}

// isMissingKey reports a template error about a missing key or field.
func isMissingKey(err error) bool {
	msg := err.Error()
	return strings.Contains(msg, "map has no entry for key") || strings.Contains(msg, "can't evaluate field")
}

// addValues renders a generator's values map into params.
func (r *renderer) addValues(params map[string]any, values map[string]string) error {
	if len(values) == 0 {
		return nil
	}
	rendered := map[string]any{}
	for k, v := range values {
		s, err := r.replace(v, params)
		if err != nil {
			return fmt.Errorf("values.%s: %w", k, err)
		}
		rendered[k] = s
	}
	if r.goTmpl {
		params["values"] = rendered
		return nil
	}
	for k, v := range rendered {
		params["values."+k] = v
	}
	return nil
}

// maxRender bounds one rendered string so a runaway template (a huge
// repeat or until) fails instead of exhausting memory.
const maxRender = 1 << 20

var errTooLong = errors.New("rendered string exceeds 1 MiB")

type limitWriter struct {
	w *bytes.Buffer
	n int
}

func (l *limitWriter) Write(p []byte) (int, error) {
	if len(p) > l.n {
		return 0, errTooLong
	}
	l.n -= len(p)
	return l.w.Write(p)
}

// toYAML formats like sigs.k8s.io/yaml, which Argo CD uses: yaml.v2 style
// without the trailing newline.
func toYAML(v any) (string, error) {
	data, err := yamlv2.Marshal(v)
	if err != nil {
		return "", err
	}
	return strings.TrimSuffix(string(data), "\n"), nil
}

// fromYAML and fromYAMLArray read YAML as sigs.k8s.io/yaml does.
func fromYAML(s string) (map[string]any, error) {
	v, err := unmarshal11([]byte(s))
	if err != nil {
		return nil, err
	}
	if v == nil {
		return map[string]any{}, nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("cannot unmarshal %T into an object", v)
	}
	return m, nil
}

func fromYAMLArray(s string) ([]any, error) {
	v, err := unmarshal11([]byte(s))
	if err != nil || v == nil {
		return nil, err
	}
	a, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("cannot unmarshal %T into an array", v)
	}
	return a, nil
}
