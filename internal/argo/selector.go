package argo

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// selector is an ApplicationSet generator's selector: a Kubernetes label
// selector over the generator's flattened parameters, where values are
// not restricted to label values (a server URL matches), as in Argo CD.
type selector []requirement

type requirement struct {
	key, op string // op: In, NotIn, Exists, DoesNotExist
	values  []string
}

// parseSelector reads a selector node; nil when absent. An empty
// selector matches every parameter set.
func parseSelector(n *yaml.Node) (selector, error) {
	if isNull(n) {
		return nil, nil
	}
	var raw struct {
		MatchLabels      map[string]string `yaml:"matchLabels"`
		MatchExpressions []struct {
			Key      string   `yaml:"key"`
			Operator string   `yaml:"operator"`
			Values   []string `yaml:"values"`
		} `yaml:"matchExpressions"`
	}
	if err := n.Decode(&raw); err != nil {
		return nil, err
	}
	out := selector{}
	for _, k := range sortedKeys(raw.MatchLabels) {
		r, err := newRequirement(k, "In", []string{raw.MatchLabels[k]})
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	for _, e := range raw.MatchExpressions {
		switch e.Operator {
		case "In", "NotIn", "Exists", "DoesNotExist":
		default:
			return nil, fmt.Errorf("%q is not a valid pod selector operator", e.Operator)
		}
		r, err := newRequirement(e.Key, e.Operator, e.Values)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

func newRequirement(key, op string, values []string) (requirement, error) {
	if err := validLabelKey(key); err != nil {
		return requirement{}, fmt.Errorf("key: Invalid value: %q: %s", key, err)
	}
	switch op {
	case "In", "NotIn":
		if len(values) == 0 {
			return requirement{}, fmt.Errorf("values: Invalid value: for 'in', 'notin' operators, values set can't be empty")
		}
	default:
		if len(values) != 0 {
			return requirement{}, fmt.Errorf("values: Invalid value: values set must be empty for exists and does not exist")
		}
	}
	return requirement{key: key, op: op, values: values}, nil
}

func (s selector) matches(labels map[string]string) bool {
	for _, r := range s {
		v, has := labels[r.key]
		ok := false
		switch r.op {
		case "In":
			ok = has && slices.Contains(r.values, v)
		case "NotIn":
			ok = !has || !slices.Contains(r.values, v)
		case "Exists":
			ok = has
		case "DoesNotExist":
			ok = !has
		}
		if !ok {
			return false
		}
	}
	return true
}

var (
	labelNameRE  = regexp.MustCompile(`^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$`)
	dnsSubdomain = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`)
)

// validLabelKey is Kubernetes' qualified name check, which Argo CD applies
// to selector keys: an optional DNS subdomain prefix and "/", then a name
// of at most 63 characters.
func validLabelKey(k string) error {
	name := k
	if prefix, rest, ok := strings.Cut(k, "/"); ok {
		if strings.Contains(rest, "/") {
			return fmt.Errorf("a qualified name must consist of alphanumeric characters, '-', '_' or '.', with an optional DNS subdomain prefix and '/'")
		}
		if prefix == "" || len(prefix) > 253 || !dnsSubdomain.MatchString(prefix) {
			return fmt.Errorf("prefix part must be a lowercase RFC 1123 subdomain")
		}
		name = rest
	}
	switch {
	case name == "":
		return fmt.Errorf("name part must be non-empty")
	case len(name) > 63:
		return fmt.Errorf("name part must be no more than 63 characters")
	case !labelNameRE.MatchString(name):
		return fmt.Errorf("name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character")
	}
	return nil
}

// flattenParams turns a parameter set into the labels a selector sees, as
// Argo CD flattens it (see flattenTo).
func flattenParams(p map[string]any) map[string]string {
	out := map[string]string{}
	flattenTo("", p, func(k, v string) { out[k] = v })
	return out
}
