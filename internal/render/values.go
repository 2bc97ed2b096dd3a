package render

import (
	"fmt"
	"strings"

	"helm.sh/helm/v3/pkg/strvals"
	"sigs.k8s.io/yaml"
)

// valuesSource names Request.Values in errors.
const valuesSource = "helm.values"

// mergeValues builds the user-supplied values the way values.Options does
// for `helm template -f ... --values <helm.values> --set ... --set-string
// ... --set-file ...`, but from bytes: values.Options would read paths from disk (and
// stdin or URLs), which this package must never do.
func mergeValues(req Request, rerr *Error) (map[string]interface{}, *Error) {
	base := map[string]interface{}{}
	files := req.ValueFiles
	if len(req.Values) > 0 {
		files = append(files[:len(files):len(files)], NamedBytes{Name: valuesSource, Data: req.Values})
	}
	for _, f := range files {
		cur, err := values3.load(f.Data)
		if err != nil {
			return nil, rerr.wrapSource(f.Name, fmt.Errorf("parse: %w", err))
		}
		base = mergeMaps(base, cur)
	}
	// Helm applies every --set before every --set-string, whatever the
	// order on the command line; Argo CD builds its arguments that way too.
	for _, forceString := range []bool{false, true} {
		for _, p := range req.Parameters {
			if p.ForceString != forceString {
				continue
			}
			if err := applyParameter(p, base); err != nil {
				return nil, rerr.wrap(err)
			}
		}
	}
	// --set-file comes after --set-string in Helm's merge, whatever the
	// command line says. The file's content is the value, as a string.
	for _, f := range req.FileParameters {
		content := string(f.Data)
		read := func([]rune) (interface{}, error) { return content, nil }
		if err := strvals.ParseIntoFile(f.Name+"=file", base, read); err != nil {
			return nil, rerr.wrap(fmt.Errorf("file parameter %q (--set-file): %w", f.Name, err))
		}
	}
	return base, nil
}

var values3 = &valuesCache{parse: func(data []byte) (map[string]any, error) {
	cur := map[string]interface{}{}
	err := yaml.Unmarshal(data, &cur)
	return cur, err
}}

func applyParameter(p Parameter, base map[string]interface{}) error {
	arg := p.Name + "=" + escapeParameter(p.Value)
	if p.ForceString {
		if err := strvals.ParseIntoString(arg, base); err != nil {
			return fmt.Errorf("parameter %q (--set-string): %w", p.Name, err)
		}
		return nil
	}
	if err := strvals.ParseInto(arg, base); err != nil {
		return fmt.Errorf("parameter %q (--set): %w", p.Name, err)
	}
	return nil
}

// escapeParameter mirrors Argo CD's cleanSetParameters: a comma in a value
// is data, not a separator between assignments, unless the value is a
// `{a,b}` list or the comma is already escaped.
func escapeParameter(val string) string {
	if strings.HasPrefix(val, "{") && strings.HasSuffix(val, "}") {
		return val
	}
	var b strings.Builder
	var prev rune
	for _, r := range val {
		if r == ',' && prev != '\\' {
			b.WriteString(`\,`)
		} else {
			b.WriteRune(r)
		}
		prev = r
	}
	return b.String()
}

// mergeMaps is values.Options' merge: maps merge recursively, anything
// else in b replaces a's value.
func mergeMaps(a, b map[string]interface{}) map[string]interface{} {
	out := make(map[string]interface{}, len(a))
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		if vm, ok := v.(map[string]interface{}); ok {
			if om, ok := out[k].(map[string]interface{}); ok {
				out[k] = mergeMaps(om, vm)
				continue
			}
		}
		out[k] = v
	}
	return out
}
