package diff

import (
	"strconv"

	"go.yaml.in/yaml/v3"
)

// Repeat is a key a rendered document gives twice in one mapping. YAML
// forbids it, but Argo CD's repo server reads manifests leniently
// (sigs.k8s.io/yaml, whose decoder lets a later key overwrite an earlier
// one) and applies the last value without a word, so manifestdiff keeps
// the last value too and reports the repeat: whoever reads the template
// or file sees the first.
type Repeat struct {
	// Path names the field as the API server does:
	// spec.template.spec.containers[0].image.
	Path string
	// Count is how many times the mapping gives the key. The lines are
	// not kept: they are the rendered stream's, which no reader has.
	Count int
}

// keepLast drops from each mapping of n every pair whose key comes again
// later in the same mapping, and returns the repeats it resolved, in the
// order of the document. Merge keys ("<<") are left to the YAML decoder,
// and aliases are not followed: their anchor is resolved where it stands.
func keepLast(n *yaml.Node) []Repeat {
	var out []Repeat
	keepLastAt(n, "", &out)
	return out
}

func keepLastAt(n *yaml.Node, path string, out *[]Repeat) {
	switch n.Kind {
	case yaml.DocumentNode:
		for _, c := range n.Content {
			keepLastAt(c, path, out)
		}
	case yaml.SequenceNode:
		for i, c := range n.Content {
			keepLastAt(c, path+"["+strconv.Itoa(i)+"]", out)
		}
	case yaml.MappingNode:
		count := map[string]int{} // scalar key to its pairs
		for i := 0; i+1 < len(n.Content); i += 2 {
			if k := n.Content[i]; repeatable(k) {
				count[k.Value]++
			}
		}
		seen := map[string]int{}
		kept := n.Content[:0:0]
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			p := path
			if repeatable(k) {
				if seen[k.Value]++; seen[k.Value] < count[k.Value] {
					continue // a later pair gives this key again
				}
				p = join(path, k.Value)
				if count[k.Value] > 1 {
					*out = append(*out, Repeat{Path: p, Count: count[k.Value]})
				}
			}
			kept = append(kept, k, v)
			keepLastAt(v, p, out)
		}
		if len(kept) != len(n.Content) {
			n.Content = kept
		}
	}
}

// repeatable reports whether k is a key keepLast compares: a plain
// scalar, not a merge key.
func repeatable(k *yaml.Node) bool { return k.Kind == yaml.ScalarNode && k.Value != "<<" }

// join appends a key to a field path, as the schema rules name fields.
func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}
