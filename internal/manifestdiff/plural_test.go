package manifestdiff

import (
	"errors"
	"testing"
)

// TestCountsAreSingularOrPlural: the run's closing errors said "1 app(s)
// failed to render" and "1 env(s) or app(s) not compared"; they now count
// in words, and say which of envs and apps failed.
func TestCountsAreSingularOrPlural(t *testing.T) {
	tests := []struct {
		err  error
		want string
	}{
		{renderError(0), ""},
		{renderError(1), "1 app failed to render: " + ErrRender.Error()},
		{renderError(3), "3 apps failed to render: " + ErrRender.Error()},
		{liveError(0, 0), ""},
		{liveError(1, 0), "1 env not compared with the cluster: " + ErrLive.Error()},
		{liveError(0, 1), "1 app not compared with the cluster: " + ErrLive.Error()},
		{liveError(2, 5), "2 envs and 5 apps not compared with the cluster: " + ErrLive.Error()},
	}
	for _, tt := range tests {
		got := ""
		if tt.err != nil {
			got = tt.err.Error()
		}
		if got != tt.want {
			t.Errorf("got %q, want %q", got, tt.want)
		}
	}
	if !errors.Is(renderError(1), ErrRender) || !errors.Is(liveError(1, 0), ErrLive) {
		t.Error("sentinels lost")
	}
}
