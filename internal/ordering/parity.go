package ordering

import (
	"slices"
	"strings"
)

// BaseName strips the environment suffix Argo CD names carry in our users'
// layout: "dlt-backup-prod" in prod is "dlt-backup" in every env.
func BaseName(name, env string) string { return strings.TrimSuffix(name, "-"+env) }

// parityKey identifies one object across environments.
type parityKey struct{ kind, base string }

// parityFindings compares environments pairwise in inventory order: an
// object missing from an env that another env has is reported in the env
// lacking it (that is where a promotion would land without it), and a wave
// that differs from the nearest earlier env having the object is reported
// in the later env. The root app-of-apps takes part in the presence check
// only, as its wave orders nothing.
func parityFindings(inv *Inventory, ocfg Config) []Finding {
	if len(inv.Envs) < 2 {
		return nil
	}
	byEnv := make([]map[parityKey]*Object, len(inv.Envs))
	var keys []parityKey
	seen := map[parityKey]bool{}
	for i := range inv.Envs {
		e := &inv.Envs[i]
		byEnv[i] = map[parityKey]*Object{}
		for _, o := range e.Objects() {
			k := parityKey{o.Kind, BaseName(o.Name, e.Env)}
			if slices.Contains(ocfg.ParityIgnore, k.base) {
				continue
			}
			if _, dup := byEnv[i][k]; !dup {
				byEnv[i][k] = o
			}
			if !seen[k] {
				seen[k] = true
				keys = append(keys, k)
			}
		}
	}
	var out []Finding
	for _, k := range keys {
		out = append(out, presence(inv, byEnv, k)...)
		out = append(out, waveDrift(inv, byEnv, k)...)
	}
	return out
}

func presence(inv *Inventory, byEnv []map[parityKey]*Object, k parityKey) []Finding {
	var have, lack []string
	for i, e := range inv.Envs {
		if o := byEnv[i][k]; o != nil {
			have = append(have, e.Env+" ("+o.File+")")
		} else {
			lack = append(lack, e.Env)
		}
	}
	var out []Finding
	for _, env := range lack {
		out = append(out, finding(RuleEnvParity, env, "", 0, k.base,
			"%s %s exists in %s but not in %s", k.kind, k.base, strings.Join(have, ", "), env))
	}
	return out
}

func waveDrift(inv *Inventory, byEnv []map[parityKey]*Object, k parityKey) []Finding {
	var out []Finding
	var prev *Object
	prevEnv := ""
	for i, e := range inv.Envs {
		o := byEnv[i][k]
		if o == nil {
			continue
		}
		if prev != nil && !o.Root && !prev.Root && o.Wave != prev.Wave {
			out = append(out, finding(RuleEnvParity, e.Env, o.File, o.Line, o.Name,
				"%s %s is in wave %d here but in wave %d in %s", k.kind, k.base, o.Wave, prev.Wave, prevEnv))
		}
		prev, prevEnv = o, e.Env
	}
	return out
}
