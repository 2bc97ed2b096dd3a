package report

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
)

// everyString calls f with the path and value of every string reachable
// from v (fields, slices, pointers).
func everyString(v reflect.Value, path string, f func(path, s string)) {
	switch v.Kind() {
	case reflect.String:
		f(path, v.String())
	case reflect.Pointer:
		if !v.IsNil() {
			everyString(v.Elem(), path, f)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				everyString(v.Field(i), path+"."+v.Type().Field(i).Name, f)
			}
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			everyString(v.Index(i), path+"[]", f)
		}
	}
}

// TestMaskContentReachesEveryString: a value planted in every string of
// a report, the live part's included, is gone from every string once the
// report is masked, so a field added later cannot be forgotten; and from
// every output built from it.
func TestMaskContentReachesEveryString(t *testing.T) {
	const planted = "PLANTED-cred-5"
	r := hostileReport("x " + planted + " y")
	// Shard is our own bookkeeping, not content
	r.Shard = nil
	planted0 := 0
	everyString(reflect.ValueOf(r), "Report", func(_, s string) {
		if strings.Contains(s, planted) {
			planted0++
		}
	})
	if planted0 < 40 {
		t.Fatalf("planted in %d strings only", planted0)
	}
	r.MaskContent(func(s string) string { return strings.ReplaceAll(s, planted, "***") })
	everyString(reflect.ValueOf(r), "Report", func(path, s string) {
		if strings.Contains(s, planted) {
			t.Errorf("%s still holds it: %q", path, s)
		}
	})
	var b bytes.Buffer
	if err := Markdown(&b, r); err != nil {
		t.Fatal(err)
	}
	if err := JSON(&b, r); err != nil {
		t.Fatal(err)
	}
	if err := Diff(&b, r, true); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), planted) {
		t.Errorf("an output holds it")
	}
}
