package syncwindow

import (
	"os"
	"testing"
	"time"
)

// FuzzParse: any file content gives projects and findings or an error,
// never a panic, and every window read can be checked and evaluated.
func FuzzParse(f *testing.F) {
	data, err := os.ReadFile("testdata/projects.yaml")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	f.Add([]byte("kind: AppProject\nmetadata: {name: p}\nspec: {syncWindows: [{kind: allow, schedule: 'TZ=Europe/Berlin 0 1 * * *', duration: 1h}]}\n"))
	f.Add([]byte("kind: AppProject\nmetadata: {name: p}\nspec: {syncWindows: [{kind: deny, schedule: '*/0 * * * *', duration: -1h}]}\n"))
	f.Add([]byte("kind: AppProject\nmetadata: {name: p}\nspec: {syncWindows: [{kind: allow, schedule: '* * * * *', duration: 1s, applications: ['[']}]}\n"))
	now := time.Date(2025, 3, 30, 0, 30, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, data []byte) {
		projects, _ := Parse("f.yaml", data)
		_ = Check(projects)
		for _, p := range projects {
			ws := Matches(p.Windows, App{Name: "a", Namespace: "n", Server: "s"})
			if v, err := Evaluate(ws, true, now); err == nil {
				_ = v.Summary(now)
			}
		}
	})
}
