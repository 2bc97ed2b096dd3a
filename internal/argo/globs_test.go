package argo

import (
	"errors"
	"testing"
	"testing/fstest"
)

func TestExpandValueFiles(t *testing.T) {
	repo := fstest.MapFS{}
	for _, f := range []string{"v/a.yaml", "v/b.yaml", "v/.hidden.yaml", "v/x/c.yaml", "v/x/y/d.yaml", "v/e.yml", "w/z.yaml"} {
		repo[f] = &fstest.MapFile{Data: []byte("k: v\n")}
	}
	chart := fstest.MapFS{"ci/1.yaml": {}, "ci/2.yaml": {}}
	in := func(p string) ValueFile { return ValueFile{Path: p, InRepo: true} }
	opt := func(v ValueFile) ValueFile { v.Optional = true; return v }
	for _, tc := range []struct {
		name    string
		vfs     []ValueFile
		want    []ValueFile
		wantErr error
	}{
		{"lexical, hidden files too", []ValueFile{in("v/*.yaml")}, []ValueFile{in("v/.hidden.yaml"), in("v/a.yaml"), in("v/b.yaml")}, nil},
		{"doublestar: a directory's files before its subdirectories'", []ValueFile{in("v/**/*.yaml")},
			[]ValueFile{in("v/.hidden.yaml"), in("v/a.yaml"), in("v/b.yaml"), in("v/x/c.yaml"), in("v/x/y/d.yaml")}, nil},
		{"braces and classes", []ValueFile{in("v/{b,e}.y*ml"), in("v/[a]*")}, []ValueFile{in("v/b.yaml"), in("v/e.yml"), in("v/a.yaml")}, nil},
		{"explicit file keeps its place", []ValueFile{in("v/*.yaml"), in("v/a.yaml")}, []ValueFile{in("v/.hidden.yaml"), in("v/b.yaml"), in("v/a.yaml")}, nil},
		{"a file listed twice is used first", []ValueFile{in("w/z.yaml"), in("v/a.yaml"), in("w/z.yaml")}, []ValueFile{in("w/z.yaml"), in("v/a.yaml")}, nil},
		{"chart and repository files", []ValueFile{{Path: "ci/*.yaml"}, in("w/*.yaml")}, []ValueFile{{Path: "ci/1.yaml"}, {Path: "ci/2.yaml"}, in("w/z.yaml")}, nil},
		{"no match", []ValueFile{in("none/*.yaml")}, nil, ErrGlobNoMatch},
		{"no match, optional", []ValueFile{opt(in("none/*.yaml")), opt(in("gone.yaml")), in("w/z.yaml")}, []ValueFile{in("w/z.yaml")}, nil},
		{"missing mandatory file kept for the read to fail", []ValueFile{in("gone.yaml")}, []ValueFile{in("gone.yaml")}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ExpandValueFiles(tc.vfs, repo, chart)
			if tc.wantErr != nil {
				if !errors.Is(err, tc.wantErr) {
					t.Fatalf("err = %v, want %v", err, tc.wantErr)
				}
				return
			}
			checkResolved(t, got, err, tc.want, "")
		})
	}
}
