package diff

import (
	"reflect"
	"sort"
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
	key    string // the SecretKeyChange key; "" for non-secret fields
	status string
}

// sensitiveFields finds every value to redact in base and head and compares
// them in memory. gen holds the generated paths (head vs headAgain).
func sensitiveFields(kind string, base, head map[string]any, gen map[string]bool) []redactedField {
	var out []redactedField
	if isSecret(kind) {
		for _, f := range secretFields {
			out = append(out, secretField(f, base, head, gen)...)
		}
	}
	p := path{{key: "metadata"}, {key: "annotations"}, {key: LastAppliedAnnotation}}
	if st, ok := compareAt(base, head, p, gen); ok {
		out = append(out, redactedField{path: p, status: st})
	}
	return out
}

// secretField compares one of data/stringData key by key. A field that is
// not a map (malformed, but possible) is treated as a single value.
func secretField(field string, base, head map[string]any, gen map[string]bool) []redactedField {
	fp := path{{key: field}}
	bm, bIsMap := mapAt(base, fp)
	hm, hIsMap := mapAt(head, fp)
	if !bIsMap || !hIsMap {
		if st, ok := compareAt(base, head, fp, gen); ok {
			return []redactedField{{path: fp, key: field, status: st}}
		}
		return nil
	}
	var out []redactedField
	for _, k := range unionKeys(bm, hm) {
		p := fp.with(seg{key: k})
		st, _ := compareAt(base, head, p, gen)
		out = append(out, redactedField{path: p, key: field + "." + k, status: st})
	}
	return out
}

// mapAt returns the map at p; a missing value counts as an empty map so a
// Secret that gains its first key compares key by key.
func mapAt(obj map[string]any, p path) (map[string]any, bool) {
	v, ok := getAt(obj, p)
	if !ok || v == nil {
		return map[string]any{}, true
	}
	m, ok := v.(map[string]any)
	return m, ok
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

// redact overwrites every sensitive value of obj with its placeholder.
func redact(obj map[string]any, fields []redactedField, s side) {
	for _, f := range fields {
		setAt(obj, f.path, placeholder(f.status, s))
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
