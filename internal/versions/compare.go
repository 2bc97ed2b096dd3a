package versions

import (
	"fmt"
	"slices"
	"strings"
)

// Change is one field of one component that a promotion moves.
type Change struct {
	Component string
	Chart     string
	Key       string
	From, To  string
}

// Compare lists what promoting src into dst changes for the components in
// only (all when only is empty), in config order. Every field of a src
// component must exist in dst: a field only in src is an error naming all
// of them, never silently dropped; fields only in dst are left alone.
func Compare(src, dst *File, only []string) ([]Change, error) {
	var changes []Change
	var missing []string
	for _, sc := range src.Components {
		if len(only) > 0 && !slices.Contains(only, sc.Key) {
			continue
		}
		if !sc.Found {
			missing = append(missing, fmt.Sprintf("%s (absent from %s)", sc.Key, src.Path))
			continue
		}
		dc, _ := dst.Component(sc.Key)
		if !dc.Found {
			missing = append(missing, fmt.Sprintf("%s (absent from %s)", sc.Key, dst.Path))
			continue
		}
		for _, sf := range sc.Fields {
			df, ok := dc.Field(sf.Key)
			if !ok {
				missing = append(missing, fmt.Sprintf("%s.%s (absent from %s)", sc.Key, sf.Key, dst.Path))
				continue
			}
			if df.Value != sf.Value {
				changes = append(changes, Change{Component: sc.Key, Chart: sc.Chart, Key: sf.Key, From: df.Value, To: sf.Value})
			}
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("cannot promote %s into %s, missing: %s: %w", src.Path, dst.Path, strings.Join(missing, ", "), ErrMissing)
	}
	return changes, nil
}

// CheckOnly verifies that every name in only is a configured component.
func CheckOnly(f *File, only []string) error {
	var unknown []string
	for _, o := range only {
		if _, ok := f.Component(o); !ok {
			unknown = append(unknown, o)
		}
	}
	if len(unknown) > 0 {
		var known []string
		for _, c := range f.Components {
			known = append(known, c.Key)
		}
		return fmt.Errorf("--only names unknown components %s (configured: %s)", strings.Join(unknown, ", "), strings.Join(known, ", "))
	}
	return nil
}
