package diff

import (
	"fmt"
	"reflect"
	"sort"
	"strings"
)

// Per-key statuses of a Secret. KeyGenerated marks a value that differs
// between two renders of the same inputs (randAlphaNum): not a change.
const (
	KeyAdded     = "added"
	KeyRemoved   = "removed"
	KeyChanged   = "changed"
	KeyUnchanged = "unchanged"
	KeyGenerated = "generated"
)

// LastAppliedAnnotation holds a full copy of the object, Secret values
// included, so it is redacted on every kind.
const LastAppliedAnnotation = "kubectl.kubernetes.io/last-applied-configuration"

// GeneratedPlaceholder replaces a generated value on both sides.
const GeneratedPlaceholder = "<generated>"

// secretFields are the Secret fields whose values are redacted.
var secretFields = []string{"data", "stringData"}

func isSecret(kind string) bool { return kind == "Secret" }

// side tells redaction which render a placeholder is for: a changed value
// must read differently on the two sides or the diff would hide it.
type side int

const (
	sideBase side = iota
	sideHead
)

// placeholder reveals only the status, never the value or a hash of it.
func placeholder(status string, s side) string {
	switch status {
	case KeyAdded, KeyRemoved, KeyGenerated:
		return "<redacted: " + status + ">"
	case KeyChanged:
		if s == sideHead {
			return "<redacted: changed>"
		}
	}
	return "<redacted>"
}

// redactedField is one value to redact: its path and how it changed.
type redactedField struct {
	path   path
	key    string // the SecretKeyChange key; "" for other sensitive values
	status string
}

// sensitiveFields finds every value to redact in base and head and compares
// them in memory. gen holds the generated paths (head vs headAgain). What
// is sensitive, wherever it is in the object: a Secret's data and
// stringData values (the resource or a Secret nested in it), any
// last-applied-configuration annotation, and any copy of those made
// through a YAML alias (tainted at Parse).
func sensitiveFields(base, head map[string]any, gen map[string]bool) []redactedField {
	found := map[string]redactedField{}
	var order []string
	for _, obj := range []map[string]any{base, head} {
		w := &sensitiveWalk{found: found, order: &order}
		w.walk(obj)
	}
	out := make([]redactedField, 0, len(order))
	for _, k := range order {
		f := found[k]
		f.status, _ = compareAt(base, head, f.path, gen)
		out = append(out, f)
	}
	return out
}

// sensitiveWalk collects sensitive paths with one shared path stack, so a
// deep object costs its size, not its size times its depth.
type sensitiveWalk struct {
	stack path
	found map[string]redactedField
	order *[]string
}

func (w *sensitiveWalk) add(key string) {
	p := append(path(nil), w.stack...)
	s := p.String()
	if _, ok := w.found[s]; !ok {
		w.found[s] = redactedField{path: p, key: key}
		*w.order = append(*w.order, s)
	}
}

func (w *sensitiveWalk) walk(v any) {
	switch t := v.(type) {
	case map[string]any:
		secret := isSecret(kindOf(t))
		for _, k := range sortedKeys(t) {
			w.stack = append(w.stack, seg{key: k})
			switch e := t[k]; {
			case k == LastAppliedAnnotation:
				w.add("")
			case secret && (k == "data" || k == "stringData"):
				w.secretField(e)
			case tainted(e):
				w.add("")
			default:
				w.walk(e)
			}
			w.stack = w.stack[:len(w.stack)-1]
		}
	case []any:
		for i, e := range t {
			w.stack = append(w.stack, seg{idx: i, isIdx: true})
			if tainted(e) {
				w.add("")
			} else {
				w.walk(e)
			}
			w.stack = w.stack[:len(w.stack)-1]
		}
	}
}

// secretField records a Secret's data or stringData key by key; a field
// that is not a map (malformed, but possible) is one value. Keys are named
// "data.<key>" on the resource itself and by their full path when the
// Secret is nested.
func (w *sensitiveWalk) secretField(v any) {
	m, ok := v.(map[string]any)
	if !ok {
		if v != nil {
			w.add(w.stack.String())
		}
		return
	}
	for _, k := range sortedKeys(m) {
		w.stack = append(w.stack, seg{key: k})
		w.add(w.stack.String())
		w.stack = w.stack[:len(w.stack)-1]
	}
}

func kindOf(m map[string]any) string {
	k, _ := m["kind"].(string)
	return k
}

// compareAt returns the status of the value at p; ok is false when neither
// side has it.
func compareAt(base, head map[string]any, p path, gen map[string]bool) (string, bool) {
	bv, inB := getAt(base, p)
	hv, inH := getAt(head, p)
	switch {
	case base == nil && head == nil, !inB && !inH:
		return "", false
	case !inB:
		return KeyAdded, true
	case !inH:
		return KeyRemoved, true
	case isGenerated(p, gen):
		return KeyGenerated, true
	case reflect.DeepEqual(bv, hv):
		return KeyUnchanged, true
	}
	return KeyChanged, true
}

// isGenerated is true when p or anything below it differs between two
// renders of head.
func isGenerated(p path, gen map[string]bool) bool {
	s := p.String()
	for g := range gen {
		if g == s || len(g) > len(s) && g[:len(s)] == s && g[len(s)] == '.' {
			return true
		}
	}
	return false
}

// redact overwrites every sensitive value of obj with its placeholder,
// then, as a last guard, any tainted copy left (one under a path that
// went away), so that no marked value can reach serialisation.
func redact(obj map[string]any, fields []redactedField, s side) {
	for _, f := range fields {
		setAt(obj, f.path, placeholder(f.status, s))
	}
	sweepTainted(obj, 0)
}

func sweepTainted(v any, depth int) {
	if depth > maxDepth+8 {
		return
	}
	switch t := v.(type) {
	case map[string]any:
		for k, e := range t {
			if tainted(e) {
				t[k] = placeholder(KeyUnchanged, sideBase)
			} else {
				sweepTainted(e, depth+1)
			}
		}
	case []any:
		for i, e := range t {
			if tainted(e) {
				t[i] = placeholder(KeyUnchanged, sideBase)
			} else {
				sweepTainted(e, depth+1)
			}
		}
	}
}

// secretKeys reports the per-key statuses of a Secret, sorted by key.
func secretKeys(fields []redactedField) []SecretKeyChange {
	var out []SecretKeyChange
	for _, f := range fields {
		if f.key != "" {
			out = append(out, SecretKeyChange{Key: f.key, Status: f.status})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out
}

// SensitiveValues returns every value Resources would redact in rs: each
// Secret's data and stringData values, last-applied-configuration
// annotations, and alias copies of those. It is for scrubbing error text
// (scrub.Set.Add), never for output.
func SensitiveValues(rs []Resource) []string {
	var out []string
	for _, r := range rs {
		found := map[string]redactedField{}
		var order []string
		w := &sensitiveWalk{found: found, order: &order}
		w.walk(r.Object)
		for _, k := range order {
			if v, ok := getAt(r.Object, found[k].path); ok {
				out = appendScalars(out, v, 0)
			}
		}
	}
	return out
}

func appendScalars(out []string, v any, depth int) []string {
	if depth > maxDepth {
		return out
	}
	switch t := v.(type) {
	case map[string]any:
		for _, e := range t {
			out = appendScalars(out, e, depth+1)
		}
	case []any:
		for _, e := range t {
			out = appendScalars(out, e, depth+1)
		}
	case string:
		out = append(out, strings.TrimPrefix(t, taintPrefix))
	case nil:
	default:
		out = append(out, fmt.Sprint(t))
	}
	return out
}
