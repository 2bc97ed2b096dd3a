package manifestdiff

import (
	"fmt"
	"testing"
)

// Every app is in exactly one shard for every shard count, and the
// shares are not lopsided.
func TestInShardPartitions(t *testing.T) {
	for total := 1; total <= 8; total++ {
		counts := make([]int, total+1)
		for _, env := range []string{"qa", "preprod", "prod"} {
			for i := range 2000 {
				name := fmt.Sprintf("dlt-node-%d-frontend-%s", i, env)
				in := 0
				for idx := 1; idx <= total; idx++ {
					if InShard(env, name, Shard{Index: idx, Total: total}) {
						in++
						counts[idx]++
					}
				}
				if in != 1 {
					t.Fatalf("%s/%s is in %d of %d shards", env, name, in, total)
				}
			}
		}
		for idx := 1; idx <= total; idx++ {
			if share := float64(counts[idx]) / 6000; share < 0.8/float64(total) || share > 1.2/float64(total) {
				t.Errorf("shard %d/%d holds %.1f%% of the apps", idx, total, 100*share)
			}
		}
	}
}
