package config

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestLiveSection(t *testing.T) {
	c, err := Parse([]byte(good + "live: [qa, {env: preprod, context: pp-admin}]\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := []LiveEnv{{Env: "qa"}, {Env: "preprod", Context: "pp-admin"}}
	if d := cmp.Diff(want, c.Live); d != "" {
		t.Errorf("live (-want +got):\n%s", d)
	}
	if l, ok := c.LiveFor("preprod"); !ok || l.Context != "pp-admin" {
		t.Errorf("LiveFor(preprod) = %+v, %v", l, ok)
	}
	if _, ok := c.LiveFor("prod"); ok {
		t.Error("prod is not a live env")
	}
	none, err := Parse([]byte(good))
	if err != nil || len(none.Live) != 0 {
		t.Errorf("no live section: %v, %v", none.Live, err)
	}
}

func TestLiveSectionErrors(t *testing.T) {
	tests := []struct{ name, live, want string }{
		{"unknown env", "live: [staging]", `live: "staging" is not one of the environments`},
		{"twice", "live: [qa, {env: qa}]", `live: "qa" is listed twice`},
		{"no env", "live: [{context: x}]", "live: an entry has no env"},
		{"unknown key", "live: [{env: qa, cluster: x}]", `unknown key "cluster"`},
		{"not a list entry", "live: [[qa]]", "a live entry is an env name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(good + tt.live + "\n"))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want %q", err, tt.want)
			}
			if strings.Contains(tt.want, "live: ") && !errors.Is(err, ErrInvalid) {
				t.Errorf("err = %v, want ErrInvalid", err)
			}
		})
	}
}
