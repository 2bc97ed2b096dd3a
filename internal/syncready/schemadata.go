package syncready

import (
	"bytes"
	"compress/gzip"
	_ "embed"
	"encoding/gob"
	"fmt"

	"k8s.io/apimachinery/pkg/util/managedfields"
	smd "sigs.k8s.io/structured-merge-diff/v6/schema"
	"sigs.k8s.io/structured-merge-diff/v6/typed"
)

// The built-in schemas are client-go's and apiextensions-apiserver's,
// kept beside this file in gob rather than parsed from the YAML those
// modules embed: the YAML took 150 ms of CPU in every run that checks an
// object, half of a one-app change at 12 nodes; the gob decodes in under
// 10 ms (docs/benchmarks.md). Field defaults are left out: strict field
// validation does not read them. TestBuiltinSchemaIsClientGos holds the
// file equal to the modules' schemas; after an upgrade it fails until
// `go test ./internal/syncready -run TestBuiltinSchemaIsClientGos -update`
// writes it again.
//
//go:embed schema/builtin.gob.gz
var builtinSchemaGz []byte

// builtinSchemaFile is gob, not JSON: an Atom embeds its Scalar, List
// and Map, whose fields JSON would flatten into one object and lose.
type builtinSchemaFile struct {
	Core   []smd.TypeDef // client-go's applyconfigurations
	APIExt []smd.TypeDef // apiextensions-apiserver's
}

func decodeBuiltinSchemas(gz []byte) (*builtinSchemaFile, error) {
	r, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		return nil, fmt.Errorf("built-in schema: %w", err)
	}
	var f builtinSchemaFile
	if err := gob.NewDecoder(r).Decode(&f); err != nil {
		return nil, fmt.Errorf("built-in schema: %w", err)
	}
	return &f, nil
}

// newConverters builds the type converters over the embedded schemas.
// It panics on a file the tests prove sound, as client-go does on its own.
func newConverters() converters {
	f, err := decodeBuiltinSchemas(builtinSchemaGz)
	if err != nil {
		panic(err)
	}
	return converters{
		core:   managedfields.NewSchemeTypeConverter(builtins(), &typed.Parser{Schema: smd.Schema{Types: f.Core}}),
		apiext: managedfields.NewSchemeTypeConverter(builtins(), &typed.Parser{Schema: smd.Schema{Types: f.APIExt}}),
	}
}
