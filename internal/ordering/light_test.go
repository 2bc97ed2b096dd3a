package ordering

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// CheckRepo for some envs builds the others only as far as parity looks;
// for every seeded defect and every env its findings must equal those of
// the full build filtered to that env.
func TestCheckRepoLightEqualsFull(t *testing.T) {
	cases := append([]defectCase{{name: "clean"}}, defectCases...)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m, cfg, ocfg := loadRepo(t, "testdata/repo")
			applyEdits(t, m, tc.edits)
			ocfg.ParityIgnore = tc.ignore
			all := Check(build(t, m, cfg), ocfg)
			for _, env := range cfg.Environments {
				got, err := CheckRepo(m, cfg, ocfg, env)
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(ForEnv(all, env), got); diff != "" {
					t.Errorf("env %s (-full +light):\n%s", env, diff)
				}
			}
		})
	}
}
