package render

import (
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Each load of a cached value file is a tree of its own: writing into one
// (as --set and Helm's coalescing do) never shows in another, also when
// renders load it at once.
func TestValuesCacheHandsOutCopies(t *testing.T) {
	data := []byte("a: {b: [1, {c: x}], d: y}\ne: [z]\n")
	for name, c := range map[string]*valuesCache{"helm3": values3, "helm4": values4} {
		t.Run(name, func(t *testing.T) {
			want, err := c.parse(data)
			if err != nil {
				t.Fatal(err)
			}
			var wg sync.WaitGroup
			for i := range 8 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					v, err := c.load(data)
					if err != nil {
						t.Error(err)
						return
					}
					if diff := cmp.Diff(want, v); diff != "" {
						t.Errorf("load %d (-parsed +loaded):\n%s", i, diff)
					}
					a := v["a"].(map[string]any)
					a["d"] = i
					a["b"].([]any)[1].(map[string]any)["c"] = i
					v["e"].([]any)[0] = i
				}()
			}
			wg.Wait()
			v, err := c.load(data)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, v); diff != "" {
				t.Errorf("after writes into earlier loads (-parsed +loaded):\n%s", diff)
			}
		})
	}
}
