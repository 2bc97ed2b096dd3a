package syncready

import (
	"bytes"
	"compress/gzip"
	"encoding/gob"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	apiextcfg "k8s.io/apiextensions-apiserver/pkg/client/applyconfiguration"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/client-go/applyconfigurations"
	smd "sigs.k8s.io/structured-merge-diff/v6/schema"
)

// modulesSchema is the schema a module's type converter parsed from the
// YAML it embeds, without defaults (see withoutDefaults).
func modulesSchema(t *testing.T, tc managedfields.TypeConverter, apiVersion, kind string) []smd.TypeDef {
	t.Helper()
	tv, err := tc.ObjectToTyped(&unstructured.Unstructured{Object: map[string]any{"apiVersion": apiVersion, "kind": kind}})
	if err != nil {
		t.Fatalf("%s %s: %v", apiVersion, kind, err)
	}
	s := tv.Schema()
	withoutDefaults(s)
	return s.Types
}

func TestBuiltinSchemaIsClientGos(t *testing.T) {
	want := builtinSchemaFile{
		Core:   modulesSchema(t, applyconfigurations.NewTypeConverter(builtins()), "apps/v1", "Deployment"),
		APIExt: modulesSchema(t, apiextcfg.NewTypeConverter(builtins()), "apiextensions.k8s.io/v1", "CustomResourceDefinition"),
	}
	const path = "schema/builtin.gob.gz"
	if *update {
		var buf bytes.Buffer
		zw := gzip.NewWriter(&buf)
		if err := gob.NewEncoder(zw).Encode(&want); err != nil {
			t.Fatal(err)
		}
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	gz, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	got, err := decodeBuiltinSchemas(gz)
	if err != nil {
		t.Fatal(err)
	}
	// gob decodes an empty list as none
	if diff := cmp.Diff(want, *got, cmpopts.EquateEmpty(), cmpopts.IgnoreUnexported(smd.Map{})); diff != "" {
		t.Fatalf("%s is not the schema client-go and apiextensions-apiserver embed (a module was upgraded?): "+
			"go test ./internal/syncready -run TestBuiltinSchemaIsClientGos -update\n%.2000s", path, diff)
	}
	if len(got.Core) < 500 || len(got.APIExt) < 20 {
		t.Fatalf("%s holds %d core and %d apiextensions types: too few for the modules' schemas", path, len(got.Core), len(got.APIExt))
	}
	if !*update && !bytes.Equal(gz, builtinSchemaGz) {
		t.Fatalf("%s changed after the test binary embedded it: run the test again", path)
	}
}

// withoutDefaults clears every field's default, which gob cannot carry
// as YAML decoded them (interface values).
func withoutDefaults(s *smd.Schema) {
	for i := range s.Types {
		clearDefaults(s.Types[i].Atom)
	}
}

func clearDefaults(a smd.Atom) {
	if a.Map == nil {
		return
	}
	for j := range a.Map.Fields {
		a.Map.Fields[j].Default = nil
		clearDefaults(a.Map.Fields[j].Type.Inlined)
	}
}
