package kube

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"slices"
	"sync"

	"k8s.io/apimachinery/pkg/util/managedfields"

	"github.com/gitops-promote/gitops-promote/internal/config"
	"github.com/gitops-promote/gitops-promote/internal/diff"
)

// Session compares the apps of one env with one cluster. It reads each
// live object and lists tracked objects once, however many apps ask. Safe
// for concurrent use.
type Session struct {
	c          *Cluster
	tracking   []Tracking
	namespaces []string

	listOnce     sync.Once
	byApp        map[string][]Ref
	listFindings []Finding
	listErr      error

	mu   sync.Mutex
	live map[string]*liveEntry
	dry  map[[32]byte]*dryEntry

	parserOnce sync.Once
	parser     *managedfields.GvkParser
	parserErr  error
}

type liveEntry struct {
	once sync.Once
	obj  map[string]any
	err  error
}

type dryEntry struct {
	once sync.Once
	obj  map[string]any
	err  error
}

// NewSession starts comparing with c. tracking are the ways Argo CD
// marks an app's objects, one per revision compared: the base revision's
// (what the live objects were applied under) and the head's (what a sync
// of the merge request would recognise); an object either one marks as
// an app's is that app's. namespaces are the apps' destination
// namespaces, where tracked objects are listed when the user may not list
// a kind cluster-wide.
func (c *Cluster) NewSession(tracking []Tracking, namespaces []string) *Session {
	var trs []Tracking
	for _, tr := range tracking {
		if tr.Method == "" {
			tr.Method = config.TrackingAnnotation
		}
		switch {
		case tr.Method != config.TrackingLabel:
			tr.LabelKey = "" // only label tracking reads the label
		case tr.LabelKey == "":
			tr.LabelKey = config.DefaultInstanceLabelKey
		}
		if tr.Method == config.TrackingNone || slices.Contains(trs, tr) {
			continue
		}
		trs = append(trs, tr)
	}
	return &Session{c: c, tracking: trs, namespaces: namespaces,
		live: map[string]*liveEntry{}, dry: map[[32]byte]*dryEntry{}}
}

// ListFindings are the kinds that could not be listed for prune
// detection. Read it once every Compare has returned.
func (s *Session) ListFindings() []Finding { return s.listFindings }

func (s *Session) tracked(ctx context.Context, app string) ([]Ref, error) {
	s.listOnce.Do(func() {
		if len(s.tracking) == 0 { // tracking none: nothing marks an app's objects
			s.byApp = map[string][]Ref{}
			return
		}
		s.listTracked(ctx)
	})
	return s.byApp[app], s.listErr
}

// getLive reads a live object once per session.
func (s *Session) getLive(ctx context.Context, r Ref) (map[string]any, error) {
	s.mu.Lock()
	e := s.live[r.Key()]
	if e == nil {
		e = &liveEntry{}
		s.live[r.Key()] = e
	}
	s.mu.Unlock()
	e.once.Do(func() { e.obj, e.err = s.c.get(ctx, r) })
	return diff.CopyObject(e.obj), e.err
}

// dryRun runs one dry run per distinct object: base and head renders of
// an app often hold the same object.
func (s *Session) dryRun(ctx context.Context, r Ref, obj map[string]any) (map[string]any, error) {
	body, err := json.Marshal(obj)
	if err != nil {
		return nil, err
	}
	k := sha256.Sum256(append([]byte(r.Key()+"\x00"), body...))
	s.mu.Lock()
	e := s.dry[k]
	if e == nil {
		e = &dryEntry{}
		s.dry[k] = e
	}
	s.mu.Unlock()
	e.once.Do(func() { e.obj, e.err = s.c.dryRunApply(ctx, r, obj) })
	return diff.CopyObject(e.obj), e.err
}
