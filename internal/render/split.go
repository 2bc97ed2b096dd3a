package render

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"sigs.k8s.io/yaml"
)

// jsonManifest checks that data is exactly one JSON object with a kind,
// which is what Argo CD accepts in a .json file, and returns it trimmed.
func jsonManifest(data []byte) (string, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	var obj map[string]interface{}
	if err := dec.Decode(&obj); err != nil {
		return "", fmt.Errorf("parse json: %w", err)
	}
	if dec.More() {
		return "", errors.New("more than one object in a json file")
	}
	if err := checkObject(obj); err != nil {
		return "", err
	}
	return strings.TrimSpace(string(data)), nil
}

// yamlManifests splits a YAML stream into its documents and drops empty
// ones, keeping each document's text as written except that CRLF line
// breaks become LF (the same document to a YAML parser, and stable diffs).
func yamlManifests(data []byte) ([]string, error) {
	var docs []string
	for _, doc := range splitYAML(string(data)) {
		doc = strings.ReplaceAll(doc, "\r\n", "\n")
		var obj map[string]interface{}
		err := yaml.Unmarshal([]byte(doc), &obj)
		if err == nil && obj == nil {
			continue // only comments, blanks or null
		}
		if err == nil {
			err = checkObject(obj)
		}
		if err != nil {
			// Argo CD stops at the first bad document: an error after a
			// good one, otherwise an unrelated YAML file to ignore unless
			// it looks like a Kubernetes manifest.
			if len(docs) > 0 || looksLikeManifest(data) {
				return nil, fmt.Errorf("parse yaml document %d: %w", len(docs)+1, err)
			}
			return nil, nil
		}
		docs = append(docs, strings.TrimRight(doc, " \t\r\n"))
	}
	return docs, nil
}

// checkObject is the one rule Kubernetes' unstructured decoding applies to
// every object: it must name its kind.
func checkObject(obj map[string]interface{}) error {
	if kind, _ := obj["kind"].(string); kind == "" {
		return errors.New("object has no kind")
	}
	return nil
}

func looksLikeManifest(data []byte) bool {
	for _, key := range []string{"apiVersion:", "kind:", "metadata:"} {
		if !bytes.Contains(data, []byte(key)) {
			return false
		}
	}
	return true
}

// splitYAML cuts a stream at document markers: a line starting with "---"
// followed by nothing or blank (text after the marker begins the next
// document) and "..." end markers. Indented lines can never be markers.
func splitYAML(s string) []string {
	var docs []string
	var cur strings.Builder
	flush := func() {
		docs = append(docs, cur.String())
		cur.Reset()
	}
	for _, line := range strings.SplitAfter(s, "\n") {
		bare := strings.TrimRight(line, "\r\n")
		switch {
		case bare == "---" || strings.HasPrefix(bare, "--- ") || strings.HasPrefix(bare, "---\t"):
			flush()
			if rest := strings.TrimLeft(bare[3:], " \t"); rest != "" {
				cur.WriteString(rest + "\n")
			}
		case bare == "..." || strings.HasPrefix(bare, "... ") || strings.HasPrefix(bare, "...\t"):
			flush()
		default:
			cur.WriteString(line)
		}
	}
	flush()
	return docs
}
