package manifestdiff

import "hash/fnv"

// Shard is one of Total shares of the apps, Index from 1 (GitLab CI's
// CI_NODE_INDEX of CI_NODE_TOTAL parallel jobs).
type Shard struct{ Index, Total int }

// InShard says whether the app named name of env belongs to shard s. The
// share is a hash of env and name alone: stable across runs, revisions
// and the other apps, so every job of a parallel run agrees on it without
// talking to the others, and each app is in exactly one shard. Changed
// apps spread evenly in expectation (a hash is not a balancer).
func InShard(env, name string, s Shard) bool {
	if s.Total <= 1 {
		return true
	}
	h := fnv.New64a()
	h.Write([]byte(env))
	h.Write([]byte{0})
	h.Write([]byte(name))
	return int(h.Sum64()%uint64(s.Total)) == s.Index-1
}
