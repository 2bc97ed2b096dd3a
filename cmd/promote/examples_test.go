package main

import (
	"strings"
	"testing"
)

// Help's examples name the repository at hand's components, so that an
// example pastes as it is; elsewhere, the bundled example fleet's.
func TestHelpExamplesNameTheRepositorysComponents(t *testing.T) {
	f := newFleet(t)
	cfg := strings.Replace(f.read(t, ".promote.yaml"), "ledger-node.api: {chart: ledger-api}", "payments.api: {chart: ledger-api}", 1)
	cfg = strings.Replace(cfg, "gateway: {chart: edge-gateway}", "edge: {chart: edge-gateway}", 1)
	f.commitFile(t, ".promote.yaml", cfg, "other component names")
	for verb, want := range map[string]string{
		"plan":  "--only payments.api -o json",
		"apply": "--only payments.api,ledger-node.worker --push",
		"pin":   "promote pin --env qa payments.api.imageTag=",
	} {
		r := f.run(t, nil, verb, "--help")
		if r.code != 0 || !strings.Contains(r.out, want) || strings.Contains(r.out, "ledger-node.api") {
			t.Errorf("%s --help: exit %d, want %q:\n%s", verb, r.code, want, r.out)
		}
	}
}
