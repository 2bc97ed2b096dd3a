package render

import (
	"bytes"
	"fmt"

	loaderv2 "helm.sh/helm/v4/pkg/chart/v2/loader"
	strvals4 "helm.sh/helm/v4/pkg/strvals"
)

// mergeValues4 is mergeValues with Helm 4's rules, which differ from
// Helm 3's in one place: a value file with several YAML documents merges
// them all, later documents winning (Helm 3 reads the first only). The
// order is Helm 4's values.Options: files, --set, --set-string, --set-file.
func mergeValues4(req Request, rerr *Error) (map[string]any, error) {
	base := map[string]any{}
	files := req.ValueFiles
	if len(req.Values) > 0 {
		files = append(files[:len(files):len(files)], NamedBytes{Name: valuesSource, Data: req.Values})
	}
	for _, f := range files {
		cur, err := values4.load(f.Data)
		if err != nil {
			return nil, rerr.wrapSource(f.Name, fmt.Errorf("parse: %w", err))
		}
		base = loaderv2.MergeMaps(base, cur)
	}
	for _, forceString := range []bool{false, true} {
		for _, p := range req.Parameters {
			if p.ForceString != forceString {
				continue
			}
			if err := applyParameter4(p, base); err != nil {
				return nil, rerr.wrap(err)
			}
		}
	}
	for _, f := range req.FileParameters {
		content := string(f.Data)
		read := func([]rune) (any, error) { return content, nil }
		if err := strvals4.ParseIntoFile(f.Name+"=file", base, read); err != nil {
			return nil, rerr.wrap(fmt.Errorf("file parameter %q (--set-file): %w", f.Name, err))
		}
	}
	return base, nil
}

var values4 = &valuesCache{parse: func(data []byte) (map[string]any, error) {
	return loaderv2.LoadValues(bytes.NewReader(data))
}}

func applyParameter4(p Parameter, base map[string]any) error {
	arg := p.Name + "=" + escapeParameter(p.Value)
	if p.ForceString {
		if err := strvals4.ParseIntoString(arg, base); err != nil {
			return fmt.Errorf("parameter %q (--set-string): %w", p.Name, err)
		}
		return nil
	}
	if err := strvals4.ParseInto(arg, base); err != nil {
		return fmt.Errorf("parameter %q (--set): %w", p.Name, err)
	}
	return nil
}
