package diff

import (
	"reflect"
	"sort"
	"strconv"
	"strings"
)

// seg is one step of a concrete path: a map key or a list index.
type seg struct {
	key   string
	idx   int
	isIdx bool
}

// path is a concrete location inside an object.
type path []seg

// String formats p the way Options.Ignore accepts it, so a generated path can
// be copied into an ignore rule.
func (p path) String() string {
	parts := make([]string, len(p))
	for i, s := range p {
		if s.isIdx {
			parts[i] = strconv.Itoa(s.idx)
		} else {
			parts[i] = s.key
		}
	}
	return strings.Join(parts, ".")
}

func (p path) with(s seg) path {
	return append(append(path(nil), p...), s)
}

// matchPaths resolves an ignore rule against v. A rule segment may itself
// contain dots ("helm.sh/chart"), so at each map the longest run of segments
// that names an existing key wins; shorter runs are tried only when the
// longer one matches nothing below. "*" matches every key or element, and a
// number matches a list index.
func matchPaths(v any, rule string, at path) []path {
	switch t := v.(type) {
	case map[string]any:
		return matchMap(t, rule, at)
	case []any:
		head, rest, more := strings.Cut(rule, ".")
		var out []path
		for i, e := range t {
			if head != "*" && head != strconv.Itoa(i) {
				continue
			}
			p := at.with(seg{idx: i, isIdx: true})
			if !more {
				out = append(out, p)
				continue
			}
			out = append(out, matchPaths(e, rest, p)...)
		}
		return out
	}
	return nil
}

func matchMap(m map[string]any, rule string, at path) []path {
	if head, rest, more := strings.Cut(rule, "."); head == "*" {
		var out []path
		for _, k := range sortedKeys(m) {
			p := at.with(seg{key: k})
			if !more {
				out = append(out, p)
			} else {
				out = append(out, matchPaths(m[k], rest, p)...)
			}
		}
		return out
	}
	for end := len(rule); end > 0; end = strings.LastIndex(rule[:end], ".") {
		k := rule[:end]
		e, ok := m[k]
		if !ok {
			continue
		}
		p := at.with(seg{key: k})
		if end == len(rule) {
			return []path{p}
		}
		if found := matchPaths(e, rule[end+1:], p); len(found) > 0 {
			return found
		}
	}
	return nil
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// getAt returns the value at p.
func getAt(v any, p path) (any, bool) {
	for _, s := range p {
		switch t := v.(type) {
		case map[string]any:
			e, ok := t[s.key]
			if !ok || s.isIdx {
				return nil, false
			}
			v = e
		case []any:
			if !s.isIdx || s.idx < 0 || s.idx >= len(t) {
				return nil, false
			}
			v = t[s.idx]
		default:
			return nil, false
		}
	}
	return v, true
}

// setAt replaces the value at an existing p; it never creates a path.
func setAt(root any, p path, val any) bool {
	if len(p) == 0 {
		return false
	}
	parent, ok := getAt(root, p[:len(p)-1])
	if !ok {
		return false
	}
	last := p[len(p)-1]
	switch t := parent.(type) {
	case map[string]any:
		if _, ok := t[last.key]; ok && !last.isIdx {
			t[last.key] = val
			return true
		}
	case []any:
		if last.isIdx && last.idx >= 0 && last.idx < len(t) {
			t[last.idx] = val
			return true
		}
	}
	return false
}

// deleteAt removes the value at p; a list element is cut out of its list.
func deleteAt(root any, p path) {
	if len(p) == 0 {
		return
	}
	parent, ok := getAt(root, p[:len(p)-1])
	if !ok {
		return
	}
	last := p[len(p)-1]
	switch t := parent.(type) {
	case map[string]any:
		if !last.isIdx {
			delete(t, last.key)
		}
	case []any:
		if last.isIdx && last.idx >= 0 && last.idx < len(t) {
			cut := append(append([]any{}, t[:last.idx]...), t[last.idx+1:]...)
			setAt(root, p[:len(p)-1], cut)
		}
	}
}

// applyIgnore deletes every field an ignore rule names. Matches are removed
// last first so earlier list indices stay valid.
func applyIgnore(obj map[string]any, rules []string) {
	for _, r := range rules {
		r = strings.TrimSpace(r)
		if r == "" {
			continue
		}
		found := matchPaths(obj, r, nil)
		for i := len(found) - 1; i >= 0; i-- {
			deleteAt(obj, found[i])
		}
	}
}

// leafDiff lists the deepest paths where a and b differ. A list whose length
// changed counts as one differing path: its elements cannot be paired.
// One path stack is shared by the whole walk and copied only for a
// result, so the cost is linear in the objects' size whatever their depth.
func leafDiff(a, b any) []path {
	w := &diffWalk{}
	w.walk(a, b)
	return w.out
}

type diffWalk struct {
	stack path
	out   []path
}

func (w *diffWalk) emit() { w.out = append(w.out, append(path(nil), w.stack...)) }

func (w *diffWalk) walk(a, b any) {
	am, aok := a.(map[string]any)
	bm, bok := b.(map[string]any)
	if aok && bok {
		for _, k := range unionKeys(am, bm) {
			ea, ina := am[k]
			eb, inb := bm[k]
			w.stack = append(w.stack, seg{key: k})
			if ina && inb {
				w.walk(ea, eb)
			} else {
				w.emit()
			}
			w.stack = w.stack[:len(w.stack)-1]
		}
		return
	}
	al, aok := a.([]any)
	bl, bok := b.([]any)
	if aok && bok && len(al) == len(bl) {
		for i := range al {
			w.stack = append(w.stack, seg{idx: i, isIdx: true})
			w.walk(al[i], bl[i])
			w.stack = w.stack[:len(w.stack)-1]
		}
		return
	}
	if !reflect.DeepEqual(a, b) {
		w.emit()
	}
}

func unionKeys(a, b map[string]any) []string {
	seen := make(map[string]any, len(a)+len(b))
	for k := range a {
		seen[k] = nil
	}
	for k := range b {
		seen[k] = nil
	}
	return sortedKeys(seen)
}
