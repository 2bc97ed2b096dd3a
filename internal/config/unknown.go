package config

import (
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"

	"github.com/gitops-promote/gitops-promote/internal/suggest"
)

// schemaTypes are the structs the strict decoder names in its unknown
// field errors ("field version not found in type config.rawConfig"), by
// that name, so that the error can list what the mapping accepts.
// (A function, not a map built at init: promote's package init stays
// below the collector's first cycle.)
func schemaType(name string) (reflect.Type, bool) {
	switch name {
	case "config.rawConfig":
		return reflect.TypeOf(rawConfig{}), true
	case "config.ArgoCD":
		return reflect.TypeOf(ArgoCD{}), true
	case "config.ArgoHelm":
		return reflect.TypeOf(ArgoHelm{}), true
	case "config.ArgoKustomize":
		return reflect.TypeOf(ArgoKustomize{}), true
	case "config.ArgoApplicationSet":
		return reflect.TypeOf(ArgoApplicationSet{}), true
	case "config.SyncReadiness":
		return reflect.TypeOf(SyncReadiness{}), true
	}
	return nil, false
}

// unknownField is compiled on first use: promote compiles nothing at init.
var unknownField = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^line (\d+): field (\S+) not found in type (\S+)$`)
})

// unknownKeys rewrites the decoder's unknown field errors into the
// file's own terms: ".promote.yaml:2: unknown key "version" (did you
// mean versions?)". Any other error is returned as it is.
func unknownKeys(err error) error {
	var te *yaml.TypeError
	if !errors.As(err, &te) {
		return err
	}
	var lines []string
	for _, e := range te.Errors {
		m := unknownField().FindStringSubmatch(e)
		t, ok := schemaType(safeIndex(m, 3))
		if !ok {
			return err
		}
		keys := yamlKeys(t)
		hint := suggest.Hint("", m[2], keys)
		if hint == "" {
			hint = " (known keys: " + strings.Join(keys, ", ") + ")"
		}
		lines = append(lines, fmt.Sprintf("%s:%s: unknown key %q%s", FileName, m[1], m[2], hint))
	}
	return fmt.Errorf("%s: %w", strings.Join(lines, "; "), ErrInvalid)
}

func safeIndex(m []string, i int) string {
	if i < len(m) {
		return m[i]
	}
	return ""
}

// yamlKeys lists the keys a struct accepts, in declaration order.
func yamlKeys(t reflect.Type) []string {
	var out []string
	for i := 0; i < t.NumField(); i++ {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("yaml"), ",")
		if name != "" && name != "-" {
			out = append(out, name)
		}
	}
	return out
}
